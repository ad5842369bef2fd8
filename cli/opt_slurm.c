/* opt_slurm.c - Slurm's submission options beyond opt.c's; see
 * opt_slurm.h. The unsupported table is the one place that says which of
 * Slurm's options Arbor refuses; docs/slurm-differences.md says why. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "featspec.h"
#include "gpubind.h"
#include "gresspec.h"
#include "opt.h"
#include "opt_slurm.h"
#include "timestr.h"

enum {
    SOPT_TIME_MIN = SLURM_OPT_BASE,
    SOPT_MINCPUS,
    SOPT_TMP,
    SOPT_HINT,
    SOPT_NTASKS_PER_CORE,
    SOPT_CPU_FREQ,
    SOPT_CLUSTERS = 'M',
    SOPT_CONSTRAINT = 'C',
    SOPT_CPUS_PER_GPU = SLURM_OPT_BASE + 0x20,
    SOPT_MEM_PER_GPU,
    SOPT_GET_USER_ENV = SLURM_OPT_BASE + 0x10,
    SOPT_TEST_ONLY,
    SOPT_HOLD = 'H', /* srun's (salloc's and sbatch's: opt_when.h) */
    SOPT_CARRIED = SLURM_OPT_BASE + 0x40, /* + the index in 'carried' */
};

#define R required_argument
#define N no_argument
#define O optional_argument
#define ALL SLURM_CMD_ALL
#define RUN SLURM_CMD_RUN
#define SALLOC SLURM_CMD_ALLOC
#define SBATCH SLURM_CMD_BATCH

static const struct {
    struct option opt;
    unsigned cmds;
} accepted[] = {
    { { "time-min", R, NULL, SOPT_TIME_MIN }, ALL },
    { { "mincpus", R, NULL, SOPT_MINCPUS }, ALL },
    { { "tmp", R, NULL, SOPT_TMP }, ALL },
    { { "hint", R, NULL, SOPT_HINT }, ALL },
    { { "ntasks-per-core", R, NULL, SOPT_NTASKS_PER_CORE }, ALL },
    { { "cpu-freq", R, NULL, SOPT_CPU_FREQ }, ALL },
    { { "clusters", R, NULL, SOPT_CLUSTERS }, ALL },
    { { "cluster", R, NULL, SOPT_CLUSTERS }, ALL }, /* Slurm's alias */
    { { "get-user-env", O, NULL, SOPT_GET_USER_ENV }, SALLOC | SBATCH },
    { { "test-only", N, NULL, SOPT_TEST_ONLY }, ALL },
    { { "hold", N, NULL, SOPT_HOLD }, RUN },
    { { "constraint", R, NULL, SOPT_CONSTRAINT }, ALL },
    { { "cpus-per-gpu", R, NULL, SOPT_CPUS_PER_GPU }, ALL },
    { { "mem-per-gpu", R, NULL, SOPT_MEM_PER_GPU }, ALL },
};

/* Options whose text the job's request carries as given, in its field of
 * the same meaning (common/wire/proto_msgs.def's JOB_ALLOC): the
 * controller keeps it in the job's record and the commands show it
 * (cli/jobattr.c). Adding one is a line here. */
static int check_gres (const char *a, arbor_error_t *err);
static int check_gpus (const char *a, arbor_error_t *err);
static int check_gpus_per_node (const char *a, arbor_error_t *err);
static int check_gpus_per_task (const char *a, arbor_error_t *err);
static int check_gres_flags (const char *a, arbor_error_t *err);
static int check_gpu_bind (const char *a, arbor_error_t *err);

