/* stepd_relay.c - STEP_COMPLETE from this node to the controller.
 *
 * Two parts:
 *   - step_notify: STEP_COMPLETE to the ctld, retried. One request
 *     (common/wire/request.h, on the noded's kept connection to the ctld)
 *     that retries itself (opts.retry): each attempt given up and started
 *     again every RELAY_RESEND s, RELAY_TRIES attempts, so that a ctld
 *     that is briefly unreachable (restarting) still gets it. Used for the
 * stepds' reports below and by stepd_orphan.c for a stepd that died.
 *   - the relay: a stepd sends its STEP_COMPLETE to its noded over the
 *     unix connection they already share (the socketpair on its fd 0, or
 *     the connection a noded started after it opened on its socket and
 *     named with STEPD_ATTACH, stepd_info.c), instead of one TCP
 *     connection and two munge calls per stepd. The noded checks that
 *     the report is that stepd's own (job, step and node of the record
 *     behind the connection; refused with EPERM and logged otherwise),
 *     takes it over and answers RC 0: from that answer on, getting the
 *     report to the ctld is the noded's job and the stepd may exit. The
 *     relay lives in the stepd table, not in the stepd's record, so the
 *     reaping of the stepd (which frees its record) does not drop it.
 * A noded that stops drops the relays not yet delivered (logged); the
 * job's termination (JOB_TERMINATE, epilog) still completes the job.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "noded_base.h"
#include "request.h"
#include "stepd_info.h"
#include "stepd_relay.h"
#include "stepd_table.h"

#define RELAY_RESEND 5.0 /* s between STEP_COMPLETE attempts */
#define RELAY_TRIES 12

struct step_notify {
    struct noded *nd;
    struct msg_step_complete m; /* node borrowed from nd->name */
    struct request *req;        /* retried until taken or RELAY_TRIES */
    step_notify_f cb;
    void *arg;
};

/* A stepd's report, taken over from it. */
struct relay {
    struct relay *next;
    struct noded *nd;
    struct step_notify *notify;
};

/* ---- STEP_COMPLETE to the ctld, retried ---------------------------------- */

static void step_notify_end (struct step_notify *n, bool taken)
{
    step_notify_f cb = n->cb;
    void *arg = n->arg;

    step_notify_cancel (n);
    cb (taken, arg);
}

static void step_notify_unreached (const struct step_notify *n,
                                   const struct request_result *res)
{
    if (res->outcome == REQUEST_UNREACHED)
        log_info ("step %u.%u: STEP_COMPLETE to the ctld: %s", n->m.job_id,
                  n->m.step_id, res->err.text);
}

/* request_again_f: a failure is tried again; the ctld's answer, a
 * refusal too (it will not take the report), ends it. */
static bool step_notify_again (const struct request_result *res, void *arg)
{
    step_notify_unreached (arg, res);
    return request_retriable (res);
}

static void step_notify_done_cb (const struct request_result *res, void *arg)
{
    struct step_notify *n = arg;

    n->req = NULL; /* freed by request.c after this returns */
    if (res->outcome != REQUEST_ANSWERED && res->outcome != REQUEST_REFUSED) {
        step_notify_unreached (n, res);
        log_err ("step %u.%u: the ctld did not take STEP_COMPLETE after %d "
                 "attempts: giving up",
                 n->m.job_id, n->m.step_id, RELAY_TRIES);
        step_notify_end (n, false);
        return;
    }
    if (res->errnum != 0)
        log_info ("step %u.%u: the ctld refused STEP_COMPLETE: %s", n->m.job_id,
                  n->m.step_id, res->err.text);
    else
        log_debug ("step %u.%u: STEP_COMPLETE (rc %d) taken by the ctld",
                   n->m.job_id, n->m.step_id, n->m.rc);
    step_notify_end (n, res->errnum == 0);
}

struct step_notify *step_notify_start (struct noded *nd,
                                       const struct msg_step_complete *m,
                                       step_notify_f cb, void *arg)
{
    struct step_notify *n = calloc (1, sizeof (*n));
    const struct conf *conf = nd->conf;
    struct request_opts opts;

    if (!n)
        return NULL;
    n->nd = nd;
    n->m = *m;
    n->m.node = (char *)nd->name;
    n->cb = cb;
    n->arg = arg;
    noded_ctld_opts (nd, RELAY_RESEND, &opts);
    opts.retry = (struct request_retry){ .interval = RELAY_RESEND,
                                         .from_start = true,
                                         .limit = RELAY_TRIES,
                                         .again = step_notify_again };
    if (!(n->req = request_tcp (nd->loop, conf->control_addr, conf->ctld_port,
                                MSG_STEP_COMPLETE, &n->m, &opts,
                                step_notify_done_cb, n))) {
        int e = errno;
        log_info ("step %u.%u: STEP_COMPLETE to the ctld: %s", n->m.job_id,
                  n->m.step_id, strerror (e));
        free (n);
        errno = e;
        return NULL;
    }
    return n;
}

