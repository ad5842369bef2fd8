/* noded.h - the arbor-noded context, shared by the files of the daemon.
 *
 * One struct noded holds everything the daemon owns (STYLE rule 7: no
 * mutable globals): the loaded configuration, this node's identity, the
 * munge handle, the listening socket, the registration state, the revoked
 * step cache, the table of stepds it started, the launches in flight and
 * the job terminations (term.c).
 * Each file of noded/ is one module working on that context; this header
 * also declares the entry points of noded.c (assembly) and serve.c (the
 * request side).
 */
#ifndef ARBOR_NODED_H
#define ARBOR_NODED_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "conn.h"
#include "error.h"

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
    uid_t arbor_uid; /* ArborUser: the ctld's uid, minter of CRED_KEY */
    uid_t noded_uid; /* NodedUser: what every noded runs as */
    bool emulate;    /* report configured CPUs/memory */

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

/* noded.c: assembly. noded_create loads CONF_PATH (NULL: the default),
 * becomes NODE, opens the log (NodedDebugLevel + verbose), creates the
 * spool, connects munge, listens, serves requests and re-finds running
 * stepds; EMULATE reports the configured CPUs and RealMemory. Returns the
 * daemon, or NULL with errno and err (nothing left behind but the log).
 * noded_run registers with the controller and runs the loop until
 * SIGTERM/SIGINT: 0, or -1 with errno if registration cannot start.
 * noded_destroy frees everything, stepds keep running (NULL accepted,
 * errno kept); the log stays open for the caller to close. */
struct noded *noded_create (const char *conf_path, const char *node,
                            int verbose, bool emulate, arbor_error_t *err);
int noded_run (struct noded *nd);
void noded_destroy (struct noded *nd);

/* Request options for the controller, and for another noded: the kept
 * connection to it, keyed for its uid, with 'timeout' seconds. */
struct request_opts;
void noded_ctld_opts (const struct noded *nd, double timeout,
                      struct request_opts *opts);
void noded_peer_opts (const struct noded *nd, double timeout,
                      struct request_opts *opts);

/* serve.c: accept connections on nd->listen_fd and dispatch their requests.
 * serve_start() returns 0, or -1 with errno. serve_stop() closes
 * the listener and every accepted connection. */
int serve_start (struct noded *nd);
void serve_stop (struct noded *nd);
/* The credential key arrived: the launchers' sessions waiting for it are
 * opened (or refused) now. */
void serve_key_arrived (struct noded *nd);

/* local.c: the local socket <spool>/noded.sock, where local programs
 * (pam_arbor_adopt) ask which of a user's jobs run here. local_start
 * returns 0, or -1 with err; local_stop removes it (NULL-safe). */
int local_start (struct noded *nd, arbor_error_t *err);
void local_stop (struct noded *nd);

#endif
