/* acct_db_read.c - the accounting database's answers to queries, read
 * on its thread: job rows by the query's filters, each job's last run
 * unless duplicates are asked, the states asked, then the steps of those
 * runs (and of the runs the controller has in memory) with their nodes'
 * usage folded in (acct_usage.h). See acct_db.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_answer.h"
#include "acct/acct_db_private.h"
#include "acct/acct_usage.h"
#include "log.h"
#include "states.h"

struct acct_db_query *acct_db_query_new (void)
{
    return calloc (1, sizeof (struct acct_db_query));
}

void acct_db_query_free (struct acct_db_query *q)
{
    if (!q)
        return;
    free (q->job_ids);
    free (q->uids);
    free (q->mem_keys);
    proto_bins_free (q->mem_jobs, q->nmem_jobs);
    proto_bins_free (q->mem_steps, q->nmem_steps);
    proto_bins_free (q->frames, q->nframes);
    free (q->found);
    proto_bins_free (q->jobs, q->njobs);
    proto_bins_free (q->steps_found, q->nsteps);
    free (q);
}

/* Append a copy of (p, n) to the list *v of *count. -1 on ENOMEM. */
static int bins_add (struct proto_bin **v, size_t *count, const void *p,
                     size_t n)
{
    struct proto_bin *nv;

    if ((*count & (*count - 1)) == 0) { /* 0, 1, 2, 4...: grow */
        if (!(nv = realloc (*v, (*count ? 2 * *count : 1) * sizeof (**v))))
            return -1;
        *v = nv;
    }
    if (!((*v)[*count].data = malloc (n + 1)))
        return -1;
    memcpy ((*v)[*count].data, p, n);
    (*v)[*count].len = (uint32_t)n;
    (*count)++;
    return 0;
}

/* " AND col IN (1,2,3)" for a list, "" for none. NULL on ENOMEM. */
static char *sql_in (const char *col, const uint32_t *v, size_t n,
                     const char *col2)
{
    char *s = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&s, &size);

    if (!f)
        return NULL;
    for (int c = 0; n && c < (col2 ? 2 : 1); c++) {
        fprintf (f, "%s%s IN (", c ? " OR " : " AND (", c ? col2 : col);
        for (size_t i = 0; i < n; i++)
            fprintf (f, "%s%u", i ? "," : "", v[i]);
        fputs (")", f);
    }
    if (n)
        fputs (")", f);
    if (fclose (f) != 0) {
        free (s);
        return NULL;
    }
    return s;
}

static char *query_sql (const struct acct_db_query *q)
{
    char *ids = sql_in ("job_id", q->job_ids, q->njob_ids, "array_job_id");
    char *uids = sql_in ("uid", q->uids, q->nuids, NULL);
    char *sql = NULL;

    if (ids && uids
        && asprintf (&sql,
                     "SELECT job_id, run, rec FROM jobs WHERE end_time >= ?1 "
                     "AND submit <= ?2%s%s ORDER BY job_id, run",
                     ids, uids)
               < 0)
        sql = NULL;
    free (ids);
    free (uids);
    return sql;
}

/* The usage rows of (job, run), decoded, step ids ascending. */
struct usage_rows {
    uint32_t *step_ids;
    struct msg_step_complete *m;
    size_t n;
};

static void usage_rows_free (struct usage_rows *u)
{
    for (size_t i = 0; i < u->n; i++)
        proto_clear (MSG_STEP_COMPLETE, &u->m[i]);
    free (u->m);
    free (u->step_ids);
    memset (u, 0, sizeof (*u));
}

static int usage_rows_read (struct acct_db *db, uint32_t job, uint32_t run,
                            struct usage_rows *u)
{
    sqlite3_stmt *st = db->get_usage;
    arbor_error_t err;
    int rc;

