/* fixture.h - a controller context for ctld unit tests: built from a
 * configuration text, nodes registered, no clients, and an outbox that
 * records every message the controller would send to a noded. */
#ifndef ARBOR_CTLD_TEST_FIXTURE_H
#define ARBOR_CTLD_TEST_FIXTURE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

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

/* The cluster most tests run on: n[1-4], 4 CPUs and 1000 MB each, all in
 * partition debug (the default, MaxTime=60). More lines may follow. */
#define FIXTURE_CONF_N4                                               \
    "ClusterName=t\n"                                                 \
    "NodedPort=1\n"                                                   \
    "NodeName=n[1-4] NodeAddr=127.0.0.[1-4] CPUs=4 RealMemory=1000\n" \
    "PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=60\n"

/* NULL on failure. Every node registered with its configured size. The
 * outbox must outlive the context. */
struct ctld *fixture_ctld (const char *conf_text, struct outbox *out);
void fixture_free (struct ctld *ctx);

/* A test's starting context, given to cmocka as the test's initial state
 * (FIXTURE_TEST). */
struct fixture_spec {
    const char *conf_text;
    struct outbox *out; /* where the context's messages go */
    uid_t priv_uid;     /* ArborUser (0: root only) */
    uid_t noded_uid;    /* the nodeds' uid; 0: as fixture_ctld leaves it */
    time_t sim_now;     /* the controller's clock; 0: real time */
};

/* cmocka setup: builds the context that the struct fixture_spec in
 * *state describes and puts it in *state. 0, or -1. */
int fixture_setup (void **state);
/* cmocka teardown: frees the context in *state and clears the outbox of
 * the spec it was built from. 0. */
int fixture_teardown (void **state);
/* A cmocka test entry run on a fresh context built from *spec. */
#define FIXTURE_TEST(f, spec)                                   \
    cmocka_unit_test_prestate_setup_teardown (f, fixture_setup, \
                                              fixture_teardown, (spec))

void outbox_clear (struct outbox *o);
/* Messages of 'type' recorded (any type when 0). */
size_t outbox_count (const struct outbox *o, int type);
/* The i-th recorded message of 'type', or NULL. */
const struct sent *outbox_nth (const struct outbox *o, int type, size_t i);

/* job_create + job_submit as 'uid'; NULL with errno and err. A zero
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
