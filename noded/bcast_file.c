/* bcast_file.c - the file work of sbcast and sgather on one node.
 *
 * Runs as the job's user (bcast_io.c forks and drops privileges first);
 * see bcast_file.h for the temporary file and the no-replace rule.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bcast_file.h"

int bcast_file_tmpname (const struct bcast_file_req *req, char *buf, size_t len)
{
    const char *slash = strrchr (req->dest, '/');
    int n;

    if (req->dest[0] != '/' || !slash || !slash[1]) {
        errno = EINVAL;
        return -1;
    }
    n = snprintf (buf, len, "%.*s.%s.bcast.%s.%016" PRIx64,
                  (int)(slash + 1 - req->dest), req->dest, slash + 1, req->node,
                  req->xfer);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static int fail (arbor_error_t *err, const char *what, const char *path)
{
    int e = errno;

    errprintf (err, "%s %s: %s", what, path, strerror (e));
    errno = e;
    return -1;
}

/* dest's directory, for --send-libs' DEST_libs/ (one level: its parent
 * must exist, as DEST's own directory must). */
static int make_parent (const char *dest, arbor_error_t *err)
{
    char *copy = strdup (dest);
    char *dir;
    int rc = 0;

    if (!copy) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    dir = dirname (copy);
    if (mkdir (dir, 0755) < 0 && errno != EEXIST)
        rc = fail (err, "cannot create directory", dir);
    free (copy);
    return rc;
}

/* The temporary file, as a regular file we may write: created on the
 * first block, reopened without following a link on the others. */
static int open_tmp (const struct bcast_file_req *req, const char *tmp,
                     arbor_error_t *err)
{
    struct stat st;
    int fd;

    if (req->offset == 0) {
        if (req->make_dir && make_parent (req->dest, err) < 0)
            return -1;
        if (!req->force && lstat (req->dest, &st) == 0) {
            errno = EEXIST;
            return errprintf (err, "%s exists (sbcast -f/--force replaces it)",
                              req->dest);
        }
        (void)unlink (tmp); /* ours, left by an earlier try of this id */
        fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   0600);
    } else
        fd = open (tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return fail (err, "cannot open", tmp);
    if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
        close (fd);
        errno = EINVAL;
        return errprintf (err, "%s is not a regular file", tmp);
    }
    return fd;
}

static int write_block (const struct bcast_file_req *req, const char *tmp,
                        arbor_error_t *err)
{
    const char *p = req->data;
    size_t left = req->len;
    off_t off = (off_t)req->offset;
    int fd = open_tmp (req, tmp, err);

    if (fd < 0)
        return -1;
    while (left > 0) {
        ssize_t n = pwrite (fd, p, left, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            fail (err, "cannot write", tmp);
            close (fd);
            return -1;
        }
        p += n;
        left -= (size_t)n;
        off += n;
    }
    if (close (fd) < 0)
        return fail (err, "cannot write", tmp);
    return 0;
}

/* Size, mode and times, then the rename that makes it DEST. */
static int commit (const struct bcast_file_req *req, const char *tmp,
                   arbor_error_t *err)
{
    struct timespec ts[2] = { { .tv_sec = req->atime },
                              { .tv_sec = req->mtime } };
    struct stat st;
    int fd = open (tmp, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0)
        return fail (err, "cannot open", tmp);
    if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)
        || (uint64_t)st.st_size != req->file_size) {
        close (fd);
        errno = EIO;
        return errprintf (err, "%s holds %lld bytes, not %llu", tmp,
                          (long long)st.st_size,
                          (unsigned long long)req->file_size);
    }
    /* No set-id bits: a broadcast never grants more than a copy would. */
    if (fchmod (fd, req->mode & 0777) < 0
        || (req->preserve && futimens (fd, ts) < 0)) {
        fail (err, "cannot set the mode or times of", tmp);
        close (fd);
        return -1;
    }
    close (fd);
    if (rename (tmp, req->dest) < 0)
        return fail (err, "cannot rename to", req->dest);
    return 0;
}

int bcast_file_do (const struct bcast_file_req *req, arbor_error_t *err)
{
    char tmp[4096];

    if (bcast_file_tmpname (req, tmp, sizeof (tmp)) < 0)
        return errprintf (err, "bad destination %s: %s", req->dest,
                          strerror (errno));
    switch (req->op) {
    case BCAST_OP_WRITE: return write_block (req, tmp, err);
    case BCAST_OP_COMMIT: return commit (req, tmp, err);
    case BCAST_OP_ABORT:
        if (unlink (tmp) < 0 && errno != ENOENT)
            return fail (err, "cannot remove", tmp);
        return 0;
    }
    errno = EINVAL;
    return errprintf (err, "unknown operation %d", (int)req->op);
}

int gather_file_read (const char *path, uint64_t offset, void *buf, size_t max,
                      struct gather_file *out, arbor_error_t *err)
{
    struct stat st;
    ssize_t n = 0;
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return fail (err, "cannot open", path);
    if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
        close (fd);
        errno = EINVAL;
        return errprintf (err, "%s is not a regular file", path);
    }
    while (offset < (uint64_t)st.st_size && max > 0
           && (n = pread (fd, buf, max, (off_t)offset)) < 0 && errno == EINTR)
        ;
    if (n < 0) {
        fail (err, "cannot read", path);
        close (fd);
        return -1;
    }
    close (fd);
    out->size = (uint64_t)st.st_size;
    out->mode = st.st_mode & 07777;
    out->atime = st.st_atim.tv_sec;
    out->mtime = st.st_mtim.tv_sec;
    out->len = (size_t)n;
    out->eof = offset + (uint64_t)n >= (uint64_t)st.st_size;
    return 0;
}

int gather_file_remove (const char *path, arbor_error_t *err)
{
    if (unlink (path) < 0)
        return fail (err, "cannot remove", path);
    return 0;
}
