/* task_env.c - task environments; see task_env.h.
 *
 * The environment starts from the launcher's own (srun's --export=ALL) and
 * then gets the step's variables under both their Slurm and Arbor names, so
 * Slurm-aware programs (MPI libraries, scripts reading SLURM_PROCID) work
 * unchanged. SLURM_LAUNCH_NODE_IPADDR and SLURM_SRUN_COMM_HOST are the
 * launcher's I/O address: the host the launcher ran on, known without a
 * (blocking) reverse lookup; SLURM_SUBMIT_HOST too, unless the launcher
 * sent the allocation's (a host name, as Slurm's). The full list, and
 * where each of the job's other variables comes from: docs/environment.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distrib.h"
#include "hostlist.h"
#include "rlimits.h"
#include "task_env.h"

/* Set every name in the NULL-terminated list to 'value'. */
static int env_set_names (struct env *e, const char *value, ...)
{
    va_list ap;
    const char *key;
    int rc = 0;

    va_start (ap, value);
    while (rc == 0 && (key = va_arg (ap, const char *)))
        rc = env_set (e, key, value);
    va_end (ap);
    return rc;
}

static int env_set_u32 (struct env *e, uint32_t v, const char *k1,
                        const char *k2, const char *k3)
{
    char buf[16];

    snprintf (buf, sizeof (buf), "%u", v);
    return env_set_names (e, buf, k1, k2, k3, (const char *)NULL);
}

static uint32_t count_hosts (const char *expr, uint32_t fallback)
{
    struct hostlist *hl = hostlist_create (expr, NULL);
    size_t n = hl ? hostlist_count (hl) : 0;

    hostlist_destroy (hl);
    return n ? (uint32_t)n : fallback;
}

/* The batch script is the job's one "task" on its first node; the
 * job's counts and layout (SLURM_NNODES, SLURM_NTASKS when asked,
 * SLURM_TASKS_PER_NODE, SLURM_SUBMIT_*...) come from the controller in
 * its environment, and it has no step variables: a step started inside
 * it must not inherit any. */
static int env_set_batch (struct env *e, const struct msg_stepd_init *in)
{
    if (env_set_u32 (e, in->job_id, "SLURM_JOB_ID", "ARBOR_JOB_ID",
                     "SLURM_JOBID")
            < 0
        || env_set_u32 (e, 0, "SLURM_PROCID", "ARBOR_PROCID", NULL) < 0
        || env_set_u32 (e, 0, "SLURM_LOCALID", "ARBOR_LOCALID", NULL) < 0
        || env_set_u32 (e, 0, "SLURM_NODEID", "ARBOR_NODEID", NULL) < 0)
        return -1;
    return 0;
}

/* srun -m: SLURM_DISTRIBUTION ("block", "cyclic", "plane" with
 * SLURM_DIST_PLANESIZE, "arbitrary") and SLURM_GTIDS, the ranks of this
 * node (first..first+n-1 for block when s->ranks is NULL). */
static int env_set_placement (struct env *e, const struct env_step *s,
                              uint32_t first, uint32_t n)
{
    const char *dist = s->init->distribution;
    enum distrib d = DISTRIB_BLOCK;
    uint32_t plane = 0;
    char *gtids = malloc ((size_t)n * 11 + 1), *p = gtids;
    int rc;

    if (!gtids)
        return -1;
    *p = '\0';
    for (uint32_t i = 0; i < n; i++)
        p += sprintf (p, "%s%u", i ? "," : "",
                      s->ranks ? s->ranks[i] : first + i);
    rc = env_set (e, "SLURM_GTIDS", gtids);
    free (gtids);
    if (dist && *dist && distrib_parse (dist, &d, &plane, NULL) < 0)
        d = DISTRIB_BLOCK; /* the stepd checked it (place.h) */
    if (rc < 0 || env_set (e, "SLURM_DISTRIBUTION", distrib_name (d)) < 0
        || (d == DISTRIB_PLANE
            && env_setf (e, "SLURM_DIST_PLANESIZE", "%u", plane) < 0))
        return -1;
    return 0;
}

/* Set name to v, or, under srun -E, only where the launcher's
 * environment has no value. */
static int env_set_kept (struct env *e, bool keep, uint32_t v, const char *name)
{
    char buf[16];

    snprintf (buf, sizeof (buf), "%u", v);
    return keep ? env_set_default (e, name, buf) : env_set (e, name, buf);
}

