/* job_info.c - the JOB_INFO answer: every job the filters pass, as
 * records (2.12), or as lists for the commands of 2.11 and earlier.
 *
 * Any user may ask, so it is bounded: JOB_INFO lists at most MaxJobCount
 * jobs, and filters on the server, so that `arbor queue -u me` carries
 * only what it shows: job_id (one job, ENOENT if unknown), job_ids, users
 * (names or numeric uids) and states (as shown: PENDING, RUNNING,
 * COMPLETING, ..., any case); empty filters pass everything. Each filter
 * list is capped (INFO_MAX_IDS, INFO_MAX_NAMES entries) so that filtering
 * stays cheap.
 *
 * It answers in pages, in job id order, each ending after about
 * JOB_INFO_PAGE_BYTES of job fields (a job's command alone may be 64
 * KiB): the request names the id to resume after, the answer the last id
 * it holds when more follow (the commands ask until done). So no amount
 * of data one user keeps makes anyone's listing exceed the frame limit.
 *
 * Each job is one JOB_REC (job/job_rec.h), the record the state database
 * keeps, with its live fields: a 2.12 command gets it encoded, an older
 * one gets the same values copied into the lists it knows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "error.h"
#include "job/job.h"
#include "job/job_rec.h"
#include "proto.h"
#include "sched/prio.h"
#include "serve/job_info.h"
#include "job/jobs.h"

static bool info_has_id (const struct msg_job_info *m, uint32_t id)
{
    for (uint32_t i = 0; i < m->job_ids_count; i++)
        if (m->job_ids[i] == id)
            return true;
    return false;
}

static bool info_has_user (const struct msg_job_info *m, const struct job *j)
{
    char uid[16];

    snprintf (uid, sizeof (uid), "%lu", (unsigned long)j->uid);
    for (uint32_t i = 0; i < m->users_count; i++)
        if (!strcmp (m->users[i], j->user) || !strcmp (m->users[i], uid))
            return true;
    return false;
}

static bool info_has_state (const struct msg_job_info *m, const struct job *j)
{
    const char *st = job_state_shown (j);

    for (uint32_t i = 0; i < m->states_count; i++)
        if (!strcasecmp (m->states[i], st))
            return true;
    return false;
}

bool job_info_wanted (const struct msg_job_info *m, const struct job *j)
{
    return (m->job_id == 0 || j->id == m->job_id
            || (j->array_job_id && j->array_job_id == m->job_id))
           && (m->job_ids_count == 0 || info_has_id (m, j->id)
               || (j->array_job_id && info_has_id (m, j->array_job_id)))
           && (m->users_count == 0 || info_has_user (m, j))
           && (m->states_count == 0 || info_has_state (m, j));
}

static int info_by_id (const void *a, const void *b)
{
    uint32_t x = (*(const struct job *const *)a)->id;
    uint32_t y = (*(const struct job *const *)b)->id;

    return x < y ? -1 : x > y;
}

/* The jobs the filters pass with an id above m->after_job_id, in id
 * order: a page resumes where the last one ended, whatever was
 * submitted or purged in between. NULL with errno ENOMEM. */
static const struct job **info_candidates (const struct ctld *ctx,
                                           const struct msg_job_info *m,
                                           size_t *n)
{
    const struct job **v;
    size_t k = 0;

    for (const struct job *j = ctx->jobs; j; j = j->next)
        k += j->id > m->after_job_id && job_info_wanted (m, j);
    if (!(v = calloc (k + 1, sizeof (*v))))
        return NULL;
    *n = 0;
    for (const struct job *j = ctx->jobs; j && *n < k; j = j->next)
        if (j->id > m->after_job_id && job_info_wanted (m, j))
            v[(*n)++] = j;
    qsort (v, *n, sizeof (*v), info_by_id);
    return v;
}

/* ---- the lists of 2.11 ---------------------------------------------- */

/* The list fields of JOB_INFO_REPLY: strings, then numbers. */
/* clang-format off */
#define JOB_INFO_STRS(X)                                                 \
    X (names) X (users) X (partitions) X (states) X (reasons)           \
    X (nodelists) X (work_dirs) X (std_outs) X (std_errs)               \
    X (dependencies) X (accounts) X (commands) X (req_nodelists)        \
    X (exc_nodelists) X (submit_hosts) X (std_ins) X (licenses)        \
    X (mail_users) X (comments)
#define JOB_INFO_NUMS(X)                                                 \
    X (job_ids) X (nnodes) X (ncpus) X (time_limits) X (start_times)    \
    X (nsteps) X (end_times) X (exit_codes) X (array_job_ids)           \
    X (array_task_ids) X (submit_times) X (batch_flags) X (restarts)    \
    X (expected_starts) X (priorities) X (uids) X (gids) X (nices)      \
    X (ntasks) X (cpus_per_task) X (mem_per_node) X (mem_per_cpu)       \
    X (eligible_times) X (requeues) X (mail_types) X (time_mins)       \
    X (min_cpus) X (min_tmps) X (nnodes_maxs)
