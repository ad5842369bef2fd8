/* info.c - the NODE_INFO and STEP_INFO answers (JOB_INFO's is
 * job_info.c), and giving memory back.
 *
 * Both are bounded, since any user may ask: NODE_INFO's host list may not
 * name more hosts than the cluster has nodes (nodes_hostlist refuses it
 * before expanding); STEP_INFO's filters are capped as JOB_INFO's.
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
#include "serve/job_info.h"
#include "sched/prio.h"
#include "job/job.h"
#include "sched/licenses.h"
#include "nodes/heard.h"
#include "nodes/node.h"
#include "nodes/node_gres.h"
#include "nodes/part.h"
#include "proto.h"
#include "job/step.h"
#include "job/steprec.h"

static uint32_t info_u32 (uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* strdup into a list slot, remembering failure in *bad. */
static void put_str (char **slot, const char *s, bool *bad)
{
    if (!(*slot = strdup (s ? s : "")))
        *bad = true;
}

/* Gres= and GresUsed= of a node. */
static void node_info_gres (const struct node *nd, char **gres, char **used,
                            bool *bad)
{
    char buf[2048];

    put_str (gres, node_gres_text (&nd->gres, false, buf, sizeof (buf)), bad);
    put_str (used, node_gres_text (&nd->gres, true, buf, sizeof (buf)), bad);
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
    ALLOC (features);
    ALLOC (features_active);
    ALLOC (gres);
    ALLOC (gres_used);
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
        put_str (&r->features[i], nd->features, &bad);
        put_str (&r->features_active[i], nd->features, &bad);
        node_info_gres (nd, &r->gres[i], &r->gres_used[i], &bad);
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

    return job_is_active (j) && job_info_wanted (&jm, j);
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
