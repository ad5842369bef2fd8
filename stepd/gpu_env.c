/* gpu_env.c - the GPU environment of each task; see gpu_env.h.
 *
 * Each task's GPUs are worked out afresh from the step's description,
 * with nothing kept between tasks. single:N, where a task's GPU depends
 * on what the tasks before it took, replays their choices: ntasks x
 * ngpus small steps per task, nothing a node's task count makes slow.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "gpu_env.h"

/* The variables that name the task's GPUs, one per GPU runtime: CUDA,
 * ROCm, oneAPI Level Zero, and the older OpenCL/ROCm ordinal. */
static const char *const visible_names[] = {
    "CUDA_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "ZE_AFFINITY_MASK",
    "GPU_DEVICE_ORDINAL",
};

/* The binding that applies: --gpu-bind, else --gpus-per-task's implied
 * per_task:N, else none; and none whatever was asked when the step has
 * a single task or no GPUs here. *n gets single's or per_task's N. */
static enum gpubind_mode gpu_env_mode (const struct gpu_env_step *s,
                                       uint32_t *n)
{
    enum gpubind_mode m = s->bind ? s->bind->mode : GPUBIND_DEFAULT;
    uint32_t tasks = s->step_tasks ? s->step_tasks : s->ntasks;

    *n = s->bind ? s->bind->n : 0;
    if (m == GPUBIND_DEFAULT && s->gpus_per_task) {
        m = GPUBIND_PER_TASK;
        *n = s->gpus_per_task;
    }
    if (m == GPUBIND_DEFAULT || tasks <= 1 || s->ngpus == 0
        || ((m == GPUBIND_MAP || m == GPUBIND_MASK) && !s->bind->nlist))
        m = GPUBIND_NONE;
    if (*n == 0)
        *n = 1; /* a hand-made binding: as the parser's least */
    return m;
}

/* The number the task knows the step's i-th GPU by. */
static uint32_t gpu_env_id (const struct gpu_env_step *s, size_t i)
{
    return s->constrained ? (uint32_t)i : s->gpus[i];
}

/* Where GPU 'id' (as the task numbers it) is in s->gpus; -1 if the step
 * does not hold it here. */
static long gpu_env_pos (const struct gpu_env_step *s, uint64_t id)
{
    for (size_t i = 0; i < s->ngpus; i++)
        if (gpu_env_id (s, i) == id)
            return (long)i;
    return -1;
}

/* The step's GPUs as the task numbers them, as ranges ("0-1", "2,4-5"),
 * for messages; cut to len. */
static void gpu_env_ranges (const struct gpu_env_step *s, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0, j; i < s->ngpus && used < len; i = j) {
        uint32_t lo = gpu_env_id (s, i);
        int w;
        for (j = i + 1;
             j < s->ngpus && gpu_env_id (s, j) == gpu_env_id (s, j - 1) + 1;
             j++)
            ;
        if (j - 1 == i)
            w = snprintf (buf + used, len - used, "%s%u", i ? "," : "", lo);
        else
            w = snprintf (buf + used, len - used, "%s%u-%u", i ? "," : "", lo,
                          gpu_env_id (s, j - 1));
        used += w > 0 ? (size_t)w : 0;
    }
}

/* "--gpu-bind=map_gpu:5: GPU 5 is not one of the step's on n1 (0-1)" */
static int gpu_env_unheld (const struct gpu_env_step *s, uint64_t value,
                           uint64_t gpu, arbor_error_t *err)
{
    bool mask = s->bind->mode == GPUBIND_MASK;
    char have[64], val[24];

    gpu_env_ranges (s, have, sizeof (have));
    snprintf (val, sizeof (val), mask ? "0x%" PRIx64 : "%" PRIu64, value);
    errno = EINVAL;
    return errprintf (err,
                      "--gpu-bind=%s:%s: GPU %" PRIu64
                      " is not one of the step's%s%s (%s)",
                      gpubind_mode_name (s->bind->mode), val, gpu,
                      s->node ? " on " : "", s->node ? s->node : "", have);
}