static const struct {
    struct option opt;
    unsigned cmds;
    size_t off;  /* of its char * in struct msg_job_alloc */
    char letter; /* its short option, or 0 */
    int (*check) (const char *a, arbor_error_t *err); /* NULL: any text */
} carried[] = {
    { { "comment", R, NULL, SOPT_CARRIED + 0 },
      ALL,
      offsetof (struct msg_job_alloc, comment),
      0,
      NULL },
    { { "gres", R, NULL, SOPT_CARRIED + 1 },
      ALL,
      offsetof (struct msg_job_alloc, gres),
      0,
      check_gres },
    { { "gpus", R, NULL, SOPT_CARRIED + 2 },
      ALL,
      offsetof (struct msg_job_alloc, gpus),
      'G',
      check_gpus },
    { { "gpus-per-node", R, NULL, SOPT_CARRIED + 3 },
      ALL,
      offsetof (struct msg_job_alloc, gpus_per_node),
      0,
      check_gpus_per_node },
    { { "gpus-per-task", R, NULL, SOPT_CARRIED + 4 },
      ALL,
      offsetof (struct msg_job_alloc, gpus_per_task),
      0,
      check_gpus_per_task },
    { { "gpu-bind", R, NULL, SOPT_CARRIED + 5 },
      ALL,
      offsetof (struct msg_job_alloc, gpu_bind),
      0,
      check_gpu_bind },
    { { "gres-flags", R, NULL, SOPT_CARRIED + 6 },
      ALL,
      offsetof (struct msg_job_alloc, gres_flags),
      0,
      check_gres_flags },
    { { "qos", R, NULL, SOPT_CARRIED + 7 },
      ALL,
      offsetof (struct msg_job_alloc, qos),
      'q',
      NULL }, /* the controller judges it: "Invalid qos specification" */
};
#define NCARRIED (sizeof (carried) / sizeof (carried[0]))
_Static_assert(NCARRIED <= SLURM_CARRIED_MAX, "SLURM_CARRIED_MAX");

/* Options Slurm has and Arbor does not (reasons: docs/slurm-differences.md).
 * A name a command already defines (sbatch's --wait) is skipped for it
 * when the tables are merged. */
const struct slurm_unsupported slurm_unsupported[] = {
    /* Generic resources and GPUs */
    { "gpus-per-socket", 0, R, ALL },
    { "gpu-freq", 0, R, ALL },
    { "ntasks-per-gpu", 0, R, ALL },
    { "tres-per-task", 0, R, ALL },
    { "tres-bind", 0, R, ALL },
    /* Policy: reservations, WCKeys */
    { "reservation", 0, R, ALL },
    { "wckey", 0, R, ALL },
    /* Node features, topology and hardware layout */
    { "cluster-constraint", 0, R, ALL },
    { "prefer", 0, R, ALL },
    { "contiguous", 0, N, ALL },
    { "switches", 0, R, ALL },
    { "network", 0, R, ALL },
    { "reboot", 0, N, ALL },
    { "core-spec", 'S', R, ALL },
    { "thread-spec", 0, R, ALL },
    { "sockets-per-node", 0, R, ALL },
    { "cores-per-socket", 0, R, ALL },
    { "threads-per-core", 0, R, ALL },
    { "extra-node-info", 'B', R, ALL },
    { "ntasks-per-socket", 0, R, ALL },
    { "mem-bind", 0, R, ALL },
    { "oversubscribe", 's', N, ALL },
    { "spread-job", 0, N, ALL },
    { "use-min-nodes", 0, N, ALL },
    /* Other subsystems */
    { "mcs-label", 0, R, ALL },
    { "profile", 0, R, ALL },
    { "acctg-freq", 0, R, ALL },
    { "bb", 0, R, ALL },
    { "bbf", 0, R, ALL },
    { "container", 0, R, ALL },
    { "container-id", 0, R, ALL },
    { "deadline", 0, R, ALL },
    { "delay-boot", 0, R, ALL },
    { "uid", 0, R, SALLOC | SBATCH },
    { "gid", 0, R, SALLOC | SBATCH },
    { "power", 0, R, ALL },
    { "priority", 0, R, ALL },
    { "x11", 0, O, ALL },
    { "nodefile", 'F', R, RUN | SBATCH },
    { "no-kill", 'k', O, ALL },
    { "wait-all-nodes", 0, R, SALLOC | SBATCH },
    { "export-file", 0, R, SBATCH },
    { "ignore-pbs", 0, N, SBATCH },
    { "batch", 0, R, SBATCH },
    { "no-shell", 0, N, SALLOC },
    { "bell", 0, N, SALLOC },
    { "no-bell", 0, N, SALLOC },
    { "kill-command", 'K', O, SALLOC },
    /* srun's own */
    { "accel-bind", 0, R, RUN },
    { "bcast", 0, O, RUN },
    { "bcast-exclude", 0, R, RUN },
    { "compress", 0, O, RUN },
    { "het-group", 0, R, RUN },
    { "disable-status", 'X', N, RUN },
    { "no-allocate", 'Z', N, RUN },
    { "relative", 'r', R, RUN },
    { "slurmd-debug", 0, R, RUN },
    { "threads", 'T', R, RUN },
    { "wait", 'W', R, RUN },
    { "resv-ports", 0, O, RUN },
    { "open-mode", 0, R, RUN },
    { NULL, 0, 0, 0 },
};

