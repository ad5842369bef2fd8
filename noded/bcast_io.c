/* bcast_io.c - file work as the job's user, in a child, off the loop.
 *
 * fork, become the user, work, _exit; the answer travels in a
 * MAP_SHARED anonymous mapping, and ev_child tells the loop when it is
 * there (libev reaps every child, so a watcher is the only way to learn
 * of ours).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bcast_io.h"

struct bcast_io {
    struct ev_loop *loop;
    ev_child child_w;
    pid_t pid;
    struct bcast_io_result *res; /* shared with the child */
    size_t map_len;
    bcast_io_done_f done;
    void *arg;
};

int bcast_io_become (const struct bcast_ident *id, arbor_error_t *err)
{
    gid_t groups[64];
    size_t n = id->ngids < 64 ? id->ngids : 64;
    uid_t r, e, s;

    if (geteuid () == id->uid && getegid () == id->gid)
        return 0; /* an unprivileged noded acting as itself */
    if (geteuid () != 0) {
        errno = EPERM;
        return errprintf (err,
                          "this node runs as uid %u and cannot act "
                          "as uid %u",
                          (unsigned)geteuid (), (unsigned)id->uid);
    }
    for (size_t i = 0; i < n; i++)
        groups[i] = (gid_t)id->gids[i];
    if (n == 0) {
        groups[0] = id->gid;
        n = 1;
    }
    if (setgroups (n, groups) < 0 || setresgid (id->gid, id->gid, id->gid) < 0
        || setresuid (id->uid, id->uid, id->uid) < 0)
        return errprintf (err, "cannot become uid %u: %s", (unsigned)id->uid,
                          strerror (errno));
    if (getresuid (&r, &e, &s) < 0 || r != id->uid || e != id->uid
        || s != id->uid || setresuid (0, 0, 0) == 0) {
        errno = EPERM;
        return errprintf (err, "could not drop privileges to uid %u",
                          (unsigned)id->uid);
    }
    return 0;
}

static void bcast_io_child (const struct bcast_ident *id, bcast_io_work_f work,
                            void *work_arg, struct bcast_io_result *r)
{
    sigset_t none;

    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    umask (022);
    if (bcast_io_become (id, &r->err) < 0) {
        r->errnum = errno ? errno : EPERM;
        _exit (1);
    }
    work (work_arg, r);
    _exit (r->errnum ? 1 : 0);
}

static void bcast_io_child_cb (struct ev_loop *loop, ev_child *w, int revents)
{
    struct bcast_io *io = w->data;

    ev_child_stop (loop, w);
    io->pid = 0;
    if (WIFSIGNALED (w->rstatus) && io->res->errnum == 0) {
        io->res->errnum = EIO;
        errprintf (&io->res->err, "the file work died of signal %d",
                   WTERMSIG (w->rstatus));
    }
    io->done (io->res, io->arg); /* may destroy io */
}

struct bcast_io *bcast_io_start (struct ev_loop *loop,
                                 const struct bcast_ident *id, size_t data_max,
                                 bcast_io_work_f work, void *work_arg,
                                 bcast_io_done_f done, void *arg,
                                 arbor_error_t *err)
{
    struct bcast_io *io = calloc (1, sizeof (*io));

    if (!io) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        return NULL;
    }
    io->map_len = sizeof (*io->res) + data_max;
    io->res = mmap (NULL, io->map_len, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (io->res == MAP_FAILED) {
        errprintf (err, "cannot map %zu bytes: %s", io->map_len,
                   strerror (errno));
        free (io);
        return NULL;
    }
    io->res->errnum = ECHILD; /* until the child says otherwise */
    errprintf (&io->res->err, "the file work ended without an answer");
    if ((io->pid = fork ()) < 0) {
        int e = errno;
        errprintf (err, "fork: %s", strerror (e));
        munmap (io->res, io->map_len);
        free (io);
        errno = e;
        return NULL;
    }
    if (io->pid == 0) {
        io->res->errnum = 0;
        io->res->err.text[0] = '\0';
        bcast_io_child (id, work, work_arg, io->res);
    }
    io->loop = loop;
    io->done = done;
    io->arg = arg;
    ev_child_init (&io->child_w, bcast_io_child_cb, io->pid, 0);
    io->child_w.data = io;
    ev_child_start (loop, &io->child_w);
    return io;
}

void bcast_io_destroy (struct bcast_io *io)
{
    int saved = errno;

    if (io) {
        if (io->pid > 0) {
            kill (io->pid, SIGKILL); /* libev reaps it */
            ev_child_stop (io->loop, &io->child_w);
        }
        munmap (io->res, io->map_len);
        free (io);
    }
    errno = saved;
}
