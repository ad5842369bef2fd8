/* local_cgroup.c - remove an "arbor local" cluster's cgroup subtree.
 *
 * As root, arbor local gives each cluster its own CgroupRoot
 * (arbor/local-<pid>, see local_conf.c). stepds remove their step cgroups
 * and empty parents up to CgroupRoot; what is left after teardown (the
 * CgroupRoot itself, and anything a killed stepd could not remove) is
 * removed here, depth first, under every cgroup and cgroup2 mount. Cgroup
 * directories go with rmdir alone (their files are virtual), and only
 * once empty, which they are: every process of the cluster is dead by
 * now. Best effort: nothing here can make teardown fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "local_base.h"
#include "local_cgroup.h"

static int rmdir_cb (const char *path, const struct stat *st, int flag,
                     struct FTW *ftw)
{
    if (flag == FTW_DP)
        rmdir (path);
    return 0;
}

/* Is 'root' one we made (arbor/local-<pid>), not a path shared with
 * others that a --set CgroupRoot= might name? */
static int ours (const char *root)
{
    char mine[64];

    local_path (mine, sizeof (mine), "%s/local-%ld", LOCAL_CGROUP_PARENT,
                (long)getpid ());
    return strcmp (root, mine) == 0;
}

/* Write 'value' to the interface file 'name' of group 'path', if it has
 * one. */
static void group_write (const char *path, const char *name, const char *value)
{
    char file[PATH_MAX];
    FILE *f;

    if (local_path (file, sizeof (file), "%s/%s", path, name) < 0
        || !(f = fopen (file, "we")))
        return;
    fputs (value, f);
    fclose (f);
}

/* SIGKILL every process listed in a cgroup.procs under the subtree: tasks
 * of a stepd that a hand-started daemon spawned are not our descendants,
 * but they are in the cluster's cgroups. A group a stepd killed while it
 * signalled its step is left frozen, and a frozen task does not die: it
 * is thawed after the kill (v1 freezer.state, v2 cgroup.freeze). */
static int kill_procs_cb (const char *path, const struct stat *st, int flag,
                          struct FTW *ftw)
{
    char procs[PATH_MAX];
    long pid;
    FILE *f;

    if (flag != FTW_D
        || local_path (procs, sizeof (procs), "%s/cgroup.procs", path) < 0
        || !(f = fopen (procs, "re")))
        return 0;
    while (fscanf (f, "%ld", &pid) == 1)
        if (pid > 1)
            kill ((pid_t)pid, SIGKILL);
    fclose (f);
    group_write (path, "freezer.state", "THAWED");
    group_write (path, "cgroup.freeze", "0");
    return 0;
}

/* Call 'fn' on the cluster's CgroupRoot under every cgroup and cgroup2
 * mount where it exists, with the mount point. Only as root, and only for
 * a root we made. */
static void for_each_root (struct local *l,
                           void (*fn) (const char *path, const char *mnt))
{
    const char *root = l->conf ? l->conf->cgroup_root : NULL;
    struct mntent *m;
    FILE *f;

    if (geteuid () != 0 || !root || !ours (root))
        return;
    if (!(f = setmntent ("/proc/self/mounts", "re")))
        return;
    while ((m = getmntent (f))) {
        char path[PATH_MAX];

        if ((strcmp (m->mnt_type, "cgroup") != 0
             && strcmp (m->mnt_type, "cgroup2") != 0)
            || local_path (path, sizeof (path), "%s/%s", m->mnt_dir, root) < 0
            || access (path, F_OK) < 0)
            continue;
        fn (path, m->mnt_dir);
    }
    endmntent (f);
}

static void kill_root (const char *path, const char *mnt)
{
    nftw (path, kill_procs_cb, 16, FTW_PHYS | FTW_MOUNT);
}

static void remove_root (const char *path, const char *mnt)
{
    char parent[PATH_MAX];

    nftw (path, rmdir_cb, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
    /* The shared parent goes too once no other cluster uses it. */
    if (local_path (parent, sizeof (parent), "%s/%s", mnt, LOCAL_CGROUP_PARENT)
        == 0)
        rmdir (parent);
}

void local_cgroup_kill (struct local *l)
{
    for_each_root (l, kill_root);
}

void local_cgroup_cleanup (struct local *l)
{
    for_each_root (l, remove_root);
}
