/* serve.h - the request side of arbor-noded (serve.c): the listening
 * socket and the connections accepted on it. */
#ifndef ARBOR_NODED_SERVE_H
#define ARBOR_NODED_SERVE_H

struct noded;

/* serve.c: accept connections on nd->listen_fd and dispatch their requests.
 * serve_start() returns 0, or -1 with errno. serve_stop() closes
 * the listener and every accepted connection. */
int serve_start (struct noded *nd);
void serve_stop (struct noded *nd);
/* The credential key arrived: the launchers' sessions waiting for it are
 * opened (or refused) now. */
void serve_key_arrived (struct noded *nd);

#endif
