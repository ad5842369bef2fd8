/* info.c - the NODE_INFO and JOB_INFO answers.
 *
 * Both are bounded, since any user may ask: NODE_INFO's host list may not
 * name more hosts than the cluster has nodes (nodes_hostlist refuses it
 * before expanding), and JOB_INFO lists at most MaxJobCount jobs. JOB_INFO
 * filters on the server, so that `arbor queue -u me` carries only what it
 * shows: job_id (one job, ENOENT if unknown), job_ids, users (names or
 * numeric uids) and states (as shown: PENDING, RUNNING, COMPLETING, ...,
 * any case); empty filters pass everything. Each filter list is capped
 * (INFO_MAX_IDS, INFO_MAX_NAMES entries) so that filtering stays cheap.
 *
 * JOB_INFO answers in pages, in job id order, each ending after about
 * JOB_INFO_PAGE_BYTES of job fields (a job's command alone may be 64
 * KiB): the request names the id to resume after, the answer the last id
 * it holds when more follow (the commands ask until done). So no amount
 * of data one user keeps makes anyone's listing exceed the frame limit.
 *
 * Building the answer may still fail (memory); serve.c then answers an
 * error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "job/batch.h"
#include "ctld.h"
#include "error.h"
#include "hostlist.h"
#include "serve/info.h"
#include "sched/prio.h"
#include "job/job.h"
#include "sched/licenses.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "proto.h"
#include "job/step.h"

#define INFO_MAX_IDS 4096  /* job_ids in a filter */
#define INFO_MAX_NAMES 256 /* users or states in a filter */

/* strdup into a list slot, remembering failure in *bad. */
static void put_str (char **slot, const char *s, bool *bad)
{
    if (!(*slot = strdup (s ? s : "")))
        *bad = true;
}

static int node_info_fill (const struct ctld *ctx, const size_t *idx, size_t n,
                           struct msg_node_info_reply *r)
{
    time_t now = time (NULL);
    bool bad = false;

#define ALLOC(f) \
    (r->f = calloc (n + 1, sizeof (*r->f)), r->f##_count = n, bad |= !r->f)
    ALLOC (names);
    ALLOC (states);
    ALLOC (reasons);
    ALLOC (addrs);
    ALLOC (partitions);
    ALLOC (cpus);
    ALLOC (alloc_cpus);
    ALLOC (real_memory);
    ALLOC (alloc_memory);
    ALLOC (cpu_loads);
    ALLOC (free_mems);
    ALLOC (cpu_speeds);
    ALLOC (not_responding);
    ALLOC (reason_uids);
    ALLOC (reason_times);
#undef ALLOC
    for (size_t i = 0; i < n && !bad; i++) {
        const struct node *nd = &ctx->nodes[idx[i]];
        put_str (&r->names[i], nd->name, &bad);
        put_str (&r->states[i], node_state_str (nd), &bad);
        put_str (&r->reasons[i], nd->reason, &bad);
        put_str (&r->addrs[i], nd->addr, &bad);
        put_str (&r->partitions[i], nd->partitions, &bad);
        r->cpus[i] = nd->cpus;
        r->alloc_cpus[i] = nd->alloc_cpus;
        r->real_memory[i] = nd->real_memory;
        r->alloc_memory[i] = nd->alloc_memory > UINT32_MAX
                                 ? UINT32_MAX
                                 : (uint32_t)nd->alloc_memory;
        r->cpu_loads[i] = nd->cpu_load;
        r->free_mems[i] = nd->free_mem;
        r->cpu_speeds[i] = nd->cpu_speed;
        r->not_responding[i] = !node_responding (nd, now);
        r->reason_uids[i] = nd->reason ? nd->reason_uid : 0;
        r->reason_times[i] =
            nd->reason && nd->reason_time > 0 ? (uint32_t)nd->reason_time : 0;
    }
    return bad ? -1 : 0;
}

int node_info_build (const struct ctld *ctx, const struct msg_node_info *m,
                     struct msg_node_info_reply *out, arbor_error_t *err)
{
    size_t n, *idx;
    int rc = 0;