/* The GPUs one map_gpu id or mask_gpu mask names, into on[] (when not
 * NULL). Returns how many, or -1 with errno EINVAL and err for a GPU the
 * step does not hold. */
static int gpu_env_value (const struct gpu_env_step *s, uint64_t v, bool *on,
                          arbor_error_t *err)
{
    int n = 0;
    long pos;

    if (s->bind->mode == GPUBIND_MAP) {
        if ((pos = gpu_env_pos (s, v)) < 0)
            return gpu_env_unheld (s, v, v, err);
        if (on)
            on[pos] = true;
        return 1;
    }
    for (unsigned bit = 0; bit < 64; bit++) {
        if (!((v >> bit) & 1))
            continue;
        if ((pos = gpu_env_pos (s, bit)) < 0)
            return gpu_env_unheld (s, v, bit, err);
        if (on)
            on[pos] = true;
        n++;
    }
    return n;
}

/* per_task:N: GPUs local*N .. local*N+N-1, wrapping round. */
static int gpu_env_per_task (const struct gpu_env_step *s, uint32_t local,
                             uint32_t per, bool *on)
{
    if (per >= s->ngpus) {
        memset (on, 1, s->ngpus * sizeof (*on));
        return (int)s->ngpus;
    }
    for (uint32_t k = 0; k < per; k++)
        on[((uint64_t)local * per + k) % s->ngpus] = true;
    return (int)per;
}

/* The CPUs of each of the step's GPUs, empty where unknown (a malformed
 * list counts as unknown: gpu_env_check reports it). NULL: ENOMEM. */
static cpu_set_t *gpu_env_gpu_sets (const struct gpu_env_step *s)
{
    cpu_set_t *v = calloc (s->ngpus ? s->ngpus : 1, sizeof (*v));

    for (size_t i = 0; v && i < s->ngpus; i++)
        if (!s->gpu_cpus || !s->gpu_cpus[i]
            || cores_parse (s->gpu_cpus[i], &v[i], NULL) < 0)
            CPU_ZERO (&v[i]);
    return v;
}

/* close[i]: do the i-th GPU's CPUs meet task t's? Returns how many do. */
static size_t gpu_env_close (const struct gpu_env_step *s,
                             const cpu_set_t *sets, uint32_t t, bool *close)
{
    size_t n = 0;

    for (size_t i = 0; i < s->ngpus; i++) {
        cpu_set_t both;
        close[i] = false;
        if (s->task_cpus) {
            CPU_AND (&both, &sets[i], &s->task_cpus[t]);
            close[i] = CPU_COUNT (&both) > 0;
        }
        n += close[i];
    }
    return n;
}

/* single:N, for task t once the tasks before it are placed ('load'
 * counts their tasks per GPU): the first close GPU with room, else the
 * first with room, else a new round. */
static size_t gpu_env_pick (const struct gpu_env_step *s, const cpu_set_t *sets,
                            uint32_t t, uint32_t per, uint32_t *load,
                            bool *close)
{
    size_t nclose = gpu_env_close (s, sets, t, close), i;

    for (i = 0; i < s->ngpus; i++)
        if (close[i] && load[i] < per)
            return i;
    for (i = 0; i < s->ngpus; i++)
        if (load[i] < per)
            return i;
    memset (load, 0, s->ngpus * sizeof (*load)); /* every GPU is full */
    for (i = 0; nclose && i < s->ngpus; i++)
        if (close[i])
            return i;
    return 0;
}

