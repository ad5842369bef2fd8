/* wait.c - JOB_WAIT requests, kept until their job is over; see wait.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "ctld.h"
#include "job.h"
#include "log.h"
#include "proto.h"
#include "states.h"
#include "wait.h"

struct waiter {
    struct waiter *next;
    struct conn *c;
    uint32_t tag;
    uint32_t job_id;
};

struct waits {
    struct waiter *list;
    size_t n;
};

bool job_is_over (const struct job *j)
{
    return !job_is_active (j) && !j->completing;
}

static void wait_answer (struct conn *c, uint32_t tag, const struct job *j)
{
    struct msg_job_ended m = {
        .job_id = j->id,
        .state = (char *)job_state_shown (j),
        .exit_code = j->exit_rc,
        .reason = j->reason ? j->reason : "",
    };

    if (conn_send (c, MSG_JOB_ENDED, tag, FRAME_F_RESPONSE, &m) < 0)
        log_verbose ("job %u: cannot tell %s it ended: %s", j->id,
                     conn_peer (c), strerror (errno));
}

int wait_add (struct ctld *ctx, struct conn *c, uint32_t tag, struct job *j)
{
    struct waits *ws = ctx->waits;
    struct waiter *w;

    if (job_is_over (j)) {
        wait_answer (c, tag, j);
        return 0;
    }
    if (ws->n >= CTLD_MAX_WAITS) {
        errno = EAGAIN;
        return -1;
    }
    if (!(w = calloc (1, sizeof (*w))))
        return -1;
    w->c = c;
    w->tag = tag;
    w->job_id = j->id;
    w->next = ws->list;
    ws->list = w;
    ws->n++;
    return 0;
}

/* Unlink and free the waiters matching (c or job id); answer them with
 * j when it is given. */
static void wait_drop (struct waits *ws, const struct conn *c,
                       const struct job *j)
{
    struct waiter **pp = &ws->list;

    while (*pp) {
        struct waiter *w = *pp;
        if ((c && w->c != c) || (j && w->job_id != j->id)) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        ws->n--;
        if (j)
            wait_answer (w->c, w->tag, j);
        free (w);
    }
}

void wait_job_over (struct ctld *ctx, const struct job *j)
{
    if (ctx->waits && ctx->waits->n > 0)
        wait_drop (ctx->waits, NULL, j);
}

void wait_conn_closed (struct ctld *ctx, struct conn *c)
{
    if (ctx->waits && ctx->waits->n > 0)
        wait_drop (ctx->waits, c, NULL);
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
