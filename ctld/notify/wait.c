/* wait.c - JOB_WAIT requests, kept until their job is over; see wait.h.
 *
 * A request for an array job's id waits for every task of the array: it
 * is answered once all are over, with COMPLETED if they all completed,
 * else the state of the first that did not, and the highest exit code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "ctld.h"
#include "job/job.h"
#include "log.h"
#include "proto.h"
#include "states.h"
#include "notify/wait.h"

struct waiter {
    struct waiter *next;
    struct conn *c;
    uint32_t tag;
    uint32_t job_id; /* a job, or an array (array_job_id) */
    bool array;
};

struct waits {
    struct waiter *list;
    size_t n;
};

/* The answer for job (or array) w->job_id, once it is over; false while
 * something of it is not. */
static bool wait_outcome (const struct ctld *ctx, const struct waiter *w,
                          struct msg_job_ended *m)
{
    const struct job *bad = NULL, *any = NULL;
    int rc = 0;

    for (const struct job *j = ctx->jobs; j; j = j->next) {
        if (j->id != w->job_id && !(w->array && j->array_job_id == w->job_id))
            continue;
        if (!job_is_over (j))
            return false;
        any = any ? any : j;
        if (j->state != JOB_COMPLETED && !bad)
            bad = j;
        rc = j->exit_rc > rc ? j->exit_rc : rc;
    }
    if (!any)
        return false;
    *m = (struct msg_job_ended){
        .job_id = w->job_id,
        .state = (char *)job_state_shown (bad ? bad : any),
        .exit_code = rc,
        .reason = bad && bad->reason ? bad->reason : "",
    };
    return true;
}

static void wait_answer (struct conn *c, uint32_t tag,
                         const struct msg_job_ended *m)
{
    if (conn_send (c, MSG_JOB_ENDED, tag, FRAME_F_RESPONSE, m) < 0)
        log_verbose ("job %u: cannot tell %s it ended: %s", m->job_id,
                     conn_peer (c), strerror (errno));
}

int wait_add (struct ctld *ctx, struct conn *c, uint32_t tag, struct job *j)
{
    struct waits *ws = ctx->waits;
    struct waiter *w,
        probe = { .job_id = j->id, .array = j->array_job_id == j->id };
    struct msg_job_ended m;

    if (wait_outcome (ctx, &probe, &m)) {
        wait_answer (c, tag, &m);
        return 0;
    }
    if (ws->n >= CTLD_MAX_WAITS) {
        errno = EAGAIN;
        return -1;
    }
    if (!(w = calloc (1, sizeof (*w))))
        return -1;
    *w = probe;
    w->c = c;
    w->tag = tag;
    w->next = ws->list;
    ws->list = w;
    ws->n++;
    return 0;
}

/* Unlink and free w (at *pp). */
static void wait_drop (struct waits *ws, struct waiter **pp)
{
    struct waiter *w = *pp;

    *pp = w->next;
    ws->n--;
    free (w);
}

void wait_job_over (struct ctld *ctx, const struct job *j)
{
    struct waits *ws = ctx->waits;
    struct waiter **pp;
    struct msg_job_ended m;

    if (!ws || ws->n == 0)
        return;
    for (pp = &ws->list; *pp;) {
        struct waiter *w = *pp;
        if ((w->job_id != j->id && !(w->array && w->job_id == j->array_job_id))
            || !wait_outcome (ctx, w, &m)) {
            pp = &w->next;
            continue;
        }
        wait_answer (w->c, w->tag, &m);
        wait_drop (ws, pp);
    }
}

void wait_conn_closed (struct ctld *ctx, struct conn *c)
{
    struct waits *ws = ctx->waits;
    struct waiter **pp;

    if (!ws)
        return;
    for (pp = &ws->list; *pp;) {
        if ((*pp)->c == c)
            wait_drop (ws, pp);
        else
            pp = &(*pp)->next;
    }
}

void wait_each_conn (struct ctld *ctx, void (*f) (struct conn *c, void *arg),
                     void *arg)
{
    if (!ctx->waits)
        return;
    for (struct waiter *w = ctx->waits->list; w; w = w->next)
        f (w->c, arg);
}

struct waits *waits_create (void)
{
    return calloc (1, sizeof (struct waits));
}

void waits_destroy (struct waits *ws)
{
    int saved = errno;

    if (!ws)
        return;
    while (ws->list) {
        struct waiter *w = ws->list;
        ws->list = w->next;
        free (w);
    }
    free (ws);
    errno = saved;
}
