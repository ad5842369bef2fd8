/* stepd_ask.c - a user's request about a step, relayed to its stepd.
 *
 * sstat (STEP_STAT, stepd_stat.c) and sattach (STEP_ATTACH,
 * stepd_attach.c) come from any user over TCP (serve.c); only the step's
 * owner, root and ArborUser are served, the owner being the one the stepd
 * was started for (our table, or the record a previous noded left in the
 * spool). The request goes on to the stepd over its unix socket (where
 * only root and ArborUser are heard) and the stepd's answer comes back
 * with the asker's matchtag. A request in flight is kept in nd->asks, so
 * that a client that hangs up first (serve.c's closed callback) cancels
 * its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "noded_base.h"
#include "request.h"
#include "stepd_ask.h"
#include "stepd_info.h"
#include "stepd_table.h"
#include "stepd_track.h"

struct stepd_ask {
    struct noded *nd;
    struct stepd_ask *next;
    struct conn *asker;
    uint32_t matchtag;
    int resp_type; /* MSG_RC, or the answer relayed as it is */
    struct request *req;
};

static void ask_unlink (struct stepd_ask *a)
{
    for (struct stepd_ask **pp = &a->nd->asks; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            return;
        }
}

static void ask_done_cb (const struct request_result *res, void *arg)
{
    struct stepd_ask *a = arg;

    ask_unlink (a);
    if (res->outcome == REQUEST_ANSWERED && a->resp_type != MSG_RC)
        conn_send (a->asker, a->resp_type, a->matchtag, FRAME_F_RESPONSE,
                   res->msg);
    else if (res->outcome == REQUEST_ANSWERED) {
        const struct msg_rc *rc = res->msg;
        conn_send_rc (a->asker, a->matchtag, 0, "%s",
                      rc && rc->text ? rc->text : "");
    } else
        conn_send_rc (a->asker, a->matchtag, res->errnum ? res->errnum : EPROTO,
                      "%s", res->err.text);
    free (a);
}

/* The uid the step runs as, or -1 when it has no stepd here. */
static long ask_owner (struct noded *nd, uint32_t job, uint32_t step)
{
    struct stepd_rec *s = stepd_table_find (nd->stepds, job, step);
    struct stepd_info si;

    if (s && s->state != STEPD_FAILED)
        return (long)s->uid;
    if (!s && stepd_exists (nd, job, step)
        && stepd_info_read (nd, job, step, &si) == 0)
        return (long)si.uid;
    return -1;
}

void stepd_ask_relay (struct noded *nd, struct conn *c, const struct frame *f,
                      uint32_t job, uint32_t step, int type, const void *msg,
                      int resp_type, double timeout)
{
    struct request_opts opts = { .timeout = timeout, .resp_type = resp_type };
    long owner = ask_owner (nd, job, step);
    struct stepd_ask *a;
    char *path;

    if (owner < 0) {
        conn_send_rc (c, f->matchtag, ESRCH, "no step %u.%u on %s", job, step,
                      nd->name);
        return;
    }
    if (f->uid != (uid_t)owner && f->uid != 0 && f->uid != nd->arbor_uid) {
        log_security ("%s of %u.%u from uid %u refused: not its owner",
                      proto_msg_name (type), job, step, (unsigned)f->uid);
        conn_send_rc (c, f->matchtag, EPERM, "Access/permission denied");
        return;
    }
    if (!(a = calloc (1, sizeof (*a)))
        || !(path = stepd_socket_path (nd, job, step))) {
        free (a);
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
        return;
    }
    *a = (struct stepd_ask){
        nd, nd->asks, c, f->matchtag, resp_type ? resp_type : MSG_RC, NULL
    };
    a->req = request_unix (nd->loop, path, type, msg, &opts, ask_done_cb, a);
    free (path);
    if (!a->req) {
        conn_send_rc (c, f->matchtag, errno, "asking stepd %u.%u: %s", job,
                      step, strerror (errno));
        free (a);
        return;
    }
    nd->asks = a;
}

void stepd_ask_conn_closed (struct noded *nd, struct conn *c)
{
    for (struct stepd_ask **pp = &nd->asks; *pp;) {
        struct stepd_ask *a = *pp;
        if (a->asker != c) {
            pp = &a->next;
            continue;
        }
        *pp = a->next;
        request_cancel (a->req);
        free (a);
    }
}

void stepd_ask_destroy_all (struct noded *nd)
{
    while (nd->asks) {
        struct stepd_ask *a = nd->asks;
        nd->asks = a->next;
        request_cancel (a->req);
        free (a);
    }
}