/* closest (per == 0) or single:per. */
static int gpu_env_near (const struct gpu_env_step *s, uint32_t local,
                         uint32_t per, bool *on)
{
    cpu_set_t *sets = gpu_env_gpu_sets (s);
    uint32_t *load = calloc (s->ngpus, sizeof (*load));
    bool *close = calloc (s->ngpus, sizeof (*close));
    size_t pick = 0;
    int n = -1;

    if (sets && load && close && per == 0) {
        if ((n = (int)gpu_env_close (s, sets, local, close)) == 0)
            n = gpu_env_per_task (s, 0, (uint32_t)s->ngpus, on);
        else
            memcpy (on, close, s->ngpus * sizeof (*on));
    } else if (sets && load && close) {
        for (uint32_t t = 0; t <= local; t++)
            load[pick = gpu_env_pick (s, sets, t, per, load, close)]++;
        on[pick] = true;
        n = 1;
    }
    free (sets);
    free (load);
    free (close);
    if (n < 0)
        errno = ENOMEM;
    return n;
}

int gpu_env_task_gpus (const struct gpu_env_step *s, uint32_t local, bool *on,
                       arbor_error_t *err)
{
    uint32_t per;
    enum gpubind_mode m = gpu_env_mode (s, &per);
    int n;

    if (local >= s->ntasks || s->ngpus > GPU_ENV_GPUS_MAX) {
        errno = EINVAL;
        return errprintf (err, "task %u of %u, %zu GPUs: out of range", local,
                          s->ntasks, s->ngpus);
    }
    if (s->ngpus == 0)
        return 0;
    memset (on, 0, s->ngpus * sizeof (*on));
    switch (m) {
    case GPUBIND_CLOSEST: n = gpu_env_near (s, local, 0, on); break;
    case GPUBIND_SINGLE: n = gpu_env_near (s, local, per, on); break;
    case GPUBIND_PER_TASK: return gpu_env_per_task (s, local, per, on);
    case GPUBIND_MAP:
    case GPUBIND_MASK:
        return gpu_env_value (s, s->bind->list[local % s->bind->nlist], on,
                              err);
    default: return gpu_env_per_task (s, 0, (uint32_t)s->ngpus, on);
    }
    if (n < 0)
        return errprintf (err, "GPU binding: out of memory");
    return n;
}

/* A list of GPUs, ascending and unique, within bounds. */
static int gpu_env_sorted (const uint32_t *v, size_t n, const char *what,
                           arbor_error_t *err)
{
    errno = EINVAL;
    if (n > GPU_ENV_GPUS_MAX)
        return errprintf (err, "%s: %zu GPUs, more than %u", what, n,
                          GPU_ENV_GPUS_MAX);
    if (n && !v)
        return errprintf (err, "%s: no list", what);
    for (size_t i = 1; i < n; i++)
        if (v[i] <= v[i - 1])
            return errprintf (err,
                              "%s: GPU %u after GPU %u (ascending "
                              "and unique expected)",
                              what, v[i], v[i - 1]);
    return 0;
}

int gpu_env_check (const struct gpu_env_step *s, arbor_error_t *err)
{
    const struct gpubind *b = s->bind;
    arbor_error_t why = { "" };
    cpu_set_t set;

    if (gpu_env_sorted (s->gpus, s->ngpus, "the step's GPUs", err) < 0
        || gpu_env_sorted (s->job_gpus, s->njob, "the job's GPUs", err) < 0)
        return -1;
    for (size_t i = 0; s->gpu_cpus && i < s->ngpus; i++)
        if (s->gpu_cpus[i] && cores_parse (s->gpu_cpus[i], &set, &why) < 0)
            return errprintf (err, "GPU %u: %s", s->gpus[i], why.text);
    if (!b || s->ngpus == 0
        || (b->mode != GPUBIND_MAP && b->mode != GPUBIND_MASK))
        return 0;
    for (size_t i = 0; i < b->nlist; i++)
        if (gpu_env_value (s, b->list[i], NULL, err) < 0)
            return -1;
    return 0;
}

/* The GPUs with on[i] (all when 'on' is NULL), comma-separated, by
 * their global ids or, when 'relative', their positions. Caller frees;
 * NULL: ENOMEM. */
