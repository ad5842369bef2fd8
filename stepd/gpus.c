/* gpus.c - the step's GPUs on this node; see gpus.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "bind.h"
#include "gpubind.h"
#include "gpu_env.h"
#include "gpus.h"
#include "gresalloc.h"
#include "layout.h"
#include "stepd.h"

struct gpus {
    struct gpubind bind;
    bool have_bind;
    uint32_t *gpus, *job; /* global indices, ascending */
    size_t n, njob;
    const char **cpus; /* per step GPU: its local CPUs (borrowed) */
    cpu_set_t *task_cpus;
    struct gpu_env_step step;
};

/* The "gpu" indices of gresalloc text 's' into a new array. */
static int gpu_indices (const char *s, uint32_t **out, size_t *n,
                        arbor_error_t *err)
{
    struct gresalloc a;
    const struct gresalloc_item *it;

    *out = NULL;
    *n = 0;
    if (gresalloc_parse (s, &a, err) < 0)
        return -1;
    if (!(it = gresalloc_find (&a, "gpu")) || !it->indexed)
        return 0;
    if (!(*out = calloc (it->count + 1, sizeof (**out))))
        return errprintf (err, "out of memory");
    for (uint32_t i = 0; i < GRESALLOC_IDX_MAX; i++)
        if (gresalloc_has (it, i))
            (*out)[(*n)++] = i;
    return 0;
}

/* The local CPUs of GPU 'index' from the node's device list. */
static const char *gpu_cpus (const struct msg_stepd_init *in, uint32_t index)
{
    uint32_t seen = 0;

    for (uint32_t i = 0; i < in->dev_names_count; i++) {
        if (strcmp (PROTO_STR (in, dev_names, i), "gpu") != 0)
            continue;
        if (seen++ == index)
            return *PROTO_STR (in, dev_cores, i) ? in->dev_cores[i] : NULL;
    }
    return NULL;
}

/* Each task's CPUs: its binding's, else the step's cores here. */
static int task_cpus (struct stepd *sd, struct gpus *g, arbor_error_t *err)
{
    cpu_set_t step;

    if (!(g->task_cpus =
              calloc (sd->nlocal ? sd->nlocal : 1, sizeof (cpu_set_t))))
        return errprintf (err, "out of memory");
    if (!sd->bind && cores_parse (sd->init.cores, &step, err) < 0)
        return -1;
    for (uint32_t i = 0; i < sd->nlocal; i++) {
        if (sd->bind)
            bind_task_cpus (&sd->cpubind, &sd->bind_set, i, sd->nlocal,
                            &g->task_cpus[i]);
        else
            g->task_cpus[i] = step;
    }
    return 0;
}

static int gpus_fill (struct stepd *sd, struct gpus *g, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;

    if (gpu_indices (in->gres, &g->gpus, &g->n, err) < 0
        || gpu_indices (in->job_gres, &g->job, &g->njob, err) < 0)
        return -1;
    if (!g->n && !g->njob)
        return 0;
    if (in->gpu_bind && *in->gpu_bind) {
        if (gpubind_parse (in->gpu_bind, &g->bind, err) < 0)
            return -1;
        g->have_bind = true;
    }
    if (!(g->cpus = calloc (g->n + 1, sizeof (*g->cpus))))
        return errprintf (err, "out of memory");
    for (size_t i = 0; i < g->n; i++)
        g->cpus[i] = gpu_cpus (in, g->gpus[i]);
    if (task_cpus (sd, g, err) < 0)
        return -1;
    g->step = (struct gpu_env_step){
        .gpus = g->gpus,
        .ngpus = g->n,
        .job_gpus = g->job,
        .njob = g->njob,
        .constrained = sd->conf->constrain_devices,
        .batch = batch_step (sd),
        .bind = g->have_bind ? &g->bind : NULL,
        .gpus_per_task = in->gpus_per_task,
        .ntasks = sd->nlocal,
        .step_tasks = layout_total (in->tasks, in->tasks_count),
        .task_cpus = g->task_cpus,
        .gpu_cpus = g->cpus,
        .node = sd->node,
    };
    return gpu_env_check (&g->step, err);
}

int gpus_prepare (struct stepd *sd, arbor_error_t *err)
{
    struct gpus *g = calloc (1, sizeof (*g));

    gpus_free (sd);
    if (!g)
        return errprintf (err, "out of memory");
    sd->gpus = g;
    return gpus_fill (sd, g, err);
}

const struct gpu_env_step *gpus_env (const struct stepd *sd)
{
    const struct gpus *g = sd->gpus;

    return g && (g->n || g->njob) ? &g->step : NULL;
}

void gpus_note (const struct stepd *sd, uint32_t local, uint32_t rank,
                char *buf, size_t len)
{
    const struct gpus *g = sd->gpus;
    arbor_error_t err;

    buf[0] = '\0';
    if (g && g->have_bind && g->bind.verbose && (g->n || g->njob)
        && gpu_env_note (&g->step, local, rank, buf, len, &err) < 0)
        buf[0] = '\0';
}

void gpus_free (struct stepd *sd)
{
    struct gpus *g = sd->gpus;

    if (!g)
        return;
    gpubind_clear (&g->bind);
    free (g->gpus);
    free (g->job);
    free (g->cpus);
    free (g->task_cpus);
    free (g);
    sd->gpus = NULL;
}
