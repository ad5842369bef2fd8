/* acct_serve.c - ACCT_QUERY: arbor acct's and arbor eff's questions.
 *
 * At the request the loop picks, from memory, the runs the database
 * does not have yet (pending, running, ended but completing) and their
 * running steps, encoded as they are now, and asks the database thread
 * for the rest, with the ended steps of those runs too. When the thread
 * answers, the two are merged in (job, run) order, a run in memory
 * hiding the database's earlier runs of its job unless -D, and sent in
 * frames of about ACCT_FRAME_BYTES. A requester that went away in the
 * meantime gets nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "acct_db.h"
#include "acct_private.h"
#include "conn.h"
#include "ctld.h"
#include "job.h"
#include "log.h"
#include "states.h"
#include "step.h"

#define ACCT_FRAME_BYTES (1u << 20)
#define ACCT_MAX_LIST 1000 /* ids or users one query may name */

struct acct_ask {
    struct acct_ask *next;
    struct ctld *ctx;
    struct conn *c; /* NULL once it closed */
    uint32_t tag;
    bool duplicates;
    struct proto_bin *jobs; /* from memory, encoded */
    struct acct_run *keys;  /* ... each one's job and run */
    size_t njobs;
    struct proto_bin *steps; /* running steps, encoded */
    size_t nsteps;
};

/* One record of the answer and where it came from. */
struct rec_ref {
    struct acct_run key;
    const struct proto_bin *bin;
};

static void ask_free (struct acct_ask *a)
{
    if (!a)
        return;
    proto_bins_free (a->jobs, a->njobs);
    proto_bins_free (a->steps, a->nsteps);
    free (a->keys);
    free (a);
}

void acct_asks_free (struct ctld *ctx)
{
    while (ctx->acct->asks) {
        struct acct_ask *a = ctx->acct->asks;
        ctx->acct->asks = a->next;
        ask_free (a);
    }
}

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

static int ask_add_steps (struct acct_ask *a, const struct job *j)
{
    for (const struct step *s = j->steps; s; s = s->next) {
        struct msg_acct_step r;
        char *buf;
        size_t len;
        acct_step_fill (j, s, job_state_str (JOB_RUNNING), 0, &r);
        if (proto_encode (MSG_ACCT_STEP, &r, &buf, &len) < 0
            || bin_push (&a->steps, &a->nsteps, buf, len) < 0)
            return -1;
    }
    return 0;
}

static int ask_add_job (struct acct_ask *a, const struct job *j, bool events)
{
    struct msg_acct_job r;
    struct acct_run *more;
    char *buf;
    size_t len;
    int rc;

    acct_job_fill (a->ctx, j, job_state_str (j->state), &r);
    rc = events ? acct_job_events (j, &r) : 0;
    if (rc == 0)
        rc = proto_encode (MSG_ACCT_JOB, &r, &buf, &len);
    acct_job_events_free (&r);
    if (rc < 0 || bin_push (&a->jobs, &a->njobs, buf, len) < 0)
        return -1;
    if (!(more = realloc (a->keys, a->njobs * sizeof (*more))))
        return -1;
    a->keys = more;
    a->keys[a->njobs - 1] = (struct acct_run){ j->id, j->restarts };
    return 0;
}

static int ask_pick (struct acct_ask *a, const struct msg_acct_query *m,
                     uint32_t state_mask)
{
    for (const struct job *j = a->ctx->jobs; j; j = j->next) {
        if (!mem_job_wanted (m, j, state_mask))
            continue;
        if (ask_add_job (a, j, m->events) < 0
            || (!m->no_steps && ask_add_steps (a, j) < 0))
            return -1;
    }
    return 0;
}

/* ---- the answer --------------------------------------------------------- */

static int rec_ref_cmp (const void *pa, const void *pb)
{
    const struct rec_ref *a = pa, *b = pb;

    if (a->key.job_id != b->key.job_id)
        return a->key.job_id < b->key.job_id ? -1 : 1;
    return a->key.run < b->key.run ? -1 : a->key.run > b->key.run;
}

/* Is job 'id' among the runs picked from memory? */
static bool ask_has_job (const struct acct_ask *a, uint32_t id)
{
    for (size_t i = 0; i < a->njobs; i++)
        if (a->keys[i].job_id == id)
            return true;
    return false;
}

/* The job records of both sources in (job, run) order. NULL on ENOMEM
 * (with *n 0 it may be a valid empty answer: check *n). */
