/* userdir.c - the step's directories in the spool area; see userdir.h.
 *
 * Everything here is done relative to a descriptor of the parent (the
 * spool), opened without following a link, and checked to be writable by
 * its owner (root) alone: a user who could write the parent could swap
 * the step's directory for a link between our check and our use.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "userdir.h"

/* Deeper than this, a tree is left as it is (and logged): the user made
 * it, and each level holds a descriptor. */
#define USERDIR_MAX_DEPTH 64

/* Remove what is in the directory 'dfd' (taken: closed here), never
 * following a link the job's user may have put there. */
static void userdir_empty (int dfd, int depth)
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
        if (depth >= USERDIR_MAX_DEPTH) {
            log_warn ("a directory tree deeper than %d levels is left in the "
                      "spool",
                      USERDIR_MAX_DEPTH);
            continue;
        }
        sub = openat (dfd, de->d_name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            userdir_empty (sub, depth + 1);
        unlinkat (dfd, de->d_name, AT_REMOVEDIR);
    }
    closedir (d);
}

/* Is the directory open as 'fd' safe to work in: owned by root or us,
 * writable by its owner alone? */
static int userdir_fd_unsafe (int fd, const char *dir, arbor_error_t *err)
{
    struct stat st;

    if (fstat (fd, &st) < 0)
        return errprintf (err, "%s: %s", dir, strerror (errno));
    if (st.st_uid != 0 && st.st_uid != geteuid ()) {
        errprintf (err, "%s is owned by uid %u, not by root", dir,
                   (unsigned)st.st_uid);
        return 1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        errprintf (err, "%s is writable by others (mode %04o)", dir,
                   (unsigned)(st.st_mode & 07777));
        return 1;
    }
    return 0;
}

/* Open the parent of 'path' (not through a link) and point *name at the
 * last component. The parent must be safe (userdir_fd_unsafe). */
static int userdir_parent (const char *path, const char **name,
                           arbor_error_t *err)
{
    char dir[PATH_MAX];
    const char *slash = strrchr (path, '/');
    int fd, unsafe;

    if (!slash || !slash[1] || (size_t)(slash - path) >= sizeof (dir)) {
        errno = EINVAL;
        return errprintf (err, "%s: not an absolute path to a directory", path);
    }
    snprintf (dir, sizeof (dir), "%.*s", (int)(slash - path), path);
    if (!dir[0])
        snprintf (dir, sizeof (dir), "/");
    *name = slash + 1;
    fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errprintf (err, "%s: %s", dir, strerror (errno));
    if ((unsafe = userdir_fd_unsafe (fd, dir, err)) != 0) {
        close (fd);
        errno = unsafe > 0 ? EPERM : errno;
        return -1;
    }
    return fd;
}

int userdir_parent_unsafe (const char *dir, arbor_error_t *err)
{
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc;

    if (fd < 0)
        return errprintf (err, "%s: %s", dir, strerror (errno));
    rc = userdir_fd_unsafe (fd, dir, err);
    close (fd);
    return rc;
}

/* Remove 'name' in the directory 'pfd', a link or a tree. */
static void userdir_remove_at (int pfd, const char *name, const char *path)
{
    int fd =
        openat (pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd >= 0)
        userdir_empty (fd, 0);
    else if (errno == ELOOP || errno == ENOTDIR) {
        if (unlinkat (pfd, name, 0) < 0 && errno != ENOENT)
            log_warn ("remove %s: %s", path, strerror (errno));
        return;
    }
    if (unlinkat (pfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        log_warn ("remove %s: %s", path, strerror (errno));
}

void userdir_remove (const char *path)
{
    arbor_error_t err = { "" };
    const char *name;
    int pfd = userdir_parent (path, &name, &err);

    if (pfd < 0) {
        if (errno != ENOENT)
            log_err ("not removing %s: %s", path, err.text);
        return;
    }
    userdir_remove_at (pfd, name, path);
    close (pfd);
}

/* Make 'path' anew (a leftover of a stepd that died goes first), mode
 * 'mode', owned by uid/gid when we are root and uid is not -1. */
static int userdir_create (const char *path, uid_t uid, gid_t gid, mode_t mode,
                           const char *what, arbor_error_t *err)
{
    arbor_error_t perr = { "" };
    const char *name;
    int pfd = userdir_parent (path, &name, &perr), e;

    if (pfd < 0) {
        e = errno;
        errprintf (err, "%s %s: %s", what, path, perr.text);
        errno = e;
        return -1;
    }
    userdir_remove_at (pfd, name, path);
    if (mkdirat (pfd, name, 0700) < 0 || fchmodat (pfd, name, mode, 0) < 0
        || (geteuid () == 0 && uid != (uid_t)-1
            && fchownat (pfd, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)) {
        e = errno;
        close (pfd);
        errprintf (err, "%s %s: %s", what, path, strerror (e));
        errno = e;
        return -1;
    }
    close (pfd);
    return 0;
}

int userdir_make (const char *path, uid_t uid, gid_t gid, const char *what,
                  arbor_error_t *err)
{
    return userdir_create (path, uid, gid, 0700, what, err);
}

int rootdir_make (const char *path, mode_t mode, const char *what,
                  arbor_error_t *err)
{
    return userdir_create (path, (uid_t)-1, (gid_t)-1, mode, what, err);
}

/* Take back every directory under 'dfd' (taken: closed here): root's,
 * 0755. Files are left as they are. */
static void rootdir_take (int dfd, int depth)
{
    DIR *d = fdopendir (dfd);
    struct dirent *de;

    if (!d) {
        close (dfd);
        return;
    }
    if (fchown (dfd, 0, 0) < 0 || fchmod (dfd, 0755) < 0)
        log_warn ("take back a directory of the PMIx server: %s",
                  strerror (errno));
    while ((de = readdir (d))) {
        int sub;
        if (!strcmp (de->d_name, ".") || !strcmp (de->d_name, "..")
            || depth >= USERDIR_MAX_DEPTH)
            continue;
        sub = openat (dfd, de->d_name,
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0)
            rootdir_take (sub, depth + 1);
    }
    closedir (d);
}

int rootdir_seal (const char *path, mode_t mode, arbor_error_t *err)
{
    arbor_error_t perr = { "" };
    const char *name;
    int pfd = userdir_parent (path, &name, &perr), fd, e;

    if (pfd < 0)
        return errprintf (err, "%s: %s", path, perr.text);
    fd = openat (pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close (pfd);
    if (fd < 0)
        return errprintf (err, "%s: %s", path, strerror (errno));
    if (geteuid () == 0) {
        int top = dup (fd);
        if (top >= 0)
            rootdir_take (top, 0);
    }
    if (fchmod (fd, mode) < 0) {
        e = errno;
        close (fd);
        errno = e;
        return errprintf (err, "%s: %s", path, strerror (e));
    }
    close (fd);
    return 0;
}
