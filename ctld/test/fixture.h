/* fixture.h - a controller context for ctld unit tests: built from a
 * configuration text, nodes registered, no clients, and an outbox that
 * records every message the controller would send to a noded. */
#ifndef ARBOR_CTLD_TEST_FIXTURE_H
#define ARBOR_CTLD_TEST_FIXTURE_H

#include <stddef.h>
#include <sys/types.h>

#include "conn.h"
#include "ctld.h"
#include "error.h"
#include "proto.h"

struct job;

struct sent {
    size_t node; /* index into ctx->nodes */
    int type;
    union msg_any msg; /* a copy */
};

struct outbox {
    struct sent *v;
    size_t n, cap;
};

/* NULL on failure. Every node registered with its configured size. The
 * outbox must outlive the context. */
struct ctld *fixture_ctld (const char *conf_text, struct outbox *out);
void fixture_free (struct ctld *ctx);

void outbox_clear (struct outbox *o);
/* Messages of 'type' recorded (any type when 0). */
size_t outbox_count (const struct outbox *o, int type);
/* The i-th recorded message of 'type', or NULL. */
const struct sent *outbox_nth (const struct outbox *o, int type, size_t i);

/* job_create + sched_submit as 'uid'; NULL with errno and err. A zero
 * cpus_per_task is sent as 1, as the commands do (the controller refuses
 * 0). */
struct job *fixture_submit (struct ctld *ctx, const struct msg_job_alloc *r,
                            uid_t uid, arbor_error_t *err);
/* EPILOG_COMPLETE from every node of j; returns how many were accepted. */
size_t fixture_epilogs (struct ctld *ctx, struct job *j);

/* A conn of the controller over a socketpair (SO_PEERCRED, no munge);
 * *peer is the client's end. NULL with errno. */
struct conn *fixture_conn (struct ctld *ctx, int *peer);
/* Hand request 'msg' of 'type' from 'uid' to serve_request on conn c,
 * then run the scheduling pass it requested (sched_flush), as the loop
 * would before it sleeps. */
void fixture_request (struct ctld *ctx, struct conn *c, int type,
                      const void *msg, uid_t uid);
/* Run the loop and read the answer on 'peer' (up to ~10 s): its type,
 * its decoded body unless msg is NULL (clear it with proto_clear), its
 * body length. -1 when none came. */
int fixture_answer (struct ctld *ctx, int peer, int *type, union msg_any *msg,
                    size_t *body_len);

#endif