    sqlite3_bind_int64 (st, 1, job);
    sqlite3_bind_int64 (st, 2, run);
    while ((rc = sqlite3_step (st)) == SQLITE_ROW) {
        size_t k = u->n;
        void *a = realloc (u->m, (k + 1) * sizeof (*u->m));
        if (a)
            u->m = a;
        void *b = a ? realloc (u->step_ids, (k + 1) * sizeof (uint32_t)) : NULL;
        if (!b) {
            rc = SQLITE_NOMEM;
            break;
        }
        u->step_ids = b;
        u->step_ids[k] = (uint32_t)sqlite3_column_int64 (st, 0);
        if (proto_decode (MSG_STEP_COMPLETE, sqlite3_column_blob (st, 1),
                          (size_t)sqlite3_column_bytes (st, 1), &u->m[k], &err)
            < 0) {
            log_warn ("accounting: usage of %u (run %u): %s", job, run,
                      err.text);
            continue;
        }
        u->n++;
    }
    sqlite3_reset (st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Step record 'rec' of the database with its nodes' usage, encoded
 * into the answer. */
static int step_answer (struct acct_db_query *q, const void *rec, size_t len,
                        const struct usage_rows *u)
{
    struct msg_acct_step s;
    arbor_error_t err;
    size_t first = 0, n = 0;
    char *buf;
    size_t blen;

    if (proto_decode (MSG_ACCT_STEP, rec, len, &s, &err) < 0) {
        log_warn ("accounting: a step record: %s", err.text);
        return 0;
    }
    while (first < u->n && u->step_ids[first] < s.step_id)
        first++;
    while (first + n < u->n && u->step_ids[first + n] == s.step_id)
        n++;
    int rc = acct_step_add_usage (&s, u->m + first, n);
    if (rc == 0 && (rc = proto_encode (MSG_ACCT_STEP, &s, &buf, &blen)) == 0) {
        rc = bins_add (&q->steps_found, &q->nsteps, buf, blen);
        free (buf);
    }
    proto_clear (MSG_ACCT_STEP, &s);
    return rc;
}

static int steps_read (struct acct_db *db, struct acct_db_query *q,
                       uint32_t job, uint32_t run)
{
    struct usage_rows u = { 0 };
    sqlite3_stmt *st = db->get_steps;
    int rc = SQLITE_DONE;

    if (usage_rows_read (db, job, run, &u) < 0) {
        usage_rows_free (&u);
        return -1;
    }
    sqlite3_bind_int64 (st, 1, job);
    sqlite3_bind_int64 (st, 2, run);
    while ((rc = sqlite3_step (st)) == SQLITE_ROW)
        if (step_answer (q, sqlite3_column_blob (st, 0),
                         (size_t)sqlite3_column_bytes (st, 0), &u)
            < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
    sqlite3_reset (st);
    usage_rows_free (&u);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Append row (job, run, rec) to the answer. -1 on ENOMEM. */
static int job_add (struct acct_db_query *q, struct acct_run r, const void *rec,
                    size_t len)
{
    struct acct_run *more;

    if (bins_add (&q->jobs, &q->njobs, rec, len) < 0)
        return -1;
    if (!(more = realloc (q->found, q->njobs * sizeof (*more)))) {
        free (q->jobs[--q->njobs].data);
        return -1;
    }
    q->found = more;
    q->found[q->njobs - 1] = r;
    return 0;
}

/* The job rows of the query; only each job's last run unless asked. */
static int jobs_read (struct acct_db *db, struct acct_db_query *q)
{
    char *sql = query_sql (q);
    sqlite3_stmt *st = NULL;
    int rc;

    if (!sql || sqlite3_prepare_v2 (db->db, sql, -1, &st, NULL) != SQLITE_OK) {
        free (sql);
        return -1;
    }
    free (sql);
    sqlite3_bind_int64 (st, 1, (sqlite3_int64)q->start);
    sqlite3_bind_int64 (st, 2, (sqlite3_int64)(q->end ? q->end : INT64_MAX));
    rc = sqlite3_step (st);
    while (rc == SQLITE_ROW) {
        struct acct_run r = { (uint32_t)sqlite3_column_int64 (st, 0),
                              (uint32_t)sqlite3_column_int64 (st, 1) };
        if (q->njobs == ACCT_DB_MAX_JOBS) {
            q->errnum = E2BIG;
            break;
        }
        if (job_add (q, r, sqlite3_column_blob (st, 2),
                     (size_t)sqlite3_column_bytes (st, 2))
            < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        rc = sqlite3_step (st);
        if (!q->duplicates && rc == SQLITE_ROW
            && (uint32_t)sqlite3_column_int64 (st, 0) == r.job_id)
            free (q->jobs[--q->njobs].data); /* a later run follows */
    }
    sqlite3_finalize (st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* Is encoded job record 'b' in one of the states of 'mask'? */
static bool job_state_wanted (const struct proto_bin *b, uint32_t mask)
{
    struct msg_acct_job r;
    arbor_error_t err;
    int state;

    if (proto_decode (MSG_ACCT_JOB, b->data, b->len, &r, &err) < 0)
        return false;
    state = job_state_parse (r.state ? r.state : "", false);
    proto_clear (MSG_ACCT_JOB, &r);
    return state >= 0 && (mask & (1u << state));
}

/* -s: keep the runs in the states asked (after the last-run choice, as
 * sacct filters what it shows). */
static void jobs_filter_states (struct acct_db_query *q)
{
    size_t kept = 0;

    for (size_t i = 0; i < q->njobs; i++) {
        if (!job_state_wanted (&q->jobs[i], q->state_mask)) {
            free (q->jobs[i].data);
            continue;
        }
        q->jobs[kept] = q->jobs[i];
        q->found[kept++] = q->found[i];
    }
    q->njobs = kept;
}

void acct_db_answer (struct acct_db *db, struct acct_db_query *q)
{
    int rc = jobs_read (db, q);

    if (q->errnum)
        rc = -1; /* E2BIG: no answer */
    if (rc == 0 && q->state_mask)
        jobs_filter_states (q);
    for (size_t i = 0; rc == 0 && q->steps && i < q->njobs; i++)
        rc = steps_read (db, q, q->found[i].job_id, q->found[i].run);
    for (size_t i = 0; rc == 0 && q->steps && i < q->nmem_jobs; i++)
        rc = steps_read (db, q, q->mem_keys[i].job_id, q->mem_keys[i].run);
    if (q->errnum == E2BIG)
        snprintf (q->err, sizeof (q->err),
                  "more than %d jobs match: narrow the query (-S, -E, -u, "
                  "-j, -s)",
                  ACCT_DB_MAX_JOBS);
    else if (rc < 0 && !q->errnum) {
        q->errnum = EIO;
        snprintf (q->err, sizeof (q->err), "accounting database: %s",
                  sqlite3_errmsg (db->db));
    }
    if (!q->errnum)
        (void)acct_answer_frames (q);
}
