/* batch.c - batch jobs, controller side: their submission (arrays
 * too) and the launch of their script.
 *
 * The story of a batch job here (see batch.h for the whole):
 *     batch_create   at submission (batch_files.c): the script is checked
 *                    ("#!", no NUL) and kept with its arguments,
 *                    environment and output patterns in j->batch
 *     batch_start    the job got its nodes: the batch step is created on
 *                    the first node (step_create_batch, its credential
 *                    sealed) and, once that and batch_launched are
 *                    committed, LAUNCH goes to that node's noded
 *                    (batch_send), with the job's environment (batch_env)
 *                    and the output paths expanded (batch_path,
 *                    batch_files.c)
 *     batch_launched the noded's LAUNCH_REPLY: a failure ends the job
 *                    FAILED, naming the node and the reason
 *     JS_BATCH_DONE  the script's STEP_COMPLETE: the job ends with it
 *                    (jobstate.c)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrayspec.h"
#include "authpool.h"
#include "job/batch.h"
#include "conf.h"
#include "ctld.h"
#include "env.h"
#include "fname.h"
#include "job/job.h"
#include "layout.h"
#include "nodes/heard.h"
#include "log.h"
#include "state/persist.h"
#include "state/persist_restore.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "nodes/part.h"
#include "job/prolog.h"
#include "sched/sched.h"
#include "job/own_launch.h"
#include "job/step.h"
#include "job/term.h"
#include "timestr.h"
#include "job/submit.h"
#include "job/batch_files.h"
#include "job/jobs.h"

/* ---- arrays -------------------------------------------------------------- */