    memset (out, 0, sizeof (*out));
    if (!(idx = nodes_select (ctx, m->nodelist ? m->nodelist : "", &n, err)))
        return -1;
    if (node_info_fill (ctx, idx, n, out) < 0) {
        proto_clear (MSG_NODE_INFO_REPLY, out);
        errno = ENOMEM;
        rc = errprintf (err, "out of memory");
    }
    free (idx);
    return rc;
}

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

/* Does job j pass the request's filters? */
static bool info_wanted (const struct msg_job_info *m, const struct job *j)
{
    return (m->job_id == 0 || j->id == m->job_id
            || (j->array_job_id && j->array_job_id == m->job_id))
           && (m->job_ids_count == 0 || info_has_id (m, j->id)
               || (j->array_job_id && info_has_id (m, j->array_job_id)))
           && (m->users_count == 0 || info_has_user (m, j))
           && (m->states_count == 0 || info_has_state (m, j));
}

/* The nodes of j's partition that 'mask' marks (its -w or -x), ranged;
 * "" when none. NULL with errno ENOMEM. */
static char *info_marked_nodes (const struct ctld *ctx, const struct job *j,
                                const bool *mask)
{
    const struct part *p = &ctx->parts[j->part];
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *ranged = NULL;

    if (!hl)
        return NULL;
    for (size_t k = 0; k < p->nnodes; k++)
        if (mask && mask[k]
            && hostlist_append (hl, ctx->nodes[p->nodes[k]].name) < 0)
            goto out;
    ranged = hostlist_ranged (hl);
out:
    hostlist_destroy (hl);
    return ranged;
}

static uint32_t info_u32 (uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* What arbor control show job shows besides the squeue fields (2.8). */
static void job_info_more (const struct ctld *ctx, const struct job *j,
                           size_t i, struct msg_job_info_reply *r, bool *bad)
{
    r->uids[i] = (uint32_t)j->uid;
    r->gids[i] = (uint32_t)j->gid;
    r->nices[i] = j->nice;
    r->ntasks[i] = j->req.ntasks;
    r->cpus_per_task[i] = j->req.cpus_per_task ? j->req.cpus_per_task : 1;
    r->mem_per_node[i] = info_u32 (j->req.mem_mb);
    r->mem_per_cpu[i] = info_u32 (j->req.mem_per_cpu_mb);
    r->eligible_times[i] = (uint32_t)j->eligible_time;
    r->requeues[i] = j->requeue;
    if (!(r->req_nodelists[i] = info_marked_nodes (ctx, j, j->required))
        || !(r->exc_nodelists[i] = info_marked_nodes (ctx, j, j->excluded)))
        *bad = true;
    put_str (&r->submit_hosts[i], j->batch ? j->batch->submit_host : "", bad);
    if (j->batch)
        *bad |= !(r->std_ins[i] = batch_output (ctx, j, 0));
    else
        put_str (&r->std_ins[i], "", bad);
    r->mail_types[i] = j->mail_type; /* mail.h */
    put_str (&r->comments[i], j->comment ? j->comment : "", bad);
    r->time_mins[i] = j->time_min;
    r->min_cpus[i] = j->req.mincpus;
    r->min_tmps[i] = info_u32 (j->req.tmp_mb);
    r->nnodes_maxs[i] = j->state == JOB_PENDING ? j->range.max : 0;
    put_str (&r->mail_users[i], j->mail_user ? j->mail_user : "", bad);
}

static void job_info_one (const struct ctld *ctx, const struct prio_pass *pp,
                          const struct job *j, size_t i,
                          struct msg_job_info_reply *r, bool *bad)
{
    uint64_t cpus = 0;

    for (size_t k = 0; k < j->nnodes; k++)
        cpus += j->nodes[k].cpus;
    if (j->nnodes == 0)
        cpus = (uint64_t)j->req.ntasks * j->req.cpus_per_task;
    r->job_ids[i] = j->id;
    put_str (&r->names[i], j->name, bad);
    put_str (&r->users[i], j->user, bad);
    put_str (&r->partitions[i], ctx->parts[j->part].name, bad);
    put_str (&r->states[i], job_state_shown (j), bad);
    put_str (&r->reasons[i], j->reason, bad);
    put_str (&r->nodelists[i], j->nodelist, bad);
    r->nnodes[i] = j->nnodes ? (uint32_t)j->nnodes : j->req.nnodes;
    r->ncpus[i] = cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
    r->time_limits[i] = j->time_limit;
    r->start_times[i] = (uint32_t)j->start_time;
    r->nsteps[i] = (uint32_t)steps_count (j);
    r->end_times[i] = (uint32_t)j->end_time;
    r->exit_codes[i] = j->exit_rc;
    r->array_job_ids[i] = j->array_job_id;
    r->array_task_ids[i] = j->array_task_id;
    r->submit_times[i] = (uint32_t)j->submit_time;
    put_str (&r->work_dirs[i], j->cwd, bad);
    if (j->batch) {
        if (!(r->std_outs[i] = batch_output (ctx, j, 1))
            || !(r->std_errs[i] = batch_output (ctx, j, 2)))
            *bad = true;
    } else {
        put_str (&r->std_outs[i], "", bad);
        put_str (&r->std_errs[i], "", bad);
    }
    put_str (&r->dependencies[i], j->dependency, bad);
    r->batch_flags[i] = j->batch != NULL;
    r->restarts[i] = j->restarts;
    r->expected_starts[i] =
        j->state == JOB_PENDING ? (uint32_t)j->expected_start : 0;
    put_str (&r->accounts[i], j->account, bad);
    put_str (&r->commands[i], j->command, bad);
    *bad |= !(r->licenses[i] = licenses_shown (j));
    job_info_more (ctx, j, i, r, bad);
    if (job_is_active (j)) { /* a running one keeps its start's (prio.c) */
        struct prio p;
        prio_job (ctx, pp, j, &p);
        r->priorities[i] = p.priority;
    }
}

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

/* About what entry i adds to the encoded answer: its strings, and at
 * most 5 bytes of msgpack per string header or number. */
static size_t job_info_entry_bytes (const struct msg_job_info_reply *r,
                                    size_t i)
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
        k += j->id > m->after_job_id && info_wanted (m, j);
    if (!(v = calloc (k + 1, sizeof (*v))))
        return NULL;
    *n = 0;
    for (const struct job *j = ctx->jobs; j && *n < k; j = j->next)
        if (j->id > m->after_job_id && info_wanted (m, j))
            v[(*n)++] = j;
    qsort (v, *n, sizeof (*v), info_by_id);
    return v;
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

#define ALLOC(f) \
    r->f = calloc (n + 1, sizeof (*r->f)), r->f##_count = n, bad |= !r->f;
    JOB_INFO_STRS (ALLOC)
    JOB_INFO_NUMS (ALLOC)
#undef ALLOC
    prio_pass_begin (ctx, ctld_now (ctx), &pp);
    while (i < n && !bad) {
        job_info_one (ctx, &pp, v[i], i, r, &bad);
        bytes += job_info_entry_bytes (r, i++);
        if (bytes >= JOB_INFO_PAGE_BYTES && i < n) {
            r->more_after = v[i - 1]->id;
            break;
        }
    }
    free (v);
    if (bad)
        return -1; /* counts still cover every slot: proto_clear frees */
#define COUNT(f) r->f##_count = (uint32_t)i;
    JOB_INFO_STRS (COUNT)
    JOB_INFO_NUMS (COUNT)
#undef COUNT
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

/* ---- STEP_INFO ------------------------------------------------------------
 */

static bool step_info_wanted (const struct msg_step_info *m,
                              const struct job *j)
{
    struct msg_job_info jm = {
        .job_ids = m->job_ids,
        .job_ids_count = m->job_ids_count,
        .users = m->users,
        .users_count = m->users_count,
    };

    return job_is_active (j) && info_wanted (&jm, j);
}

/* What arbor control show step shows besides squeue -s (2.8): the
 * step's cores and memory on all its nodes (a step that asked for no
 * memory may use the job's on each node). */
static void step_info_more (const struct job *j, const struct step *s, size_t i,
                            struct msg_step_info_reply *r)
{
    uint64_t cpus = 0, mem = 0;

    for (size_t k = 0; k < s->nnodes; k++) {
        cpus += s->cpus[k];
        mem += s->mem_mb ? s->mem_mb : j->nodes[s->jnodes[k]].mem_mb;
    }
    r->uids[i] = (uint32_t)j->uid;
    r->cpus[i] = info_u32 (cpus);
    r->mem_mbs[i] = info_u32 (mem);
}

static void step_info_one (const struct ctld *ctx, const struct job *j,
                           const struct step *s, size_t i,
                           struct msg_step_info_reply *r, bool *bad)
{
    r->job_ids[i] = j->id;
    r->step_ids[i] = s->id;
    put_str (&r->names[i], s->name, bad);
    put_str (&r->users[i], j->user, bad);
    put_str (&r->partitions[i], ctx->parts[j->part].name, bad);
    r->start_times[i] = (uint32_t)s->start_time;
    put_str (&r->nodelists[i], s->nodelist, bad);
    r->ntasks[i] = s->ntasks;
    r->array_job_ids[i] = j->array_job_id;
    r->array_task_ids[i] = j->array_task_id;
    step_info_more (j, s, i, r);
}

int step_info_build (const struct ctld *ctx, const struct msg_step_info *m,
                     struct msg_step_info_reply *r, arbor_error_t *err)
{
    size_t n = 0, i = 0;
    bool bad = false;

    memset (r, 0, sizeof (*r));
    if (m->job_ids_count > INFO_MAX_IDS || m->users_count > INFO_MAX_NAMES) {
        errno = EINVAL;
        return errprintf (err, "too many job ids or users in the filter");
    }
    for (const struct job *j = ctx->jobs; j; j = j->next)
        if (step_info_wanted (m, j))
            n += steps_count (j);
#define ALLOC(f) \
    (r->f = calloc (n + 1, sizeof (*r->f)), r->f##_count = n, bad |= !r->f)
    ALLOC (job_ids);
    ALLOC (step_ids);
    ALLOC (names);
    ALLOC (users);
    ALLOC (partitions);
    ALLOC (start_times);
    ALLOC (nodelists);
    ALLOC (ntasks);
    ALLOC (array_job_ids);
    ALLOC (array_task_ids);
    ALLOC (uids);
    ALLOC (cpus);
    ALLOC (mem_mbs);
#undef ALLOC
    for (const struct job *j = ctx->jobs; j && !bad; j = j->next)
        if (step_info_wanted (m, j))
            for (const struct step *s = j->steps; s; s = s->next)
                step_info_one (ctx, j, s, i++, r, &bad);
    if (bad) {
        proto_clear (MSG_STEP_INFO_REPLY, r);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}

#define CTLD_MMAP_THRESHOLD (256 * 1024) /* bytes */

void ctld_mem_init (void)
{
    (void)mallopt (M_MMAP_THRESHOLD, CTLD_MMAP_THRESHOLD);
    (void)mallopt (M_TRIM_THRESHOLD, 2 * CTLD_MMAP_THRESHOLD);
}

void ctld_trim (size_t bytes)
{
    if (bytes >= CTLD_TRIM_MIN)
        (void)malloc_trim (0);
}