void step_notify_cancel (struct step_notify *n)
{
    if (!n)
        return;
    request_cancel (n->req);
    free (n);
}

/* ---- the relay of a stepd's report --------------------------------------- */

static struct relay *relay_find (struct noded *nd, uint32_t job, uint32_t step)
{
    for (struct relay *r = nd->stepds->relays; r; r = r->next)
        if (r->notify->m.job_id == job && r->notify->m.step_id == step)
            return r;
    return NULL;
}

static void relay_done_cb (bool taken, void *arg)
{
    struct relay *r = arg;

    for (struct relay **pp = &r->nd->stepds->relays; *pp; pp = &(*pp)->next) {
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    }
    free (r); /* its notify freed itself */
}

/* Take the report over. 0, or -1 with errno ENOMEM. */
static int relay_start (struct noded *nd, const struct msg_step_complete *m)
{
    struct relay *r;

    if (relay_find (nd, m->job_id, m->step_id))
        return 0; /* sent twice (a lost answer): already ours */
    if (!(r = calloc (1, sizeof (*r))))
        return -1;
    r->nd = nd;
    if (!(r->notify = step_notify_start (nd, m, relay_done_cb, r))) {
        free (r);
        errno = ENOMEM;
        return -1;
    }
    r->next = nd->stepds->relays;
    nd->stepds->relays = r;
    return 0;
}

/* Is this report the stepd's own? Its connection tells who sent it:
 * the stepd of (job, step) on this node. */
static int relay_check (struct noded *nd, const struct frame *f,
                        const struct msg_step_complete *m, uint32_t job,
                        uint32_t step, arbor_error_t *err)
{
    if (f->uid != 0 && f->uid != geteuid ())
        return errprintf (err, "sent by uid %u", (unsigned)f->uid);
    if (m->job_id != job || m->step_id != step)
        return errprintf (err, "it names step %u.%u", m->job_id, m->step_id);
    if (!m->node || strcmp (m->node, nd->name) != 0)
        return errprintf (err, "it names node %s", m->node ? m->node : "?");
    return 0;
}

bool stepd_relay_frame (struct noded *nd, struct conn *c, const struct frame *f,
                        uint32_t job, uint32_t step)
{
    struct msg_step_complete m;
    arbor_error_t err = { "" };

    if (f->type != MSG_STEP_COMPLETE || (f->flags & FRAME_F_RESPONSE))
        return false;
    if (proto_decode (MSG_STEP_COMPLETE, f->body, f->body_len, &m, &err) < 0) {
        log_warn ("stepd %u.%u: bad STEP_COMPLETE: %s", job, step, err.text);
        conn_send_rc (c, f->matchtag, EPROTO, "%s", err.text);
        return true;
    }
    if (relay_check (nd, f, &m, job, step, &err) < 0) {
        log_security ("stepd %u.%u: STEP_COMPLETE refused: %s", job, step,
                      err.text);
        conn_send_rc (c, f->matchtag, EPERM, "STEP_COMPLETE refused: %s",
                      err.text);
    } else if (relay_start (nd, &m) < 0) {
        int e = errno; /* the stepd tells the ctld itself */
        log_warn ("stepd %u.%u: cannot relay STEP_COMPLETE: %s", job, step,
                  strerror (e));
        conn_send_rc (c, f->matchtag, e, "noded: %s", strerror (e));
    } else {
        /* The noded's job from here on: the stepd may exit. */
        log_debug ("stepd %u.%u: STEP_COMPLETE (rc %d%s) taken over", job, step,
                   m.rc, m.oom ? ", OOM" : "");
        conn_send_rc (c, f->matchtag, 0, "%s", "");
    }
    proto_clear (MSG_STEP_COMPLETE, &m);
    return true;
}

void stepd_relay_free_all (struct stepd_table *t)
{
    int dropped = 0;

    while (t->relays) {
        struct relay *r = t->relays;
        t->relays = r->next;
        step_notify_cancel (r->notify);
        free (r);
        dropped++;
    }
    if (dropped)
        log_warn ("%d step completion(s) not yet taken by the ctld dropped",
                  dropped);
}