static struct rec_ref *answer_jobs (const struct acct_ask *a,
                                    const struct acct_db_query *q, size_t *n)
{
    size_t total = a->njobs + (q ? q->njobs : 0), k = 0;
    struct rec_ref *v = calloc (total + 1, sizeof (*v));

    if (!v)
        return NULL;
    for (size_t i = 0; i < a->njobs; i++)
        v[k++] = (struct rec_ref){ a->keys[i], &a->jobs[i] };
    for (size_t i = 0; q && i < q->njobs; i++)
        if (a->duplicates || !ask_has_job (a, q->found[i].job_id))
            v[k++] = (struct rec_ref){ q->found[i], &q->jobs[i] };
    qsort (v, k, sizeof (*v), rec_ref_cmp);
    *n = k;
    return v;
}

/* Send 'jobs' then 'steps' in frames of about ACCT_FRAME_BYTES: each
 * frame takes records until it holds that much. */
static int answer_send (struct acct_ask *a, const struct rec_ref *jobs,
                        size_t njobs, const struct proto_bin *const *steps,
                        size_t nsteps)
{
    struct msg_acct_reply r = { 0 };
    size_t i = 0, k = 0;
    int rc = -1;

    r.jobs = calloc (njobs + 1, sizeof (*r.jobs));
    r.steps = calloc (nsteps + 1, sizeof (*r.steps));
    while (r.jobs && r.steps) {
        size_t bytes = 0;
        r.jobs_count = r.steps_count = 0;
        while (i < njobs && bytes < ACCT_FRAME_BYTES) {
            r.jobs[r.jobs_count++] = *jobs[i].bin;
            bytes += jobs[i++].bin->len;
        }
        while (k < nsteps && bytes < ACCT_FRAME_BYTES) {
            r.steps[r.steps_count++] = *steps[k];
            bytes += steps[k++]->len;
        }
        r.more = i < njobs || k < nsteps;
        if ((rc =
                 conn_send (a->c, MSG_ACCT_REPLY, a->tag, FRAME_F_RESPONSE, &r))
                < 0
            || !r.more)
            break;
    }
    free (r.jobs); /* the records are borrowed */
    free (r.steps);
    return rc;
}

static void ask_answer (struct acct_ask *a, const struct acct_db_query *q)
{
    size_t njobs = 0, nsteps = a->nsteps + (q ? q->nsteps : 0), k = 0;
    struct rec_ref *jobs = answer_jobs (a, q, &njobs);
    const struct proto_bin **steps = calloc (nsteps + 1, sizeof (*steps));

    if (jobs && steps) {
        for (size_t i = 0; q && i < q->nsteps; i++)
            steps[k++] = &q->steps_found[i];
        for (size_t i = 0; i < a->nsteps; i++)
            steps[k++] = &a->steps[i];
    }
    if (!jobs || !steps || answer_send (a, jobs, njobs, steps, nsteps) < 0)
        conn_send_rc (a->c, a->tag, errno ? errno : ENOMEM, "cannot answer: %s",
                      strerror (errno ? errno : ENOMEM));
    free (jobs);
    free (steps);
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
    if (a->c && q->errnum)
        conn_send_rc (a->c, a->tag, q->errnum, "%s", q->err);
    else if (a->c)
        ask_answer (a, q);
    acct_db_query_free (q);
    ask_free (a);
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

/* The database part of the question. NULL with errno ENOMEM. */
static struct acct_db_query *db_query_make (const struct msg_acct_query *m,
                                            const struct acct_ask *a,
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
    q->nextra = a->njobs;
    q->job_ids = calloc (q->njob_ids + 1, sizeof (uint32_t));
    q->uids = calloc (q->nuids + 1, sizeof (uint32_t));
    q->extra = calloc (q->nextra + 1, sizeof (*q->extra));
    if (!q->job_ids || !q->uids || !q->extra) {
        acct_db_query_free (q);
        return NULL;
    }
    if (q->njob_ids)
        memcpy (q->job_ids, m->job_ids, q->njob_ids * sizeof (uint32_t));
    if (q->nuids)
        memcpy (q->uids, m->uids, q->nuids * sizeof (uint32_t));
    if (q->nextra)
        memcpy (q->extra, a->keys, q->nextra * sizeof (*q->extra));
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
    if (!(a = calloc (1, sizeof (*a))))
        goto nomem;
    *a = (struct acct_ask){
        .ctx = ctx, .c = c, .tag = f->matchtag, .duplicates = m->duplicates
    };
    if (ask_pick (a, m, (uint32_t)mask) < 0)
        goto nomem;
    if (!ctx->acct || !ctx->acct->db) {
        ask_answer (a, NULL);
        ask_free (a);
        return;
    }
    if (!(q = db_query_make (m, a, (uint32_t)mask))
        || acct_db_query (ctx->acct->db, q, ask_db_answered, a) < 0)
        goto nomem;
    a->next = ctx->acct->asks;
    ctx->acct->asks = a;
    return;
nomem:
    acct_db_query_free (q);
    ask_free (a);
    conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
}