/* Is 'name' already in tab[0..n) (a command's own option wins)? */
static bool slurm_taken (const struct option *tab, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp (tab[i].name, name))
            return true;
    return false;
}

size_t slurm_longopts (struct option *tab, size_t n, size_t max, unsigned cmd)
{
    size_t first = n;

    for (size_t i = 0; i < sizeof (accepted) / sizeof (accepted[0]); i++) {
        if (n < max && (accepted[i].cmds & cmd)
            && !slurm_taken (tab, first, accepted[i].opt.name))
            tab[n++] = accepted[i].opt;
    }
    for (size_t i = 0; i < NCARRIED; i++) {
        if (n < max && (carried[i].cmds & cmd)
            && !slurm_taken (tab, first, carried[i].opt.name))
            tab[n++] = carried[i].opt;
    }
    for (size_t i = 0; slurm_unsupported[i].name; i++) {
        if (n < max && (slurm_unsupported[i].cmds & cmd)
            && !slurm_taken (tab, first, slurm_unsupported[i].name))
            tab[n++] = (struct option){ slurm_unsupported[i].name,
                                        slurm_unsupported[i].has_arg, NULL,
                                        SLURM_UNSUP_BASE + (int)i };
    }
    return n;
}

void slurm_shortopts (unsigned cmd, const char *taken, char *buf, size_t len)
{
    size_t n = 0;

    if (len < 3)
        return;
    if (!strchr (taken, 'M'))
        buf[n++] = 'M', buf[n++] = ':';
    if (!strchr (taken, 'C'))
        buf[n++] = 'C', buf[n++] = ':';
    for (size_t i = 0; i < NCARRIED && n + 3 < len; i++)
        if (carried[i].letter && (carried[i].cmds & cmd)
            && !strchr (taken, carried[i].letter))
            buf[n++] = carried[i].letter, buf[n++] = ':';
    if ((cmd & RUN) && !strchr (taken, 'H'))
        buf[n++] = 'H';
    for (size_t i = 0; slurm_unsupported[i].name; i++) {
        const struct slurm_unsupported *u = &slurm_unsupported[i];
        if (!u->letter || !(u->cmds & cmd) || strchr (taken, u->letter)
            || n + 4 > len)
            continue;
        buf[n++] = u->letter;
        if (u->has_arg != no_argument)
            buf[n++] = ':';
        if (u->has_arg == optional_argument)
            buf[n++] = ':';
    }
    buf[n] = '\0';
}

/* The unsupported option with short letter c, or -1. */
static int slurm_unsup_letter (int c)
{
    for (int i = 0; slurm_unsupported[i].name; i++)
        if (slurm_unsupported[i].letter && slurm_unsupported[i].letter == c)
            return i;
    return -1;
}