/* clang-format on */

static uint32_t clamp_u32 (uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* strdup into a list slot, remembering failure in *bad. */
static void put_str (char **slot, const char *s, bool *bad)
{
    if (!(*slot = strdup (s ? s : "")))
        *bad = true;
}

/* Move an allocated string of the record into a list slot. */
static void take_str (char **slot, char **from, bool *bad)
{
    if (!*from)
        put_str (slot, "", bad);
    else
        *slot = *from, *from = NULL;
}

/* Entry i's strings, from the record (and the request's, from j). The
 * live ones are moved, not copied: an answer to an old command makes no
 * more allocations than it did before records. */
static void lists_strs (const struct job *j, struct msg_job_rec *rec, size_t i,
                        struct msg_job_info_reply *r, bool *bad)
{
    put_str (&r->names[i], rec->name, bad);
    take_str (&r->users[i], &rec->user, bad);
    take_str (&r->partitions[i], &rec->partition, bad);
    take_str (&r->states[i], &rec->state_shown, bad);
    put_str (&r->reasons[i], rec->reason, bad);
    take_str (&r->nodelists[i], &rec->nodelist, bad);
    put_str (&r->work_dirs[i], j->cwd, bad);
    take_str (&r->std_outs[i], &rec->std_out, bad);
    take_str (&r->std_errs[i], &rec->std_err, bad);
    take_str (&r->dependencies[i], &rec->dependency, bad);
    take_str (&r->accounts[i], &rec->account, bad);
    put_str (&r->commands[i], j->command, bad);
    take_str (&r->req_nodelists[i], &rec->req_nodelist, bad);
    take_str (&r->exc_nodelists[i], &rec->exc_nodelist, bad);
    take_str (&r->submit_hosts[i], &rec->submit_host, bad);
    take_str (&r->std_ins[i], &rec->std_in, bad);
    take_str (&r->licenses[i], &rec->licenses_shown, bad);
    put_str (&r->mail_users[i], rec->mail_user, bad);
    put_str (&r->comments[i], j->comment, bad);
}

/* Entry i's numbers. */
static void lists_nums (const struct job *j, const struct msg_job_rec *rec,
                        size_t i, struct msg_job_info_reply *r)
{
    r->job_ids[i] = rec->id;
    r->nnodes[i] = rec->nnodes;
    r->ncpus[i] = rec->ncpus;
    r->time_limits[i] = rec->time_limit;
    r->start_times[i] = (uint32_t)rec->start_time;
    r->nsteps[i] = rec->nsteps;
    r->end_times[i] = (uint32_t)rec->end_time;
    r->exit_codes[i] = rec->exit_rc;
    r->array_job_ids[i] = rec->array_job_id;
    r->array_task_ids[i] = rec->array_task_id;
    r->submit_times[i] = (uint32_t)rec->submit_time;
    r->batch_flags[i] = rec->batch_id != 0;
    r->restarts[i] = rec->restarts;
    r->expected_starts[i] = (uint32_t)rec->expected_start;
    r->priorities[i] = rec->priority;
    r->uids[i] = rec->uid;
    r->gids[i] = rec->gid;
    r->nices[i] = j->nice;
    r->ntasks[i] = rec->ntasks;
    r->cpus_per_task[i] = rec->cpus_per_task;
    r->mem_per_node[i] = clamp_u32 (rec->mem_per_node);
    r->mem_per_cpu[i] = clamp_u32 (rec->mem_per_cpu);
    r->eligible_times[i] = (uint32_t)rec->eligible_time;
    r->requeues[i] = rec->requeue;
    r->mail_types[i] = rec->mail_type;
    r->time_mins[i] = j->time_min;
    r->min_cpus[i] = rec->min_cpus;
    r->min_tmps[i] = clamp_u32 (rec->min_tmp);
    r->nnodes_maxs[i] = rec->nnodes_max;
}

/* About what entry i adds to the encoded answer: its strings, and at
 * most 5 bytes of msgpack per string header or number. */
static size_t lists_entry_bytes (const struct msg_job_info_reply *r, size_t i)
{
    size_t n = 0;

#define STR_BYTES(f) n += 5 + (r->f[i] ? strlen (r->f[i]) : 0);
#define NUM_BYTES(f) n += 5;
    JOB_INFO_STRS (STR_BYTES)
    JOB_INFO_NUMS (NUM_BYTES)
#undef STR_BYTES
#undef NUM_BYTES
    return n;
}

static int lists_alloc (struct msg_job_info_reply *r, size_t n)
{
    bool bad = false;

#define ALLOC(f) \
    r->f = calloc (n + 1, sizeof (*r->f)), r->f##_count = n, bad |= !r->f;
    JOB_INFO_STRS (ALLOC)
    JOB_INFO_NUMS (ALLOC)
#undef ALLOC
    return bad ? -1 : 0;
}

static void lists_count (struct msg_job_info_reply *r, size_t n)
{
#define COUNT(f) r->f##_count = (uint32_t)n;
    JOB_INFO_STRS (COUNT)
    JOB_INFO_NUMS (COUNT)
#undef COUNT
}

/* Entry i of the lists; its size. -1 ENOMEM. */
static long lists_put (const struct job *j, struct msg_job_rec *rec, size_t i,
                       struct msg_job_info_reply *r)
{
    bool bad = false;

    lists_strs (j, rec, i, r, &bad);
    lists_nums (j, rec, i, r);
    return bad ? -1 : (long)lists_entry_bytes (r, i);
}

/* ---- records (2.12) ---------------------------------------------------- */

static int records_alloc (struct msg_job_info_reply *r, size_t n)
{
    r->jobs = calloc (n + 1, sizeof (*r->jobs));
    return r->jobs ? 0 : -1;
}

/* Record i, encoded; its size. -1 ENOMEM. */
static long records_put (const struct msg_job_rec *rec, size_t i,
                         struct msg_job_info_reply *r)
{
    struct proto_bin *b = &r->jobs[i];
    size_t len;

    if (proto_encode_sparse (MSG_JOB_REC, rec, &b->data, &len) < 0)
        return -1;
    b->len = (uint32_t)len;
    r->jobs_count = (uint32_t)i + 1;
    return (long)len;
}

/* ---- one page ---------------------------------------------------------- */

/* Job j as its record, live fields filled, into entry i; its size. */
static long job_info_put (const struct ctld *ctx, const struct prio_pass *pp,
                          const struct msg_job_info *m, const struct job *j,
                          size_t i, struct msg_job_info_reply *r)
{
    struct msg_job_rec rec;
    long n = -1;

    if (job_rec_fill (ctx, j, JOB_REC_ANSWER, &rec) < 0)
        return -1;
    if (job_rec_live (ctx, pp, j, &rec) == 0)
        n = m->records ? records_put (&rec, i, r) : lists_put (j, &rec, i, r);
    job_rec_release (&rec);
    return n;
}

/* One page: the candidates in id order until about JOB_INFO_PAGE_BYTES
 * (at least one job; one job's fields are bounded far below the frame
 * limit), more_after naming the last when some are left. */
static int job_info_fill (const struct ctld *ctx, const struct msg_job_info *m,
                          struct msg_job_info_reply *r)
{
    size_t n = 0, i = 0, bytes = 0;
    const struct job **v = info_candidates (ctx, m, &n);
    bool bad = !v;
    struct prio_pass pp;

    if (!bad)
        bad = (m->records ? records_alloc (r, n) : lists_alloc (r, n)) < 0;
    prio_pass_begin (ctx, ctld_now (ctx), &pp);
    while (i < n && !bad) {
        long b = job_info_put (ctx, &pp, m, v[i], i, r);
        bad = b < 0;
        bytes += b < 0 ? 0 : (size_t)b;
        i++;
        if (bytes >= JOB_INFO_PAGE_BYTES && i < n) {
            r->more_after = v[i - 1]->id;
            break;
        }
    }
    free (v);
    if (bad)
        return -1; /* counts still cover every slot: proto_clear frees */
    if (!m->records)
        lists_count (r, i);
    return 0;
}

int job_info_build (const struct ctld *ctx, const struct msg_job_info *m,
                    struct msg_job_info_reply *out, arbor_error_t *err)
{
    memset (out, 0, sizeof (*out));
    errno = EINVAL;
    if (m->job_ids_count > INFO_MAX_IDS)
        return errprintf (err, "job_ids: %u entries, at most %d",
                          m->job_ids_count, INFO_MAX_IDS);
    if (m->users_count > INFO_MAX_NAMES)
        return errprintf (err, "users: %u entries, at most %d", m->users_count,
                          INFO_MAX_NAMES);
    if (m->states_count > INFO_MAX_NAMES)
        return errprintf (err, "states: %u entries, at most %d",
                          m->states_count, INFO_MAX_NAMES);
    if (m->job_id != 0 && !job_find (ctx, m->job_id)) {
        errno = ENOENT;
        return errprintf (err, "job %u not found", m->job_id);
    }
    if (job_info_fill (ctx, m, out) < 0) {
        proto_clear (MSG_JOB_INFO_REPLY, out);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}
