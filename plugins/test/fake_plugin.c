/* fake_plugin.c - fixture plugins for plugin_test, one .so per FAKE_*
 * definition, each wrong in one way (or, for FAKE_GOOD, right) so that the
 * loader's refusals can be checked one by one. The ops really work as a
 * trivial tracker of one pid so the good one can be driven end to end. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "proctrack.h"

struct fake_ctx {
    pid_t pid;
};

static int fake_init (const struct plugin_env *env, void **ctx,
                      arbor_error_t *err)
{
    if (!(*ctx = calloc (1, sizeof (struct fake_ctx))))
        return errprintf (err, "fake: out of memory");
    plugin_log (env, PLUGIN_LOG_INFO, "fake: init, answer=%s",
                plugin_conf (env, "Answer", "none"));
    return 0;
}

static void fake_fini (void *ctx)
{
    free (ctx);
}

static int fake_create (void *ctx, const struct step_info *s,
                        arbor_error_t *err)
{
    return 0;
}

static int fake_add (void *ctx, pid_t pid)
{
    ((struct fake_ctx *)ctx)->pid = pid;
    return 0;
}

#ifndef FAKE_NULLOP
static int fake_signal (void *ctx, int sig)
{
    return kill (((struct fake_ctx *)ctx)->pid, sig);
}
#endif

static int fake_is_empty (void *ctx)
{
    return ((struct fake_ctx *)ctx)->pid == 0;
}

static int fake_destroy (void *ctx, arbor_error_t *err)
{
    return 0;
}

static int fake_pids (void *ctx, pid_t **pids, size_t *count)
{
    *pids = NULL;
    *count = 0;
    return 0;
}

static int fake_oom_kills (void *ctx, uint64_t *count)
{
    *count = 0;
    return 0;
}

static const struct proctrack_ops fake_ops = {
    .init = fake_init,
    .fini = fake_fini,
    .create = fake_create,
    .add = fake_add,
#ifndef FAKE_NULLOP
    .signal = fake_signal,
#endif
    .is_empty = fake_is_empty,
    .destroy = fake_destroy,
    .pids = fake_pids,
    .oom_kills = fake_oom_kills,
};

#if defined(FAKE_BADABI)
#define FAKE_ABI (ARBOR_PLUGIN_ABI + 1)
#else
#define FAKE_ABI ARBOR_PLUGIN_ABI
#endif
#if defined(FAKE_BADTYPE)
#define FAKE_TYPE "mpi"
#else
#define FAKE_TYPE PROCTRACK_TYPE
#endif
#if defined(FAKE_BADNAME)
#define FAKE_NAME "someoneelse"
#elif defined(FAKE_GOOD)
#define FAKE_NAME "good"
#elif defined(FAKE_NULLOP)
#define FAKE_NAME "nullop"
#elif defined(FAKE_BADABI)
#define FAKE_NAME "badabi"
#elif defined(FAKE_BADTYPE)
#define FAKE_NAME "badtype"
#elif defined(FAKE_BADVERSION)
#define FAKE_NAME "badversion"
#else
#define FAKE_NAME "badsize"
#endif
#if defined(FAKE_BADVERSION)
#define FAKE_VERSION (PROCTRACK_OPS_VERSION + 1)
#else
#define FAKE_VERSION PROCTRACK_OPS_VERSION
#endif
#if defined(FAKE_BADSIZE)
#define FAKE_SIZE (sizeof (struct proctrack_ops) - sizeof (void *))
#else
#define FAKE_SIZE sizeof (struct proctrack_ops)
#endif

#if defined(FAKE_NOSYM)
/* Exports a differently named descriptor: not an arbor plugin. */
ARBOR_PLUGIN_EXPORT const struct arbor_plugin not_arbor_plugin =
#else
ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
#endif
    {
        .abi = FAKE_ABI,
        .type = FAKE_TYPE,
        .name = FAKE_NAME,
        .ops_version = FAKE_VERSION,
        .ops_size = FAKE_SIZE,
        .ops = &fake_ops,
    };