/* The step's counts. srun -E (preserve_env) passes SLURM_NTASKS and
 * SLURM_JOB_NUM_NODES through as the launcher had them, with their old
 * names SLURM_NPROCS and SLURM_NNODES; the step's own names are set. */
static int env_set_counts (struct env *e, const struct msg_stepd_init *in,
                           uint32_t total, uint32_t nnodes)
{
    bool keep = in->preserve_env;

    if (env_set_kept (e, keep, total, "SLURM_NTASKS") < 0
        || env_set_kept (e, keep, total, "SLURM_NPROCS") < 0
        || env_set_u32 (e, total, "ARBOR_NTASKS", "SLURM_STEP_NUM_TASKS", NULL)
               < 0
        || env_set_kept (e, keep, nnodes, "SLURM_NNODES") < 0
        || env_set_u32 (e, nnodes, "SLURM_STEP_NUM_NODES", "ARBOR_NNODES", NULL)
               < 0
        || env_set_kept (e, keep, count_hosts (in->job_nodelist, nnodes),
                         "SLURM_JOB_NUM_NODES")
               < 0)
        return -1;
    return 0;
}

/* The launcher's resource limits (common/spec/rlimits.h) are for the stepd,
 * which sets them (task_limits.c), not for the task. */
static int env_unset_rlimits (struct env *e)
{
    char key[40];

    for (size_t i = 0; i < RLIMITS_N; i++) {
        snprintf (key, sizeof (key), RLIMITS_ENV_PREFIX "%s", rlimits_name (i));
        if (env_unset (e, key) < 0 && errno == ENOMEM)
            return -1;
    }
    return 0;
}

/* Ids and the layout: who this task is among the step's tasks. */
static int env_set_layout (struct env *e, const struct env_step *s,
                           uint32_t local)
{
    const struct msg_stepd_init *in = s->init;
    uint32_t nnodes = in->tasks_count;
    uint32_t first = layout_first_rank (in->tasks, nnodes, in->node_id);
    uint32_t rank = s->ranks ? s->ranks[local] : first + local;
    uint32_t total = layout_total (in->tasks, nnodes);
    char *tpn = layout_tasks_per_node (in->tasks, nnodes);
    int rc;

    if (!tpn)
        return -1;
    rc = env_set_names (e, tpn, "SLURM_TASKS_PER_NODE",
                        "SLURM_STEP_TASKS_PER_NODE", (const char *)NULL);
    free (tpn);
    if (rc < 0 || env_set_placement (e, s, first, in->tasks[in->node_id]) < 0
        || env_set_u32 (e, in->job_id, "SLURM_JOB_ID", "ARBOR_JOB_ID",
                        "SLURM_JOBID")
               < 0
        || env_set_u32 (e, in->step_id, "SLURM_STEP_ID", "ARBOR_STEP_ID",
                        "SLURM_STEPID")
               < 0
        || env_set_u32 (e, rank, "SLURM_PROCID", "ARBOR_PROCID", NULL) < 0
        || env_set_u32 (e, local, "SLURM_LOCALID", "ARBOR_LOCALID", NULL) < 0
        || env_set_u32 (e, in->node_id, "SLURM_NODEID", "ARBOR_NODEID", NULL)
               < 0
        || env_set_counts (e, in, total, nnodes) < 0)
        return -1;
    return 0;
}

/* Where the job came from: SLURM_SUBMIT_DIR and SLURM_SUBMIT_HOST are
 * the allocation's, so the launcher's values (from arbor alloc, the batch
 * script, or arbor run itself) win; without them, the tasks' working
 * directory and the launcher's address. ARBOR_SUBMIT_DIR follows. And the
 * launcher's listener, as srun's "comm" host and port. */
static int env_set_submit (struct env *e, const struct msg_stepd_init *in)
{
    const char *host = in->io_host ? in->io_host : "";
    const char *cwd = in->cwd ? in->cwd : "";

    if (env_set_default (e, "SLURM_SUBMIT_DIR", cwd) < 0
        || env_set (e, "ARBOR_SUBMIT_DIR", env_get (e, "SLURM_SUBMIT_DIR")) < 0
        || env_set_default (e, "SLURM_SUBMIT_HOST", host) < 0
        || env_set (e, "SLURM_LAUNCH_NODE_IPADDR", host) < 0
        || env_set (e, "SLURM_SRUN_COMM_HOST", host) < 0
        || env_set_u32 (e, in->io_port, "SLURM_SRUN_COMM_PORT",
                        "SLURM_STEP_LAUNCHER_PORT", NULL)
               < 0)
        return -1;
    return 0;
}

