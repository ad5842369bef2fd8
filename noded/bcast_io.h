/* bcast_io.h - file work as the job's user, in a child, off the loop.
 *
 * The noded runs as root; what sbcast writes and sgather reads must be
 * what the job's user could write and read, and nothing else. So each
 * piece of file work (bcast_file.h) runs in a forked child that first
 * becomes the user (setgroups, setresgid, setresuid, checked; never
 * root by accident), and the noded waits for it on its loop (ev_child),
 * so that a slow disk holds no other request. The child puts its answer
 * in a shared anonymous mapping made before the fork, big enough for
 * the answer's text and 'data_max' bytes of data (sgather's reads), and
 * exits; the callback then gets it.
 *
 * A noded that is not root can only act as its own uid (a test's
 * unprivileged cluster): another user's work is refused (EPERM).
 */
#ifndef ARBOR_NODED_BCAST_IO_H
#define ARBOR_NODED_BCAST_IO_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct bcast_ident {
    uid_t uid;
    gid_t gid;
    const uint32_t *gids; /* supplementary groups, primary first */
    size_t ngids;
};

/* What the child answers. */
struct bcast_io_result {
    int errnum;        /* 0: done */
    arbor_error_t err; /* why, when errnum != 0 */
    size_t len;        /* bytes in data */
    unsigned char aux[64];
    unsigned char data[]; /* data_max bytes */
};

/* Runs in the child, as the user: fills r (errnum 0 on success). */
typedef void (*bcast_io_work_f) (void *arg, struct bcast_io_result *r);
/* Runs on the loop when the child is done; r is borrowed for the call. */
typedef void (*bcast_io_done_f) (const struct bcast_io_result *r, void *arg);

struct bcast_io;

/* Fork the child for 'work' (whose arg, and what it points to, the child
 * sees as they are now). NULL with errno and err when nothing was
 * started: done is then never called. */
struct bcast_io *bcast_io_start (struct ev_loop *loop,
                                 const struct bcast_ident *id, size_t data_max,
                                 bcast_io_work_f work, void *work_arg,
                                 bcast_io_done_f done, void *arg,
                                 arbor_error_t *err);

/* Kill the child if it runs and forget it: done is not called. NULL is
 * accepted; errno kept. */
void bcast_io_destroy (struct bcast_io *io);

/* Become id (in a child): 0, or -1 with errno and err. */
int bcast_io_become (const struct bcast_ident *id, arbor_error_t *err);

#endif
