/* dial.c - non-blocking TCP connect on the loop.
 *
 * The connect is started with net_connect_tcp_start(); an ev_io watcher
 * waits for writability and net_connect_finish() tells success from
 * failure (SO_ERROR). The callback owns the fd on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "dial.h"
#include "net.h"

struct dial {
    struct ev_loop *loop;
    ev_io w;
    dial_f cb;
    void *arg;
};

static void dial_ready_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct dial *d = w->data;
    int fd = w->fd;
    int errnum = 0;

    ev_io_stop (loop, w);
    if (net_connect_finish (fd) < 0) {
        errnum = errno ? errno : ECONNREFUSED;
        close (fd);
        fd = -1;
    }
    d->cb (fd, errnum, d->arg);
    free (d);
}

struct dial *dial_start (struct ev_loop *loop, const char *host,
                         uint16_t port, dial_f cb, void *arg)
{
    struct dial *d;
    int fd;

    if (!(d = calloc (1, sizeof (*d))))
        return NULL;
    if ((fd = net_connect_tcp_start (host, port, NULL)) < 0) {
        int saved = errno;
        free (d);
        errno = saved;
        return NULL;
    }
    d->loop = loop;
    d->cb = cb;
    d->arg = arg;
    ev_io_init (&d->w, dial_ready_cb, fd, EV_WRITE);
    d->w.data = d;
    ev_io_start (loop, &d->w);
    return d;
}

void dial_cancel (struct dial *d)
{
    int saved = errno;

    if (d) {
        ev_io_stop (d->loop, &d->w);
        close (d->w.fd);
        free (d);
    }
    errno = saved;
}