int slurm_hint_check (const char *s)
{
    static const char *const hints[] = { "compute_bound", "memory_bound",
                                         "multithread", "nomultithread", NULL };

    for (size_t i = 0; hints[i]; i++)
        if (!strcasecmp (s, hints[i]))
            return 0;
    errno = EINVAL;
    return -1;
}

/* One --cpu-freq value: a frequency in kHz or a symbolic one. */
static bool cpu_freq_value (const char *s, size_t len)
{
    static const char *const names[] = { "low", "medium", "high", "highm1",
                                         NULL };
    size_t i;

    for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++)
        ;
    if (len > 0 && i == len)
        return true;
    for (i = 0; names[i]; i++)
        if (strlen (names[i]) == len && !strncasecmp (s, names[i], len))
            return true;
    return false;
}

static bool cpu_freq_governor (const char *s)
{
    static const char *const govs[] = {
        "conservative", "ondemand",  "performance", "powersave",
        "userspace",    "schedutil", NULL
    };

    for (size_t i = 0; govs[i]; i++)
        if (!strcasecmp (s, govs[i]))
            return true;
    return false;
}

/* p1[-p2][:gov], or a governor alone (srun(1)). */
int slurm_cpu_freq_check (const char *s)
{
    const char *colon = strchr (s, ':'), *dash;
    size_t len = colon ? (size_t)(colon - s) : strlen (s);

    if (!colon && cpu_freq_governor (s))
        return 0;
    if (colon && !cpu_freq_governor (colon + 1))
        goto bad;
    dash = memchr (s, '-', len);
    if (dash && cpu_freq_value (s, (size_t)(dash - s))
        && cpu_freq_value (dash + 1, len - (size_t)(dash - s) - 1))
        return 0;
    if (!dash && cpu_freq_value (s, len))
        return 0;
bad:
    errno = EINVAL;
    return -1;
}

/* -C: checked here, so that a mistake is named before anything is sent. */
static int slurm_constraint (struct slurm_opts *s, const char *a)
{
    struct featspec f;

    if (featspec_parse (a, &f, &s->err) < 0)
        return -1;
    featspec_clear (&f);
    return opt_set_str (&s->constraint, a);
}

/* The generic resource options, checked as the controller will. */
static int check_gres (const char *a, arbor_error_t *err)
{
    struct gresspec g;

    return strcmp (a, "none") ? gresspec_parse (a, &g, err) : 0;
}

static int check_gpus_as (const char *opt, const char *a, arbor_error_t *err)
{
    struct gres_req r;

    return gresspec_parse_gpu (opt, a, &r, err);
}

static int check_gpus (const char *a, arbor_error_t *err)
{
    return check_gpus_as ("--gpus", a, err);
}

static int check_gpus_per_node (const char *a, arbor_error_t *err)
{
    return check_gpus_as ("--gpus-per-node", a, err);
}

static int check_gpus_per_task (const char *a, arbor_error_t *err)
{
    return check_gpus_as ("--gpus-per-task", a, err);
}

static int check_gres_flags (const char *a, arbor_error_t *err)
{
    if (!strcasecmp (a, "enforce-binding")
        || !strcasecmp (a, "disable-binding"))
        return 0;
    errno = EINVAL;
    return errprintf (err,
                      "invalid --gres-flags \"%.60s\": enforce-binding "
                      "or disable-binding",
                      a);
}

static int check_gpu_bind (const char *a, arbor_error_t *err)
{
    struct gpubind b;

    if (gpubind_parse (a, &b, err) < 0)
        return -1;
    gpubind_clear (&b);
    return 0;
}

/* Carried option i given 'a': checked, then kept. */
static int slurm_carry_one (struct slurm_opts *s, size_t i, const char *a)
{
    if (carried[i].check && carried[i].check (a, &s->err) < 0)
        return -1;
    return opt_set_str (&s->carried[i], a);
}

