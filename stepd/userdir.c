/* userdir.c - the job user's directories in the spool area; see
 * userdir.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "userdir.h"

/* Remove what is in the directory 'dfd' (taken: closed here), never
 * following a link the job's user may have put there. */
static void userdir_empty (int dfd)
{
    DIR *d = fdopendir (dfd);
    struct dirent *de;

    if (!d) {
        close (dfd);
        return;
    }
    while ((de = readdir (d))) {
        int sub;
        if (!strcmp (de->d_name, ".") || !strcmp (de->d_name, ".."))
            continue;
        if (unlinkat (dfd, de->d_name, 0) == 0 || errno != EISDIR)
            continue;
        sub = openat (dfd, de->d_name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            userdir_empty (sub);
        unlinkat (dfd, de->d_name, AT_REMOVEDIR);
    }
    closedir (d);
}

void userdir_remove (const char *path)
{
    int fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd >= 0)
        userdir_empty (fd);
    if (rmdir (path) < 0 && errno != ENOENT)
        log_warn ("remove %s: %s", path, strerror (errno));
}

int userdir_make (const char *path, uid_t uid, gid_t gid, const char *what,
                  arbor_error_t *err)
{
    userdir_remove (path); /* a leftover of a stepd that died */
    if (mkdir (path, 0700) < 0
        || (geteuid () == 0 && chown (path, uid, gid) < 0)) {
        int e = errno;
        errprintf (err, "%s %s: %s", what, path, strerror (e));
        errno = e;
        return -1;
    }
    return 0;
}
