/* cg_fs.c - the filesystem calls both cgroup backends share: writing an
 * interface file, making and removing a step's container directories and
 * asking whether a group has a process left.
 *
 * Why not libcgroup's cgroup_create_cgroup for the directories: it makes
 * every level from the hierarchy's root down, ignoring EEXIST, and each
 * mkdir(2) of an existing directory still takes its parent's inode lock
 * (filename_create) and, under cgroupfs, the kernel's cgroup mutex. With
 * a thousand stepds starting at once, all of them queued on the root's
 * and CgroupRoot's locks to learn that those exist: a 1,024-node launch
 * stalled there for seconds (docs/performance.md). cg_mkdirs() starts
 * from the leaf and walks up only past levels that are missing, so a step
 * of a job already on the node makes one directory, in its job's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg.h"
#include "cg_fs.h"

int cg_write (const char *path, const char *text)
{
    int fd = open (path, O_WRONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = write (fd, text, strlen (text));
    if (n < 0) {
        int e = errno;
        close (fd);
        errno = e;
        return -1;
    }
    return close (fd);
}

/* EEXIST from mkdir: fine if it is a directory. */
static int cg_exists_as_dir (const char *path)
{
    struct stat sb;

    if (stat (path, &sb) < 0)
        return -1;
    if (!S_ISDIR (sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Make path's missing directories: climb while mkdir says the parent is
 * missing (not below 'floor', the mount point's length), then come back
 * down putting back each '/' that was cut. */
static int cg_mkdirs_path (char *path, size_t floor)
{
    size_t full = strlen (path);
    char *cut;

    while (mkdir (path, 0755) < 0) {
        if (errno == EEXIST) {
            if (cg_exists_as_dir (path) < 0)
                return -1;
            break;
        }
        if (errno != ENOENT || !(cut = strrchr (path, '/'))
            || (size_t)(cut - path) <= floor)
            return -1;
        *cut = '\0';
    }
    while (strlen (path) < full) {
        path[strlen (path)] = '/';
        if (mkdir (path, 0755) < 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

int cg_mkdirs (const char *mount, const char *rel)
{
    char path[PATH_MAX * 2];
    int n;

    if (!mount || !*mount || !rel || !*rel) {
        errno = EINVAL;
        return -1;
    }
    n = snprintf (path, sizeof (path), "%s/%s", mount, rel);
    if (n < 0 || (size_t)n >= sizeof (path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return cg_mkdirs_path (path, strlen (mount));
}

int cg_path_join (char *path, size_t size, const char *mount, const char *rel,
                  const char *file)
{
    int n = snprintf (path, size, "%s/%s%s%s", mount, rel, file ? "/" : "",
                      file ? file : "");

    if (n < 0 || (size_t)n >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* rmdir(2) is the whole removal: the kernel refuses (EBUSY) a group that
 * still holds a process or a child group, so nothing needs listing or
 * checking first. */
int cg_rmdirs (const char *mount, const char *rel, int levels)
{
    char path[PATH_MAX * 2];
    int rc = 0;

    if (cg_path_join (path, sizeof (path), mount, rel, NULL) < 0)
        return -1;
    for (int i = 0; i < levels; i++) {
        char *cut;
        if (rmdir (path) < 0 && errno != ENOENT) {
            if (i == 0)
                rc = -1;
            break; /* busy: another step or job still lives here */
        }
        if (!(cut = strrchr (path, '/'))
            || (size_t)(cut - path) <= strlen (mount))
            break;
        *cut = '\0';
    }
    return rc;
}

/* One read of cgroup.procs tells: the kernel's list is empty or not. A
 * byte is all that is asked for, so no pid is formatted past the first. */
int cg_procs_empty (const char *mount, const char *rel)
{
    char path[PATH_MAX * 2], c;
    ssize_t n;
    int fd;

    if (cg_path_join (path, sizeof (path), mount, rel, "cgroup.procs") < 0
        || (fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    do {
        n = read (fd, &c, 1);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        int e = errno;
        close (fd);
        errno = e;
        return -1;
    }
    close (fd);
    return n == 0;
}
