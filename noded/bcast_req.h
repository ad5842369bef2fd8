/* bcast_req.h - what BCAST_BLOCK and GATHER_READ share on a node (private
 * to bcast_serve.c and bcast_gather.c).
 *
 * One record per request in flight, on nd->bcasts: the connection to
 * answer (NULL once it closed), the verified claims, and the pending
 * work. bcast_req_open() runs the verification and, where this node
 * cannot vouch for the credential, the controller's BCAST_LIVE, then
 * calls the kind's 'run' (or answers the refusal itself).
 */
#ifndef ARBOR_NODED_BCAST_REQ_H
#define ARBOR_NODED_BCAST_REQ_H

#include <ev.h>
#include <stdbool.h>
#include <sys/types.h>

#include "bcast_io.h"
#include "conn.h"
#include "proto.h"

struct fanout;
struct noded;

struct bcast_req {
    struct noded *nd;
    struct bcast_req *next;
    struct conn *parent; /* NULL once it closed */
    uint32_t matchtag;
    uid_t sender;
    const char *cred; /* borrowed from the message */
    uint32_t job_id;
    struct msg_cred_claims claims;
    bool have_claims;
    void (*run) (struct bcast_req *r); /* after the checks */
    struct request *live;              /* BCAST_LIVE to the controller */
    struct bcast_io *io;
    /* BCAST_BLOCK */
    struct msg_bcast_block block; /* owned */
    struct fanout *fan;           /* fanout.h */
    ev_timer deadline_w;
    bool io_done, starting, answered;
    int errnum;
    char *text;
    char **failed_nodes, **failed_errors;
    uint32_t nfailed;
    /* GATHER_READ */
    struct msg_gather_read read; /* owned */
};

/* A record for a request on c (linked on nd->bcasts), or NULL (ENOMEM;
 * answered). */
struct bcast_req *bcast_req_create (struct noded *nd, struct conn *c,
                                    const struct frame *f);
/* Check r->cred for r->job_id and go on to r->run, or refuse. */
void bcast_req_open (struct bcast_req *r);
/* Answer an RC error (when the parent is still there) and free r. */
void bcast_req_refuse (struct bcast_req *r, int errnum, const char *why);
/* Unlink and free r and what it holds; no answer. */
void bcast_req_free (struct bcast_req *r);
/* The job's user, from the claims. */
void bcast_req_ident (const struct bcast_req *r, struct bcast_ident *id);

#endif