static int slurm_accepted_one (struct slurm_opts *s, int c, const char *a)
{
    if (c >= SOPT_CARRIED && c < SOPT_CARRIED + (int)NCARRIED)
        return slurm_carry_one (s, (size_t)(c - SOPT_CARRIED), a);
    for (size_t i = 0; i < NCARRIED; i++)
        if (carried[i].letter && c == carried[i].letter)
            return slurm_carry_one (s, i, a);
    switch (c) {
    case SOPT_TIME_MIN: return timestr_parse (a, &s->time_min, NULL);
    case SOPT_MINCPUS: return opt_parse_count (a, false, &s->mincpus);
    case SOPT_TMP: return opt_parse_mem (a, &s->tmp_mb);
    case SOPT_HINT:
        return slurm_hint_check (a) < 0 ? -1 : opt_set_str (&s->hint, a);
    case SOPT_NTASKS_PER_CORE:
        return opt_parse_count (a, false, &s->ntasks_per_core);
    case SOPT_CPU_FREQ:
        return slurm_cpu_freq_check (a) < 0 ? -1
                                            : opt_set_str (&s->cpu_freq, a);
    case SOPT_CLUSTERS: return *a ? opt_set_str (&s->clusters, a) : -1;
    case SOPT_CONSTRAINT: return slurm_constraint (s, a);
    case SOPT_CPUS_PER_GPU: return opt_parse_count (a, false, &s->cpus_per_gpu);
    case SOPT_MEM_PER_GPU: return opt_parse_mem (a, &s->mem_per_gpu_mb);
    case SOPT_GET_USER_ENV: s->get_user_env = true; return 0;
    case SOPT_TEST_ONLY: s->test_only = true; return 0;
    case SOPT_HOLD: s->hold = true; return 0;
    default: return 1;
    }
}

int slurm_opt_one (struct slurm_opts *s, int c, const char *a)
{
    int i = c >= SLURM_UNSUP_BASE && c < SLURM_UNSUP_BASE + SLURM_UNSUP_MAX
                ? c - SLURM_UNSUP_BASE
                : slurm_unsup_letter (c);

    if (i < 0)
        return slurm_accepted_one (s, c, a);
    s->unsupported[i] = true;
    return 0;
}

int slurm_unsupported_check (const struct slurm_opts *s, const char *prog,
                             arbor_error_t *err)
{
    char list[sizeof (err->text)];
    size_t len = 0;

    list[0] = '\0';
    for (int i = 0; slurm_unsupported[i].name; i++) {
        if (s->unsupported[i] && len < sizeof (list))
            len +=
                (size_t)snprintf (list + len, sizeof (list) - len, "%s--%s",
                                  len ? ", " : "", slurm_unsupported[i].name);
    }
    if (len == 0)
        return 0;
    errno = ENOTSUP;
    return errprintf (err,
                      "%s: error: not supported by Arbor: %s (see "
                      "arbor-slurm(7))",
                      prog, list);
}

void slurm_opts_carry (const struct slurm_opts *s, struct msg_job_alloc *req)
{
    for (size_t i = 0; i < NCARRIED; i++)
        if (s->carried[i])
            *(char **)((char *)req + carried[i].off) = s->carried[i];
}

const char *slurm_carried (const struct slurm_opts *s, const char *name)
{
    for (size_t i = 0; i < NCARRIED; i++)
        if (!strcmp (carried[i].opt.name, name))
            return s->carried[i];
    return NULL;
}

void slurm_opts_clear (struct slurm_opts *s)
{
    for (size_t i = 0; i < NCARRIED; i++)
        free (s->carried[i]);
    free (s->hint);
    free (s->cpu_freq);
    free (s->clusters);
    free (s->constraint);
    memset (s, 0, sizeof (*s));
}
