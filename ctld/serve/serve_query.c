/* serve_query.c - the questions: NODE_INFO, JOB_INFO, STEP_INFO,
 * JOB_EVENTS, ACCT_QUERY and PRIO_INFO, answered from the controller's
 * state (info.c, events.c, acct.c, prio_info.c). See serve.c for the
 * dispatch.
 */
#include <errno.h>
#include <stdlib.h>

#include "acct/acct.h"
#include "acct/acct_serve.h"
#include "serve/info.h"
#include "serve/job_info.h"
#include "job/events.h"
#include "job/job.h"
#include "sched/prio_info.h"
#include "serve/serve.h"
#include "serve/serve_private.h"
#include "serve/serve_query.h"

void serve_step_info_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    struct ctld *ctx = arg;
    struct msg_step_info_reply r;
    arbor_error_t err;

    if (step_info_build (ctx, msg, &r, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        return;
    }
    (void)serve_reply (c, f, MSG_STEP_INFO_REPLY, &r);
    proto_clear (MSG_STEP_INFO_REPLY, &r);
}

/* A job's history (events.h). */
void serve_job_events_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_events *m = msg;
    struct msg_job_events_reply r = { .job_id = m->job_id };
    struct job *j;

    if (!(j = serve_owned_job (ctx, c, f, m->job_id)))
        return;
    r.times = calloc (j->nevents + 1, sizeof (*r.times));
    r.texts = calloc (j->nevents + 1, sizeof (*r.texts));
    if (!r.times || !r.texts) {
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
    } else {
        for (uint32_t i = 0; i < j->nevents; i++) {
            r.times[i] = (uint32_t)j->events[i].time;
            r.texts[i] = j->events[i].text; /* borrowed */
        }
        r.times_count = r.texts_count = j->nevents;
        r.dropped = j->events_dropped;
        (void)serve_reply (c, f, MSG_JOB_EVENTS_REPLY, &r);
    }
    free (r.times);
    free (r.texts);
}

/* arbor acct, arbor eff (acct.h). */
void serve_acct_query_cb (struct conn *c, const struct frame *f, void *msg,
                          void *arg)
{
    acct_serve_query (arg, c, f, msg);
}

/* arbor prio, sprio (prio_info.h). */
void serve_prio_info_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    prio_serve_info (arg, c, f, msg);
}

void serve_node_info_cb (struct conn *c, const struct frame *f, void *msg,
                         void *arg)
{
    struct ctld *ctx = arg;
    struct msg_node_info_reply r;
    arbor_error_t err;

    if (node_info_build (ctx, msg, &r, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        return;
    }
    (void)serve_reply (c, f, MSG_NODE_INFO_REPLY, &r);
    proto_clear (MSG_NODE_INFO_REPLY, &r);
}

void serve_job_info_cb (struct conn *c, const struct frame *f, void *msg,
                        void *arg)
{
    struct ctld *ctx = arg;
    struct msg_job_info_reply r;
    size_t sent;
    arbor_error_t err;

    if (job_info_build (ctx, msg, &r, &err) < 0) {
        conn_send_rc (c, f->matchtag, errno ? errno : EINVAL, "%s", err.text);
        return;
    }
    sent = conn_outq_len (c);
    (void)serve_reply (c, f, MSG_JOB_INFO_REPLY, &r);
    sent = conn_outq_len (c) > sent ? conn_outq_len (c) - sent : 0;
    proto_clear (MSG_JOB_INFO_REPLY, &r);
    ctld_trim (sent + (size_t)r.job_ids_count * 256);
}