/* This node: its name, and its place in the network as Slurm gives it
 * without a topology plugin (the node alone, of type "node"). */
static int env_set_node (struct env *e, const struct env_step *s)
{
    const char *node = s->node_name ? s->node_name : "";

    if (env_set_names (e, node, "SLURMD_NODENAME", "ARBOR_NODENAME",
                       "SLURM_TOPOLOGY_ADDR", (const char *)NULL)
            < 0
        || env_set (e, "SLURM_TOPOLOGY_ADDR_PATTERN", "node") < 0)
        return -1;
    return 0;
}

/* Names, places and resources of the step and the job. */
static int env_set_step (struct env *e, const struct env_step *s)
{
    const struct msg_stepd_init *in = s->init;
    const char *jnl = in->job_nodelist ? in->job_nodelist : "";
    const char *snl = in->step_nodelist ? in->step_nodelist : "";
    uint32_t cpus = in->node_id < in->cpus_count ? in->cpus[in->node_id] : 1;
    bool batch = in->step_id == STEP_ID_BATCH;

    if (env_set_names (e, jnl, "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                       "ARBOR_JOB_NODELIST", (const char *)NULL)
            < 0
        || (!batch
            && env_set_names (e, snl, "SLURM_STEP_NODELIST",
                              "ARBOR_STEP_NODELIST", (const char *)NULL)
                   < 0)
        || env_set_u32 (e, cpus, "SLURM_CPUS_ON_NODE", "ARBOR_CPUS_ON_NODE",
                        NULL)
               < 0
        || (in->cpus_per_task > 1
            && env_set_u32 (e, in->cpus_per_task, "SLURM_CPUS_PER_TASK", NULL,
                            NULL)
                   < 0)
        || (!batch && env_set_submit (e, in) < 0)
        || env_set_names (e, s->cluster ? s->cluster : "", "SLURM_CLUSTER_NAME",
                          "ARBOR_CLUSTER_NAME", (const char *)NULL)
               < 0
        || env_set_node (e, s) < 0)
        return -1;
    return 0;
}

/* The job's user, and USER/LOGNAME/HOME when the launcher's differ. */
static int env_set_user (struct env *e, const struct env_step *s)
{
    const struct msg_stepd_init *in = s->init;
    const char *user = in->user ? in->user : "";
    const char *name = in->job_name && *in->job_name ? in->job_name
                       : in->argv_count              ? in->argv[0]
                                                     : "";
    const char *cur = env_get (e, "USER");

    if (env_set (e, "SLURM_JOB_NAME", name) < 0
        || env_set (e, "SLURM_JOB_USER", user) < 0
        || env_set_u32 (e, in->uid, "SLURM_JOB_UID", NULL, NULL) < 0
        || env_set_u32 (e, in->gid, "SLURM_JOB_GID", NULL, NULL) < 0)
        return -1;
    if (*user && (!cur || strcmp (cur, user) != 0)) {
        if (env_set (e, "USER", user) < 0 || env_set (e, "LOGNAME", user) < 0)
            return -1;
        if (s->user_home && env_set (e, "HOME", s->user_home) < 0)
            return -1;
    }
    return 0;
}

struct env *env_task_create (const struct env_step *s, uint32_t local,
                             arbor_error_t *err)
{
    const struct msg_stepd_init *in = s->init;
    struct env *e;

    if (in->node_id >= in->tasks_count || local >= in->tasks[in->node_id]) {
        errno = EINVAL;
        errprintf (err, "task %u of node %u is not in the step layout", local,
                   in->node_id);
        return NULL;
    }
    if (!(e = env_create (in->env, in->env_count)) || env_unset_rlimits (e) < 0)
        goto nomem;
    if ((in->step_id == STEP_ID_BATCH ? env_set_batch (e, in)
                                      : env_set_layout (e, s, local))
            < 0
        || env_set_step (e, s) < 0 || env_set_user (e, s) < 0)
        goto nomem;
    if (s->gpus && gpu_env_set (e, s->gpus, local, err) < 0) {
        env_destroy (e); /* keeps errno; err says why */
        return NULL;
    }
    return e;
nomem:
    env_destroy (e);
    errno = ENOMEM;
    errprintf (err, "task environment: out of memory");
    return NULL;
}
