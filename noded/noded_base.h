/* noded_base.h - the arbor-noded context, the base every file of the
 * daemon stands on.
 *
 * One struct noded holds everything the daemon owns (STYLE rule 7: no
 * mutable globals): the loaded configuration, this node's identity, the
 * munge handle, the listening socket, the registration state, the revoked
 * step cache, the table of stepds it started, the launches in flight and
 * the job terminations (term.c).
 * Each file of noded/ is one module working on that context, declared in
 * its own header; noded.c (noded.h) assembles them. The helpers every
 * module needs (the request options for the controller and for other
 * nodeds) live here, in noded_base.c, so that no module calls up into
 * noded.c.
 */
#ifndef ARBOR_NODED_BASE_H
#define ARBOR_NODED_BASE_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "conn.h"
#include "error.h"
#include "gresnode.h"

struct auth_pool;
struct peers;
struct reg;
struct revoke;
struct stepd_table;
struct spawner;
struct launch;
struct term;
struct listener;
struct prolog_run;
struct prolog_req;
struct bcast_req;

struct noded {
    struct ev_loop *loop;
    struct conf *conf;
    const char *name;             /* this node, as in the conf */
    const struct conf_node *self; /* borrowed from conf */
    char *spool;                  /* conf_expand (SpoolDir, name) */
    char *stepd_path;             /* arbor-stepd to exec */
    struct auth_pool *pool;       /* munge calls, off the loop */
    struct peers *peers;          /* kept connections: ctld, other nodeds */
    uid_t arbor_uid;      /* ArborUser: the ctld's uid, minter of CRED_KEY */
    uid_t noded_uid;      /* NodedUser: what every noded runs as */
    bool emulate;         /* report configured CPUs/memory */
    struct gresnode gres; /* its generic resources (gres/gres_load.h),
                             read at start, registered with the ctld */

    int listen_fd;                /* until serve_start() takes it */
    struct listener *listener;    /* serve.c: accepts connections */
    struct conn **ticket_waiters; /* serve.c: launchers' sessions whose
                                     ticket waits for the credential key */
    size_t nticket_waiters;
    struct listener *local; /* local.c: <spool>/noded.sock */
    char *local_path;

    struct reg *reg;
    struct revoke *revoked;
    struct stepd_table *stepds;
    struct spawner *spawner;        /* forks stepds (stepd_spawner.c) */
    struct launch *launches;        /* in flight, linked by launch->next */
    struct cred_key *cred_key;      /* credkey_held.c: NULL until sent */
    struct auth_job *cred_key_job;  /* its munge decode */
    struct term *terms;             /* job terminations, running and done */
    struct prolog_run *prologs;     /* prolog.c: per job and run */
    struct prolog_req *prolog_reqs; /* prolog.c: JOB_PROLOGs waiting */
    struct stepd_ask *asks;         /* stepd_ask.c: users' requests
                                       relayed to stepds */
    struct bcast_req *bcasts;       /* bcast_req.c: sbcast/sgather
                                       requests in flight */
    double term_resend;             /* seconds between EPILOG_COMPLETE
                                       attempts; 0: TERM_RESEND (tests
                                       shorten it) */
};

/* Request options for the controller, and for another noded: the kept
 * connection to it, keyed for its uid, with 'timeout' seconds. */
struct request_opts;
void noded_ctld_opts (const struct noded *nd, double timeout,
                      struct request_opts *opts);
void noded_peer_opts (const struct noded *nd, double timeout,
                      struct request_opts *opts);

#endif
