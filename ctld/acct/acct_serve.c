/* acct_serve.c - ACCT_QUERY: arbor acct's and arbor eff's questions.
 *
 * At the request the loop picks, from memory, the runs the database
 * does not have yet (pending, running, ended but completing) and their
 * running steps, encoded as they are now, into the query it hands the
 * database's thread. The thread reads the rest, with the ended steps of
 * the memory's runs too, merges and encodes the answer (acct_answer.c);
 * the loop only sends its frames. A requester that went away in the
 * meantime gets nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct.h"
#include "acct/acct_answer.h"
#include "acct/acct_db.h"
#include "acct/acct_private.h"
#include "acct/acct_serve.h"
#include "conn.h"
#include "ctld.h"
#include "job/job.h"
#include "job/job_rec.h"
#include "log.h"
#include "states.h"
#include "job/step.h"

#define ACCT_MAX_LIST 1000 /* ids or users one query may name */

void acct_conn_closed (struct ctld *ctx, struct conn *c)
{
    if (!ctx->acct)
        return;
    for (struct acct_ask *a = ctx->acct->asks; a; a = a->next)
        if (a->c == c)
            a->c = NULL;
}

/* ---- the runs in memory ----------------------------------------------- */

static bool u32_in (const uint32_t *v, size_t n, uint32_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

static bool mem_job_wanted (const struct msg_acct_query *m, const struct job *j,
                            uint32_t state_mask)
{
    uint64_t end = m->end ? m->end : UINT64_MAX;

    if (j->acct_written)
        return false; /* the database has this run */
    if (m->job_ids_count && !u32_in (m->job_ids, m->job_ids_count, j->id)
        && !(j->array_job_id
             && u32_in (m->job_ids, m->job_ids_count, j->array_job_id)))
        return false;
    if (m->uids_count && !u32_in (m->uids, m->uids_count, (uint32_t)j->uid))
        return false;
    if (state_mask && !(state_mask & (1u << j->state)))
        return false;
    if ((uint64_t)j->submit_time > end)
        return false;
    return job_is_active (j) || (uint64_t)j->end_time >= m->start;
}

static int bin_push (struct proto_bin **v, size_t *n, char *buf, size_t len)
{
    struct proto_bin *more = realloc (*v, (*n + 1) * sizeof (**v));

    if (!more) {
        free (buf);
        return -1;
    }
    *v = more;
    (*v)[*n] = (struct proto_bin){ buf, (uint32_t)len };
    (*n)++;
    return 0;
}

static int mem_add_steps (struct acct_db_query *q, const struct job *j)
{
    for (const struct step *s = j->steps; s; s = s->next) {
        struct msg_acct_step r;
        char *buf;
        size_t len;
        acct_step_fill (j, s, job_state_str (JOB_RUNNING), 0, &r);
        if (proto_encode (MSG_ACCT_STEP, &r, &buf, &len) < 0
            || bin_push (&q->mem_steps, &q->nmem_steps, buf, len) < 0)
            return -1;
    }
    return 0;
}

static int mem_add_job (const struct ctld *ctx, struct acct_db_query *q,
                        const struct job *j, bool events)
{
    struct msg_acct_job r;
    struct acct_run *more;
    char *buf;
    size_t len;
    int rc;

    acct_job_fill (ctx, j,
                   job_state_str (j->suspended && j->state == JOB_RUNNING
                                      ? JOB_SUSPENDED
                                      : j->state),
                   &r);
    rc = events ? acct_job_events (j, &r) : 0;
    if (rc == 0)
        rc = job_rec_encode (ctx, j, &r.job, &r.job_len);
    if (rc == 0)
        rc = proto_encode (MSG_ACCT_JOB, &r, &buf, &len);
    acct_job_events_free (&r);
    free (r.job);
    if (rc < 0 || bin_push (&q->mem_jobs, &q->nmem_jobs, buf, len) < 0)
        return -1;
    if (!(more = realloc (q->mem_keys, q->nmem_jobs * sizeof (*more))))
        return -1;
    q->mem_keys = more;
    q->mem_keys[q->nmem_jobs - 1] = (struct acct_run){ j->id, j->restarts };
    return 0;
}

/* The runs of memory the query wants, into q. -1 on ENOMEM. */
static int mem_pick (const struct ctld *ctx, struct acct_db_query *q,
                     const struct msg_acct_query *m, uint32_t state_mask)
{
    for (const struct job *j = ctx->jobs; j; j = j->next) {
        if (!mem_job_wanted (m, j, state_mask))
            continue;
        if (mem_add_job (ctx, q, j, m->events) < 0
            || (!m->no_steps && mem_add_steps (q, j) < 0))
            return -1;
    }
    return 0;
}

/* ---- the answer --------------------------------------------------------- */

static void ask_send (struct conn *c, uint32_t tag,
                      const struct acct_db_query *q)
{
    if (q->errnum) {
        conn_send_rc (c, tag, q->errnum, "%s", q->err);
        return;
    }
    for (size_t i = 0; i < q->nframes; i++)
        if (conn_send_body (c, MSG_ACCT_REPLY, tag, FRAME_F_RESPONSE,
                            q->frames[i].data, q->frames[i].len)
            < 0) {
            log_warn ("accounting answer to %s: %s", conn_peer (c),
                      strerror (errno));
            conn_close_after_flush (c);
            return;
        }
}

static void ask_unlink (struct ctld *ctx, struct acct_ask *a)
{
    for (struct acct_ask **pp = &ctx->acct->asks; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            return;
        }
}

static void ask_db_answered (struct acct_db_query *q, void *arg)
{
    struct acct_ask *a = arg;

    ask_unlink (a->ctx, a);
    if (a->c)
        ask_send (a->c, a->tag, q);
    acct_db_query_free (q);
    free (a);
}

/* ---- the request -------------------------------------------------------- */

/* -s names: a mask of enum job_state, or -1 with err for an unknown one. */
static int64_t query_state_mask (const struct msg_acct_query *m,
                                 arbor_error_t *err)
{
    uint32_t mask = 0;

    for (uint32_t i = 0; i < m->states_count; i++) {
        int s = job_state_parse (m->states[i] ? m->states[i] : "", true);
        if (s < 0)
            return errprintf (err, "unknown job state '%s'", m->states[i]);
        mask |= 1u << s;
    }
    return mask;
}

static int query_check (const struct msg_acct_query *m, arbor_error_t *err)
{
    if (m->job_ids_count > ACCT_MAX_LIST)
        return errprintf (err, "%u job ids asked for, at most %d",
                          m->job_ids_count, ACCT_MAX_LIST);
    if (m->uids_count > ACCT_MAX_LIST)
        return errprintf (err, "%u users asked for, at most %d", m->uids_count,
                          ACCT_MAX_LIST);
    if (m->end && m->start > m->end)
        return errprintf (err, "the start (-S) is after the end (-E)");
    return 0;
}

/* The query's filters. NULL with errno ENOMEM. */
static struct acct_db_query *query_make (const struct msg_acct_query *m,
                                         uint32_t state_mask)
{
    struct acct_db_query *q = acct_db_query_new ();

    if (!q)
        return NULL;
    q->start = m->start;
    q->end = m->end;
    q->steps = !m->no_steps;
    q->duplicates = m->duplicates;
    q->state_mask = state_mask;
    q->njob_ids = m->job_ids_count;
    q->nuids = m->uids_count;
    q->job_ids = calloc (q->njob_ids + 1, sizeof (uint32_t));
    q->uids = calloc (q->nuids + 1, sizeof (uint32_t));
    if (!q->job_ids || !q->uids) {
        acct_db_query_free (q);
        return NULL;
    }
    if (q->njob_ids)
        memcpy (q->job_ids, m->job_ids, q->njob_ids * sizeof (uint32_t));
    if (q->nuids)
        memcpy (q->uids, m->uids, q->nuids * sizeof (uint32_t));
    return q;
}

void acct_serve_query (struct ctld *ctx, struct conn *c, const struct frame *f,
                       const struct msg_acct_query *m)
{
    arbor_error_t err = { "" };
    struct acct_ask *a = NULL;
    struct acct_db_query *q = NULL;
    int64_t mask;

    if (query_check (m, &err) < 0 || (mask = query_state_mask (m, &err)) < 0) {
        conn_send_rc (c, f->matchtag, EINVAL, "%s", err.text);
        return;
    }
    if (!(q = query_make (m, (uint32_t)mask))
        || mem_pick (ctx, q, m, (uint32_t)mask) < 0)
        goto nomem;
    if (!ctx->acct || !ctx->acct->db) { /* AccountingStorageType=none */
        (void)acct_answer_frames (q);
        ask_send (c, f->matchtag, q);
        acct_db_query_free (q);
        return;
    }
    if (!(a = calloc (1, sizeof (*a))))
        goto nomem;
    *a = (struct acct_ask){ .ctx = ctx, .c = c, .tag = f->matchtag };
    if (acct_db_query (ctx->acct->db, q, ask_db_answered, a) < 0)
        goto nomem;
    a->next = ctx->acct->asks;
    ctx->acct->asks = a;
    return;
nomem:
    acct_db_query_free (q);
    free (a);
    conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
}
