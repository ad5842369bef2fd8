/* cg_fs.c - the two filesystem calls both cgroup backends share: writing
 * an interface file and making a step's container directories.
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