/* Queue the other tasks of j's array (j is queued, the first). */
static int batch_queue_tasks (struct ctld *ctx, struct job *j,
                              const struct arrayspec *a, arbor_error_t *err)
{
    for (size_t i = 1; i < a->n; i++) {
        struct job *t = job_clone (ctx, j);
        if (!t) {
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
        t->array_task_id = a->ids[i];
        if (job_enqueue (ctx, t, err) < 0) {
            job_destroy (t);
            return -1;
        }
    }
    return 0;
}

/* Job j as the first task of the array 'spec'. */
static int batch_submit_array (struct ctld *ctx, struct job *j,
                               const char *spec, arbor_error_t *err)
{
    struct arrayspec a;
    int rc;

    if (arrayspec_parse (
            spec, ctx->conf->max_array_size ? ctx->conf->max_array_size - 1 : 0,
            &a, err)
        < 0)
        return -1;
    j->array_task_id = a.ids[0];
    j->array_throttle = a.throttle;
    j->array_count = (uint32_t)a.n;
    j->array_min = a.ids[0];
    j->array_max = a.ids[a.n - 1];
    if (job_submit_check (ctx, j, a.n, err) < 0
        || job_enqueue (ctx, j, err) < 0) {
        arrayspec_clear (&a);
        return -1;
    }
    j->array_job_id = j->id;
    rc = batch_queue_tasks (ctx, j, &a, err);
    arrayspec_clear (&a);
    if (rc < 0) /* the tasks queued so far stay: they are valid jobs */
        log_err ("job %u: array cut short: %s", j->id, err->text);
    return 0;
}

int batch_submit (struct ctld *ctx, struct job *j, const char *array,
                  arbor_error_t *err)
{
    if (array && *array)
        return batch_submit_array (ctx, j, array, err);
    if (job_submit_check (ctx, j, 1, err) < 0)
        return -1;
    return job_enqueue (ctx, j, err);
}

/* ---- the launch ------------------------------------------------------- */

/* Variables of the submitter's environment that describe a job or step
 * (sbatch run inside another job): the batch job's own replace them. */
static bool batch_env_reserved (const char *kv)
{
    static const char *const prefixes[] = {
        "SLURM_STEP_",
        "SLURM_JOB_",
        "SLURM_ARRAY_",
        "SLURM_MEM_PER",
        "SLURM_NTASKS",
        "SLURM_NPROCS",
        "SLURM_NNODES",
        "SLURM_NODELIST=",
        "SLURM_JOBID=",
        "SLURM_STEPID=",
        "SLURM_PROCID=",
        "SLURM_LOCALID=",
        "SLURM_NODEID=",
        "SLURM_TASK_PID=",
        "SLURM_TASKS_PER_NODE=",
        "SLURM_CPUS_ON_NODE=",
        "SLURM_CPUS_PER_TASK=",
        "SLURM_GTIDS=",
        "SLURM_LAUNCH_NODE_IPADDR=",
        "SLURMD_NODENAME=",
        "ARBOR_JOB_",
        "ARBOR_STEP_",
        "ARBOR_PROCID=",
        "ARBOR_LOCALID=",
        "ARBOR_NODEID=",
        "ARBOR_NTASKS=",
        "ARBOR_NNODES=",
        "ARBOR_NODENAME=",
        "ARBOR_CPUS_ON_NODE=",
        "ENVIRONMENT=",
    };

    for (size_t i = 0; i < sizeof (prefixes) / sizeof (prefixes[0]); i++)
        if (!strncmp (kv, prefixes[i], strlen (prefixes[i])))
            return true;
    return false;
}

/* The job's counts, as sbatch's output variables name them: SLURM_NTASKS
 * from -n, else -N times --ntasks-per-node (as sbatch derives it). */
static int batch_env_counts (struct env *e, const struct job *j)
{
    uint32_t ntasks = j->batch->ntasks_asked
                          ? j->batch->ntasks_asked
                          : j->req.nnodes * j->req.ntasks_per_node;
    uint32_t *cpus = calloc (j->nnodes + 1, sizeof (*cpus));
    uint32_t *tasks = calloc (j->nnodes + 1, sizeof (*tasks));
    char *cpn = NULL, *tpn = NULL;
    int rc = -1;

    if (!cpus || !tasks)
        goto out;
    for (size_t k = 0; k < j->nnodes; k++) {
        cpus[k] = j->nodes[k].cpus;
        tasks[k] = j->nodes[k].tasks;
    }
    if (!(cpn = layout_tasks_per_node (cpus, j->nnodes))
        || !(tpn = layout_tasks_per_node (tasks, j->nnodes)))
        goto out;
    rc = env_set (e, "SLURM_JOB_CPUS_PER_NODE", cpn)
         | env_set (e, "SLURM_TASKS_PER_NODE", tpn)
         | env_setf (e, "SLURM_JOB_NUM_NODES", "%zu", j->nnodes)
         | env_setf (e, "SLURM_NNODES", "%zu", j->nnodes);
    if (rc == 0 && ntasks)
        rc = env_setf (e, "SLURM_NTASKS", "%u", ntasks)
             | env_setf (e, "SLURM_NPROCS", "%u", ntasks);
    if (rc == 0 && j->batch->cpus_per_task_set)
        rc = env_setf (e, "SLURM_CPUS_PER_TASK", "%u", j->req.cpus_per_task);
    if (rc == 0 && j->req.ntasks_per_node)
        rc =
            env_setf (e, "SLURM_NTASKS_PER_NODE", "%u", j->req.ntasks_per_node);
    if (rc == 0 && j->req.mem_mb)
        rc = env_setf (e, "SLURM_MEM_PER_NODE", "%llu",
                       (unsigned long long)j->req.mem_mb);
    if (rc == 0 && j->req.mem_per_cpu_mb)
        rc = env_setf (e, "SLURM_MEM_PER_CPU", "%llu",
                       (unsigned long long)j->req.mem_per_cpu_mb);
out:
    free (cpus);
    free (tasks);
    free (cpn);
    free (tpn);
    return rc < 0 ? -1 : 0;
}

/* "[type:]N" of a GPU request item into buf. */
static const char *batch_gpus_text (const struct gres_req *r, char *buf,
                                    size_t len)
{
    snprintf (buf, len, "%s%s%llu", r->type, *r->type ? ":" : "",
              (unsigned long long)r->count);
    return buf;
}

/* The GPU options, as sbatch's output variables echo them (the devices'
 * own variables, SLURM_JOB_GPUS..., are the stepd's: stepd/gpus.h). */
static int batch_env_gpus (struct env *e, const struct job *j)
{
    const struct job_gres *g = &j->gres;
    char buf[96];
    int rc = 0;

    if (g->per_job.count)
        rc |= env_set (e, "SLURM_GPUS",
                       batch_gpus_text (&g->per_job, buf, sizeof (buf)));
    if (g->per_task.count)
        rc |= env_set (e, "SLURM_GPUS_PER_TASK",
                       batch_gpus_text (&g->per_task, buf, sizeof (buf)));
    for (size_t i = 0; i < g->per_node.n; i++)
        if (!strcmp (g->per_node.v[i].name, "gpu"))
            rc |= env_set (
                e, "SLURM_GPUS_PER_NODE",
                batch_gpus_text (&g->per_node.v[i], buf, sizeof (buf)));
    if (g->cpus_per_gpu)
        rc |= env_setf (e, "SLURM_CPUS_PER_GPU", "%u", g->cpus_per_gpu);
    if (g->mem_per_gpu)
        rc |= env_setf (e, "SLURM_MEM_PER_GPU", "%llu",
                        (unsigned long long)g->mem_per_gpu);
    if (g->gpu_bind)
        rc |= env_set (e, "SLURM_GPU_BIND", g->gpu_bind);
    return rc < 0 ? -1 : 0;
}

/* An array task's variables. */
static int batch_env_array (struct env *e, const struct job *j)
{
    if (!j->array_job_id)
        return 0;
    return env_setf (e, "SLURM_ARRAY_JOB_ID", "%u", j->array_job_id)
           | env_setf (e, "SLURM_ARRAY_TASK_ID", "%u", j->array_task_id)
           | env_setf (e, "SLURM_ARRAY_TASK_COUNT", "%u", j->array_count)
           | env_setf (e, "SLURM_ARRAY_TASK_MIN", "%u", j->array_min)
           | env_setf (e, "SLURM_ARRAY_TASK_MAX", "%u", j->array_max);
}

/* When the job started and must end (a year on for a job without a
 * limit, as slurmctld says), and what it waited for. */
static int batch_env_times (struct env *e, const struct job *j)
{
    uint64_t start = (uint64_t)j->start_time, limit = 365ULL * 24 * 60 * 60;

    if (j->time_limit && j->time_limit != TIME_INFINITE)
        limit = (uint64_t)j->time_limit * 60;
    return env_setf (e, "SLURM_JOB_START_TIME", "%llu",
                     (unsigned long long)start)
           | env_setf (e, "SLURM_JOB_END_TIME", "%llu",
                       (unsigned long long)(start + limit))
           | (j->dependency && j->dependency[0]
                  ? env_set (e, "SLURM_JOB_DEPENDENCY", j->dependency)
                  : 0);
}

/* The script's environment: the submitter's, less what described another
 * job, plus the job's variables (the stepd adds the node's). Caller
 * frees with env_strv_free. NULL with errno ENOMEM. */
static char **batch_env (const struct ctld *ctx, const struct job *j,
                         uint32_t *count)
{
    const struct batch *b = j->batch;
    struct env *e = env_create (NULL, 0);
    int rc = e ? 0 : -1;

    for (size_t i = 0; rc == 0 && i < b->nenv; i++)
        if (!batch_env_reserved (b->env[i]))
            rc = env_put (e, b->env[i]) < 0 && errno == ENOMEM ? -1 : 0;
    if (rc == 0)
        rc = env_set (e, "ENVIRONMENT", "BATCH")
             | env_set (e, "SLURM_JOB_PARTITION", ctx->parts[j->part].name)
             | env_set_default (e, "SLURM_SUBMIT_DIR", j->cwd)
             | env_set (e, "SLURM_SUBMIT_HOST", b->submit_host)
             | env_set (e, "SLURM_GTIDS", "0")
             | env_setf (e, "SLURM_JOB_NAME", "%s", j->name)
             | batch_env_counts (e, j) | batch_env_array (e, j)
             | batch_env_gpus (e, j) | batch_env_times (e, j);
    if (rc == 0 && j->restarts)
        rc = env_setf (e, "SLURM_RESTART_COUNT", "%u", j->restarts);
    if (rc == 0 && j->account[0]) /* sbatch -A: the script's steps too */
        rc = env_set (e, "SLURM_JOB_ACCOUNT", j->account);
    if (rc == 0 && j->qos && j->qos[0])
        rc = env_set (e, "SLURM_JOB_QOS", j->qos);
    if (rc < 0) {
        env_destroy (e);
        errno = ENOMEM;
        return NULL;
    }
    *count = (uint32_t)env_count (e);
    return env_take (e);
}

/* The script's argv: a placeholder for its path (the stepd's file),
 * then its arguments. */
static char **batch_argv (const struct batch *b, uint32_t *count)
{
    char **v = calloc (b->argc + 2, sizeof (char *));

    if (!v || !(v[0] = strdup ("batch")))
        goto fail;
    for (size_t i = 0; i < b->argc; i++)
        if (!(v[i + 1] = strdup (b->argv[i])))
            goto fail;
    *count = (uint32_t)b->argc + 1;
    return v;
fail:
    batch_strv_free (v, b->argc + 1);
    return NULL;
}

/* The noded's answer to the batch step's LAUNCH. */
static void batch_launched (struct ctld *ctx, const struct nodecomm_result *res,
                            void *arg)
{
    struct job *j = job_find (ctx, res->job_id);
    char why[PROTO_MAX_NAME];

    (void)arg;
    heard_nodecomm (ctx, res);
    if (j && res->errnum) {
        j->batch_reported = true; /* no stepd to hear from */
        persist_job (ctx, j);
    }
    if (!j || !j->batch || j->state != JOB_RUNNING)
        return;
    if (res->errnum == 0) {
        log_verbose ("job %u: batch script started on %s", j->id,
                     ctx->nodes[res->node].name);
        return;
    }
    if (res->text
        && (!strcmp (res->text, "Prolog error")
            || !strcmp (res->text, "Prolog timed out"))) {
        prolog_failed (ctx, j, res->node, res->text); /* requeued */
        return;
    }
    snprintf (why, sizeof (why), "batch launch failed on %s: %s",
              ctx->nodes[res->node].name,
              res->text ? res->text : strerror (res->errnum));
    log_info ("job %u: %s", j->id, why);
    job_end (ctx, j, JOB_FAILED, why);
}

/* Build and send LAUNCH for the batch step (st: its layout, credential). */
static int batch_send (struct ctld *ctx, struct job *j,
                       const struct msg_step_created *st)
{
    const struct batch *b = j->batch;
    char *slice[] = { ctx->nodes[j->nodes[0].node].name, NULL };
    struct msg_launch m = launch_msg_own (ctx, j, STEP_ID_BATCH, st);
    int rc = -1;

    m.slice = slice;
    m.slice_count = 1;
    m.cwd = j->cwd;
    m.script = b->script;
    m.script_len = (uint32_t)b->script_len;
    m.open_append = b->append;
    m.slurm_names = b->slurm_names;
    m.argv = batch_argv (b, &m.argv_count);
    m.env = batch_env (ctx, j, &m.env_count);
    m.std_out = batch_path (ctx, j, b->std_out, batch_default_out (j));
    m.std_err = batch_path (ctx, j, b->std_err, NULL);
    m.std_in = batch_path (ctx, j, b->std_in, NULL);
    if (m.argv && m.env && m.std_out && m.std_err && m.std_in) {
        nodecomm_launch (ctx, j->nodes[0].node, &m,
                         m.budget_ms + OWN_LAUNCH_SLACK_MS, batch_launched,
                         NULL);
        rc = 0;
    }
    batch_strv_free (m.argv, m.argv_count);
    env_strv_free (m.env);
    free (m.std_out);
    free (m.std_err);
    free (m.std_in);
    return rc;
}

/* A batch step waiting for its record (batch_launched, the step) to be
 * committed before its LAUNCH goes out. */
struct batch_sending {
    struct ctld *ctx;
    uint32_t job_id, restarts;
    struct msg_step_created st; /* owned */
};

static void batch_sending_free (struct batch_sending *bs)
{
    proto_clear (MSG_STEP_CREATED, &bs->st);
    free (bs);
}

/* The batch step is recorded (or not): only now does its LAUNCH go out,
 * so that a restarted controller knows whether the script may have run:
 * batch_launched unrecorded means it was never sent (persist_resume). */
static void batch_recorded_cb (int errnum, const char *err, void *arg)
{
    struct batch_sending *bs = arg;
    struct ctld *ctx = bs->ctx;
    struct job *j = job_find (ctx, bs->job_id);

    if (!j || j->state != JOB_RUNNING || j->completing
        || j->restarts != bs->restarts) {
        batch_sending_free (bs); /* it ended while it waited */
        return;
    }
    if (errnum) { /* the store tries its writes again until they land */
        log_verbose ("job %u: batch step not recorded yet: %s", j->id, err);
        if (persist_then (ctx, batch_recorded_cb, bs) == 0)
            return;
        batch_sending_free (bs);
        job_end (ctx, j, JOB_FAILED, "batch launch: out of memory");
        return;
    }
    if (batch_send (ctx, j, &bs->st) < 0)
        job_end (ctx, j, JOB_FAILED, "batch launch: out of memory");
    batch_sending_free (bs);
}

void batch_start (struct ctld *ctx, struct job *j)
{
    struct batch_sending *bs = calloc (1, sizeof (*bs));
    arbor_error_t err;

    if (!bs) {
        job_end (ctx, j, JOB_FAILED, "batch launch: out of memory");
        return;
    }
    if (step_create_batch (ctx, j, &bs->st, &err) < 0) {
        char why[PROTO_MAX_NAME];
        snprintf (why, sizeof (why), "cannot create the batch step: %s",
                  err.text);
        free (bs);
        job_end (ctx, j, JOB_FAILED, why);
        return;
    }
    bs->ctx = ctx;
    bs->job_id = j->id;
    bs->restarts = j->restarts;
    j->batch_launched = true;
    persist_job (ctx, j);
    if (persist_then (ctx, batch_recorded_cb, bs) < 0) {
        batch_sending_free (bs);
        job_end (ctx, j, JOB_FAILED, "batch launch: out of memory");
    }
}
