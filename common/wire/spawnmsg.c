/* spawnmsg.c - see spawnmsg.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spawnmsg.h"

int spawnmsg_parse (const void *buf, size_t len, struct spawnmsg *m,
                    arbor_error_t *err)
{
    errno = EPROTO;
    if (len != sizeof (*m))
        return errprintf (err, "spawner message of %zu bytes, not %zu", len,
                          sizeof (*m));
    memcpy (m, buf, sizeof (*m));
    if (m->magic != SPAWNMSG_MAGIC)
        return errprintf (err, "spawner message with bad magic 0x%08x",
                          (unsigned)m->magic);
    if (m->kind < SPAWNMSG_SPAWN || m->kind > SPAWNMSG_READY)
        return errprintf (err, "spawner message of unknown kind %u",
                          (unsigned)m->kind);
    if ((m->kind == SPAWNMSG_FORKED || m->kind == SPAWNMSG_EXITED)
        && m->pid <= 1)
        return errprintf (err, "spawner message names pid %d", (int)m->pid);
    if (m->kind == SPAWNMSG_SPAWN
        && (m->value < SPAWNMSG_MPI_NONE || m->value > SPAWNMSG_MPI_PMI2))
        return errprintf (err, "spawner message names MPI type %d",
                          (int)m->value);
    return 0;
}

int spawnmsg_mpi_value (const char *type)
{
    if (type && !strcmp (type, "pmix"))
        return SPAWNMSG_MPI_PMIX;
    if (type && !strcmp (type, "pmi2"))
        return SPAWNMSG_MPI_PMI2;
    return SPAWNMSG_MPI_NONE;
}

const char *spawnmsg_mpi_name (int value)
{
    return value == SPAWNMSG_MPI_PMIX   ? "pmix"
           : value == SPAWNMSG_MPI_PMI2 ? "pmi2"
                                        : NULL;
}

int spawnmsg_send (int sock, const struct spawnmsg *m, int fd)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE (sizeof (int))];
    } ctl;
    struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof (*m) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    ssize_t n;

    if (fd >= 0) {
        memset (&ctl, 0, sizeof (ctl));
        msg.msg_control = ctl.buf;
        msg.msg_controllen = sizeof (ctl.buf);
        struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN (sizeof (int));
        memcpy (CMSG_DATA (c), &fd, sizeof (int));
    }
    do
        n = sendmsg (sock, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    if ((size_t)n != sizeof (*m)) {
        errno = EMSGSIZE;
        return -1;
    }
    return 0;
}

/* The fds of an SCM_RIGHTS message: the first in *fd, the rest closed
 * (counted in *extra). */
static void spawnmsg_take_fds (struct msghdr *msg, int *fd, int *extra)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR (msg); c; c = CMSG_NXTHDR (msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t n = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        for (size_t i = 0; i < n; i++) {
            int got;
            memcpy (&got, CMSG_DATA (c) + i * sizeof (int), sizeof (int));
            if (*fd < 0)
                *fd = got;
            else {
                close (got);
                (*extra)++;
            }
        }
    }
}

int spawnmsg_recv (int sock, struct spawnmsg *m, int *fd, arbor_error_t *err)
{
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE (4 * sizeof (int))];
    } ctl;
    char buf[sizeof (*m) + 1];
    struct iovec iov = { .iov_base = buf, .iov_len = sizeof (buf) };
    struct msghdr msg = { .msg_iov = &iov,
                          .msg_iovlen = 1,
                          .msg_control = ctl.buf,
                          .msg_controllen = sizeof (ctl.buf) };
    int extra = 0;
    ssize_t n;

    *fd = -1;
    do
        n = recvmsg (sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return (int)n;
    spawnmsg_take_fds (&msg, fd, &extra);
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
        errprintf (err, "spawner message truncated");
    else if (extra)
        errprintf (err, "spawner message with %d fds too many", extra);
    else if (spawnmsg_parse (buf, (size_t)n, m, err) == 0)
        return 1;
    if (*fd >= 0)
        close (*fd);
    *fd = -1;
    errno = EPROTO;
    return -1;
}
