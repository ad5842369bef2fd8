/* client_pair.h - a client whose controller is the test: the client's
 * channel and the controller's end of one socketpair (cmocka setup and
 * teardown). For tests of cli/client.c's calls.
 */
#ifndef ARBOR_CLIENT_PAIR_H
#define ARBOR_CLIENT_PAIR_H

#include <stdlib.h>
#include <sys/socket.h>

#include "client.h"

struct pair {
    struct client cl;    /* its channel on sv[0] */
    struct rpc_chan srv; /* the controller's end */
};

static int pair_setup (void **state)
{
    struct pair *p = calloc (1, sizeof (*p));
    int sv[2];

    if (!p || socketpair (AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return -1;
    rpc_chan_unix (&p->cl.ch, sv[0]);
    rpc_chan_unix (&p->srv, sv[1]);
    *state = p;
    return 0;
}

static int pair_teardown (void **state)
{
    struct pair *p = *state;

    rpc_close (&p->cl.ch);
    if (p->srv.fd >= 0)
        rpc_close (&p->srv);
    free (p);
    return 0;
}

#endif
