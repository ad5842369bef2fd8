/* local_shm.c - each emulated node its own /dev/shm.
 *
 * The nodes of the loopback emulation share one host name, and programs
 * name their shared-memory files after it: Open MPI's btl/vader calls a
 * segment /dev/shm/vader_segment.HOST.JOB.LOCALRANK, so under mpirun
 * (whose orteds srun starts one per node, all in one Open MPI job) local
 * rank 0 of node1 and local rank 0 of node2 opened the same segment and
 * crashed. A real node has a /dev/shm of its own; so does an emulated one
 * here: as root, each noded starts in a mount namespace of its own (its
 * stepds and tasks inherit it) with a fresh tmpfs on /dev/shm. The spool
 * may itself live in /dev/shm (local_conf.c's spool_setup), so it is
 * bound again at the same path inside the new tmpfs, from a descriptor
 * opened before the tmpfs hid it. Mounts of the host still reach the node
 * (MS_SLAVE); the node's reach nobody. Everything in the tmpfs goes when
 * the node's last process does.
 *
 * Not with --netns (each node has its own host name there), nor for an
 * ordinary user, who cannot mount: that user's clusters keep one /dev/shm,
 * and docs/mpi.md says what Open MPI then needs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "local_base.h"
#include "local_shm.h"

#define LOCAL_SHM_DIR "/dev/shm"

bool local_shm_wanted (const struct local *l, ssize_t node)
{
    struct stat st;

    if (node < 0 || geteuid () != 0 || l->opt.netns)
        return false;
    if (stat (LOCAL_SHM_DIR, &st) < 0 || !S_ISDIR (st.st_mode))
        return false;
    return conf_node_nests (l->conf, l->conf->nodes[node].name);
}

/* Bind the directory open as 'fd' at 'path' (made, as root's 0755). */
static int shm_rebind (int fd, const char *path)
{
    char src[64];

    snprintf (src, sizeof (src), "/proc/self/fd/%d", fd);
    if (mkdir (path, 0755) < 0 && errno != EEXIST)
        return -1;
    return mount (src, path, NULL, MS_BIND, NULL);
}

int local_shm_enter (const struct local *l, ssize_t node)
{
    const char *name = l->conf->nodes[node].name;
    const char *spool = l->spool_tmp[0] ? l->spool_tmp : NULL;
    int fd = -1;

    /* Until the tmpfs is mounted, nothing is lost by going on with the
     * host's /dev/shm: the node works, only its shared memory is the
     * host's. The spool is opened inside the new namespace: a bind
     * mount's source must be a mount of the caller's own namespace. */
    if (unshare (CLONE_NEWNS) < 0
        || mount (NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0
        || (spool && (fd = open (spool, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        || mount ("arbor-shm", LOCAL_SHM_DIR, "tmpfs", MS_NOSUID | MS_NODEV,
                  "mode=1777")
               < 0) {
        fprintf (stderr,
                 "arbor local: %s: no %s of its own (%s); it shares the "
                 "host's\n",
                 name, LOCAL_SHM_DIR, strerror (errno));
        if (fd >= 0)
            close (fd);
        return 0;
    }
    /* From here the node needs its spool back, or it cannot run. */
    if (fd >= 0 && shm_rebind (fd, spool) < 0) {
        fprintf (stderr, "arbor local: %s: spool %s in its own %s: %s\n", name,
                 spool, LOCAL_SHM_DIR, strerror (errno));
        close (fd);
        return -1;
    }
    if (fd >= 0)
        close (fd);
    return 0;
}