static char *gpu_env_ids (const uint32_t *ids, size_t n, const bool *on,
                          bool relative)
{
    char *s = malloc (n * 11 + 1), *p = s;

    if (!s)
        return NULL;
    *p = '\0';
    for (size_t i = 0; i < n; i++)
        if (!on || on[i])
            p += sprintf (p, "%s%u", p > s ? "," : "",
                          relative ? (unsigned)i : ids[i]);
    return s;
}

static int gpu_env_put (struct env *e, const struct gpu_env_step *s,
                        const char *visible, const char *step, const char *job)
{
    for (size_t i = 0; i < sizeof (visible_names) / sizeof (*visible_names);
         i++)
        if (env_set (e, visible_names[i], visible) < 0)
            return -1;
    if (env_setf (e, "SLURM_GPUS_ON_NODE", "%zu", s->ngpus) < 0
        || (s->njob && env_set (e, "SLURM_JOB_GPUS", job) < 0))
        return -1;
    /* The batch step has the job's GPUs, not a step's; a value its
     * submitter's environment carried is not this job's. */
    if (s->batch)
        return env_unset (e, "SLURM_STEP_GPUS") < 0 && errno == ENOMEM ? -1 : 0;
    return env_set (e, "SLURM_STEP_GPUS", step);
}

int gpu_env_set (struct env *e, const struct gpu_env_step *s, uint32_t local,
                 arbor_error_t *err)
{
    bool *on;
    char *visible = NULL, *step = NULL, *job = NULL;
    int rc = -1;

    if (s->ngpus == 0 && s->njob == 0)
        return 0;
    if (!(on = calloc (s->ngpus ? s->ngpus : 1, sizeof (*on)))) {
        errno = ENOMEM;
        return errprintf (err, "GPU environment: out of memory");
    }
    if (gpu_env_task_gpus (s, local, on, err) < 0) {
        free (on);
        return -1;
    }
    if ((visible = gpu_env_ids (s->gpus, s->ngpus, on, s->constrained))
        && (step = gpu_env_ids (s->gpus, s->ngpus, NULL, false))
        && (job = gpu_env_ids (s->job_gpus, s->njob, NULL, false)))
        rc = gpu_env_put (e, s, visible, step, job);
    free (on);
    free (visible);
    free (step);
    free (job);
    if (rc < 0) {
        errno = ENOMEM;
        return errprintf (err, "GPU environment: out of memory");
    }
    return 0;
}

int gpu_env_note (const struct gpu_env_step *s, uint32_t local, uint32_t rank,
                  char *buf, size_t len, arbor_error_t *err)
{
    uint32_t per;
    enum gpubind_mode m = gpu_env_mode (s, &per);
    bool *on = calloc (s->ngpus ? s->ngpus : 1, sizeof (*on));
    char *global = NULL, *visible = NULL, mode[32];
    int rc = -1;

    if (!on)
        return errprintf (err, "GPU binding: out of memory");
    if (gpu_env_task_gpus (s, local, on, err) < 0)
        goto out;
    if (!(global = gpu_env_ids (s->gpus, s->ngpus, on, false))
        || !(visible = gpu_env_ids (s->gpus, s->ngpus, on, s->constrained))) {
        errno = ENOMEM;
        errprintf (err, "GPU binding: out of memory");
        goto out;
    }
    if (m == GPUBIND_SINGLE || m == GPUBIND_PER_TASK)
        snprintf (mode, sizeof (mode), "%s:%u", gpubind_mode_name (m), per);
    else
        snprintf (mode, sizeof (mode), "%s", gpubind_mode_name (m));
    snprintf (buf, len,
              "gpu-bind=%s - %s, task %2u %2u: GPUs %s visible as %s\n", mode,
              s->node ? s->node : "", rank, local, *global ? global : "none",
              *visible ? visible : "none");
    rc = 0;
out:
    free (on);
    free (global);
    free (visible);
    return rc;
}
