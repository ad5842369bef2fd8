/* bcast_file.h - the file work of sbcast and sgather on one node.
 *
 * These run in a child of the noded that has already become the job's
 * user (bcast_io.h), so the kernel checks every path as it would for the
 * user's own cp: nothing here needs to second-guess permissions. What it
 * does guard against is the user's own links making a mess of the
 * transfer: the temporary file is created O_EXCL and reopened
 * O_NOFOLLOW, and must stay a regular file.
 *
 * A transfer writes DEST's directory/.BASENAME.bcast.NODE.XFER (XFER: the
 * transfer's id in hex) block by block and renames it to DEST on commit.
 * The node name is in it because emulated nodes (arbor local) share one
 * file system: each still writes its own copy, and their renames of
 * identical contents replace one another harmlessly. The refusal to
 * replace an existing DEST without force is made when the first block
 * arrives, before any node of the transfer has renamed anything.
 *
 * Every function returns 0, or -1 with errno and err (a sentence naming
 * the path and the system's reason), and leaves no file behind on
 * failure but the temporary one, which BCAST_OP_ABORT removes.
 */
#ifndef ARBOR_NODED_BCAST_FILE_H
#define ARBOR_NODED_BCAST_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum bcast_op {
    BCAST_OP_WRITE = 0,
    BCAST_OP_COMMIT = 1,
    BCAST_OP_ABORT = 2,
};

/* What one BCAST_BLOCK asks of a node (borrowed pointers). */
struct bcast_file_req {
    const char *dest; /* absolute */
    const char *node; /* this node's name, for the temporary name */
    uint64_t xfer;
    enum bcast_op op;
    uint64_t offset;
    const void *data;
    size_t len;
    uint64_t file_size; /* COMMIT: what the file must hold */
    uint32_t mode;
    bool force, preserve, make_dir;
    int64_t atime, mtime;
};

/* The temporary name of req's transfer into buf. -1 with errno
 * ENAMETOOLONG (or EINVAL: dest not absolute, or ending in '/'). */
int bcast_file_tmpname (const struct bcast_file_req *req, char *buf,
                        size_t len);

/* Do req->op. */
int bcast_file_do (const struct bcast_file_req *req, arbor_error_t *err);

/* What sgather reads of a file on one node. */
struct gather_file {
    uint64_t size;
    uint32_t mode;
    int64_t atime, mtime;
    size_t len; /* bytes put in the caller's buffer */
    bool eof;   /* they reach the end of the file */
};

/* Read at most 'max' bytes of regular file 'path' at 'offset' into buf. */
int gather_file_read (const char *path, uint64_t offset, void *buf, size_t max,
                      struct gather_file *out, arbor_error_t *err);

/* Remove 'path' (sgather without --keep). */
int gather_file_remove (const char *path, arbor_error_t *err);

#endif
