/* opt.c - parse the allocation options shared by the arbor subcommands.
 *
 * The shared options live in one const table; a command's own options are
 * appended to it for one getopt_long() pass. Every value is validated here
 * so that a mistake is reported before anything is sent to the controller.
 * See opt.h for the option list and the error wording.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "distrib.h"
#include "hostlist.h"
#include "mailtype.h"
#include "opt.h"
#include "opt_slurm.h"
#include "rlimits.h"
#include "signame.h"
#include "timestr.h"
#include "version.h"

enum {
    OPT_NTASKS_PER_NODE = 0x100,
    OPT_MEM,
    OPT_EXCLUSIVE,
    OPT_JOBID,
    OPT_MEM_PER_CPU,
    OPT_SIGNAL,
    OPT_NICE,
    OPT_MAIL_TYPE, /* --mail-type (common/spec/mailtype.h) */
    OPT_MAIL_USER,
    OPT_PROPAGATE,
};

static const struct option alloc_longopts[] = {
    { "nodes", required_argument, NULL, 'N' },
    { "ntasks", required_argument, NULL, 'n' },
    { "cpus-per-task", required_argument, NULL, 'c' },
    { "ntasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
    { "tasks-per-node", required_argument, NULL, OPT_NTASKS_PER_NODE },
    { "nodelist", required_argument, NULL, 'w' },
    { "exclude", required_argument, NULL, 'x' },
    { "partition", required_argument, NULL, 'p' },
    { "time", required_argument, NULL, 't' },
    { "mem", required_argument, NULL, OPT_MEM },
    { "mem-per-cpu", required_argument, NULL, OPT_MEM_PER_CPU },
    { "signal", required_argument, NULL, OPT_SIGNAL },
    { "exclusive", no_argument, NULL, OPT_EXCLUSIVE },
    { "overcommit", no_argument, NULL, 'O' },
    { "job-name", required_argument, NULL, 'J' },
    { "account", required_argument, NULL, 'A' },
    { "licenses", required_argument, NULL, 'L' },
    { "nice", optional_argument, NULL, OPT_NICE },
    { "mail-type", required_argument, NULL, OPT_MAIL_TYPE },
    { "mail-user", required_argument, NULL, OPT_MAIL_USER },
    { "propagate", optional_argument, NULL, OPT_PROPAGATE },
    { "chdir", required_argument, NULL, 'D' },
    { "verbose", no_argument, NULL, 'v' },
    { "jobid", required_argument, NULL, OPT_JOBID },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { "usage", no_argument, NULL, VERSION_OPT_USAGE },
    { NULL, 0, NULL, 0 },
};

static const char alloc_shortopts[] = "N:n:c:w:x:p:t:J:A:L:D:OvhV";

const char opt_alloc_help[] =
    "Allocation options:\n"
    "  -N, --nodes=N             number of nodes\n"
    "  -n, --ntasks=N            number of tasks\n"
    "  -c, --cpus-per-task=N     cores per task (default 1)\n"
    "      --ntasks-per-node=N   tasks on each node\n"
    "  -w, --nodelist=HOSTLIST   use these nodes\n"
    "  -x, --exclude=HOSTLIST    avoid these nodes\n"
    "  -p, --partition=NAME      partition (default: the default one)\n"
    "  -t, --time=TIME           time limit (M, M:S, H:M:S, D-H, D-H:M...)\n"
    "      --mem=SIZE            memory per node (MB, or K/M/G/T suffix)\n"
    "      --mem-per-cpu=SIZE    memory per allocated core\n"
    "      --signal=[R:]SIG[@T]  send SIG T seconds (default 60) before the\n"
    "                            time limit\n"
    "      --exclusive           whole nodes\n"
    "  -O, --overcommit          more tasks than cores (one core a node)\n"
    "  -J, --job-name=NAME       job name\n"
    "  -A, --account=NAME        account the job is charged to (arbor acct)\n"
    "  -q, --qos=NAME            quality of service (arbor acctmgr show qos)\n"
    "  -L, --licenses=LIST       licenses: NAME[:N],... (all) or NAME[:N]|...\n"
    "  -C, --constraint=LIST     node features: a&b, a|b, [a|b] (all nodes\n"
    "                            alike), a*2 (two nodes with a)\n"
    "      --gres=LIST           generic resources per node: name[:type][:N],...\n"
    "  -G, --gpus=[TYPE:]N       GPUs for the whole job\n"
    "      --gpus-per-node=[TYPE:]N, --gpus-per-task=[TYPE:]N\n"
    "      --cpus-per-gpu=N, --mem-per-gpu=SIZE\n"
    "      --gpu-bind=none|closest|single:N|per_task:N|map_gpu:L|mask_gpu:L\n"
    "      --gres-flags=enforce-binding|disable-binding\n"
    "                            (any one)\n"
    "      --nice[=ADJ]          lower the job's priority by ADJ (default 100;\n"
    "                            negative: root and ArborUser only)\n"
    "      --mail-type=TYPE,...  mail on these events: BEGIN, END, FAIL,\n"
    "                            REQUEUE, ALL, TIME_LIMIT[_90|_80|_50],\n"
    "                            INVALID_DEPEND, ARRAY_TASKS, NONE\n"
    "      --mail-user=USER      where the mail goes (default: you)\n"
    "  -D, --chdir=DIR           working directory of the tasks\n"
    "      --propagate[=LIST]    resource limits the tasks get from here:\n"
    "                            ALL (no LIST), NONE, or AS,CORE,CPU,DATA,\n"
    "                            FSIZE,MEMLOCK,NOFILE,NPROC,RSS,STACK\n"
    "                            (default: PropagateResourceLimits)\n"
    "  -v, --verbose             more progress messages (repeatable)\n"
    "      --jobid=ID            run inside existing job ID\n"
    "  -h, --help                this help\n"
    "  -V, --version             print the version\n"
    "      --usage               the options in short\n";

int opt_parse_count (const char *s, bool allow_zero, uint32_t *out)
{
    char *end;
    unsigned long v;

    if (!s || *s < '0' || *s > '9') {
        errno = EINVAL;
        return -1;
    }
    errno = 0;
    v = strtoul (s, &end, 10);
    if (errno || *end || v > UINT32_MAX - 1 || (v == 0 && !allow_zero)) {
        errno = errno == ERANGE || v > UINT32_MAX - 1 ? ERANGE : EINVAL;
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int opt_parse_nodes (const char *s, uint32_t *min, uint32_t *max)
{
    const char *dash = s ? strchr (s, '-') : NULL;
    char lo[16];

    if (!dash) {
        *max = 0;
        return opt_parse_count (s, false, min);
    }
    if ((size_t)(dash - s) >= sizeof (lo)) {
        errno = EINVAL;
        return -1;
    }
    memcpy (lo, s, (size_t)(dash - s));
    lo[dash - s] = '\0';
    if (opt_parse_count (lo, false, min) < 0
        || opt_parse_count (dash + 1, false, max) < 0 || *max < *min) {
        errno = EINVAL;
        return -1;
    }
    if (*max == *min)
        *max = 0;
    return 0;
}

int opt_parse_nice (const char *s, int32_t *out)
{
    char *end;
    long long v;

    if (!s) {
        *out = 100;
        return 0;
    }
    errno = 0;
    v = strtoll (s, &end, 10);
    if (end == s || *end || (errno && errno != ERANGE)) {
        errno = EINVAL;
        return -1;
    }
    if (errno == ERANGE || v < -OPT_NICE_MAX || v > OPT_NICE_MAX) {
        errno = ERANGE;
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

/* Multiplier turning a size with 'suffix' into KB; 0 if unknown. */
static uint64_t mem_unit_kb (const char *suffix)
{
    static const struct {
        char c;
        uint64_t kb;
    } units[] = {
        { 'K', 1 },
        { 'M', 1024 },
        { 'G', 1024ull * 1024 },
        { 'T', 1024ull * 1024 * 1024 },
    };

    if (*suffix == '\0')
        return 1024;
    if (suffix[1] != '\0'
        && !(suffix[2] == '\0' && (suffix[1] == 'B' || suffix[1] == 'b')))
        return 0;
    for (size_t i = 0; i < sizeof (units) / sizeof (units[0]); i++) {
        if (units[i].c == suffix[0] || units[i].c + 32 == suffix[0])
            return units[i].kb;
    }
    return 0;
}

int opt_parse_mem (const char *s, uint64_t *mb)
{
    char *end;
    unsigned long long v;
    uint64_t unit;

    if (!s || *s < '0' || *s > '9') {
        errno = EINVAL;
        return -1;
    }
    errno = 0;
    v = strtoull (s, &end, 10);
    if (errno)
        return -1;
    if (!(unit = mem_unit_kb (end))) {
        errno = EINVAL;
        return -1;
    }
    if (v > UINT64_MAX / unit / 2) {
        errno = ERANGE;
        return -1;
    }
    *mb = (v * unit + 1023) / 1024;
    return 0;
}

void opt_defaults (struct alloc_opts *o)
{
    memset (o, 0, sizeof (*o));
    o->cpus_per_task = 1;
}

void opt_init (struct alloc_opts *o)
{
    const char *s;
    uint32_t minutes;

    opt_defaults (o);
    if ((s = getenv ("SLURM_PARTITION")) && *s)
        o->partition = strdup (s);
    if ((s = getenv ("SLURM_ACCOUNT")) && *s)
        o->account = strdup (s);
    if ((s = getenv ("SLURM_TIMELIMIT"))
        && timestr_parse (s, &minutes, NULL) == 0)
        o->time_limit = minutes;
    if ((s = getenv ("SLURM_EXCLUSIVE")) && *s)
        o->exclusive = true;
}

void opt_clear (struct alloc_opts *o)
{
    free (o->job_name);
    free (o->account);
    free (o->licenses);
    free (o->partition);
    free (o->nodelist);
    free (o->exclude);
    free (o->chdir);
    free (o->mail_user);
    free (o->propagate);
    slurm_opts_clear (&o->slurm);
    memset (o, 0, sizeof (*o));
}

static struct msg_job_alloc opt_job_alloc_fields (const struct alloc_opts *o,
                                                  const char *name,
                                                  const char *cwd)
{
    return (struct msg_job_alloc){
        .name = (char *)name,
        .partition = o->partition ? o->partition : "",
        .nnodes = o->nnodes,
        .ntasks = o->ntasks,
        .cpus_per_task = o->cpus_per_task,
        .ntasks_per_node = o->ntasks_per_node,
        .nodelist = o->nodelist ? o->nodelist : "",
        .exclude = o->exclude ? o->exclude : "",
        .time_limit = o->time_limit,
        .mem_mb = o->mem_mb,
        .exclusive = o->exclusive,
        .cwd = (char *)cwd,
        .mem_per_cpu_mb = o->mem_per_cpu_mb,
        .warn_signal = o->warn_signal | (o->warn_batch ? WARN_SIGNAL_BATCH : 0),
        .warn_time = o->warn_time,
        .overcommit = o->overcommit,
        .account = o->account ? o->account : "",
        .licenses = o->licenses ? o->licenses : "",
        .nice = o->nice,
        .mail_type = o->mail_type,
        .mail_user = o->mail_user ? o->mail_user : "",
        .command = "",
        .nnodes_max = o->nnodes_max,
        .comment = "", /* unless carried (slurm_opts_carry) */
        .time_min = o->slurm.time_min,
        .mincpus = o->slurm.mincpus,
        .constraint = o->slurm.constraint ? o->slurm.constraint : "",
        .cpus_per_gpu = o->slurm.cpus_per_gpu,
        .mem_per_gpu = o->slurm.mem_per_gpu_mb,
        .tmp_mb = o->slurm.tmp_mb,
        .clusters = o->slurm.clusters ? o->slurm.clusters : "",
        .test_only = o->slurm.test_only,
        .hold = o->slurm.hold, /* srun's; sbatch/salloc: when_opts_apply */
        .cpus_per_task_set = o->cpus_per_task_set,
    };
}

struct msg_job_alloc opt_job_alloc (const struct alloc_opts *o,
                                    const char *name, const char *cwd)
{
    struct msg_job_alloc m = opt_job_alloc_fields (o, name, cwd);

    slurm_opts_carry (&o->slurm, &m);
    return m;
}

int opt_distribution (char **dst, const char *s)
{
    enum distrib d;
    uint32_t plane;
    arbor_error_t err;

    if (distrib_parse (s, &d, &plane, &err) < 0)
        return -1;
    return opt_set_str (dst, s);
}

int opt_set_str (char **dst, const char *s)
{
    char *copy = strdup (s);

    if (!copy)
        return -1;
    free (*dst);
    *dst = copy;
    return 0;
}

/* The name an option was given as, for messages: "--ntasks" for both -n
 * and --ntasks, as srun words it. */
static const char *opt_name (int c, const struct option *tab, char *buf,
                             size_t len)
{
    for (const struct option *o = tab; o->name; o++) {
        if (o->val == c) {
            snprintf (buf, len, "--%s", o->name);
            return buf;
        }
    }
    snprintf (buf, len, "-%c", c);
    return buf;
}

static int opt_bad (const char *prog, int c, const struct option *tab,
                    const char *val, arbor_error_t *err)
{
    char name[64];

    errno = EINVAL;
    return errprintf (err, "%s: invalid %s '%s'", prog,
                      opt_name (c, tab, name, sizeof (name)), val);
}

/* --nice's message also says what it takes, since the bound is not one
 * anybody would guess. */
static int opt_bad_nice (const char *prog, const char *val, arbor_error_t *err)
{
    errno = EINVAL;
    return errprintf (err,
                      "%s: invalid --nice '%s': an integer from %d to %d "
                      "expected",
                      prog, val ? val : "", -OPT_NICE_MAX, OPT_NICE_MAX);
}

/* --mail-type's message lists the valid words (common/spec/mailtype.h). */
static int opt_bad_mail (const char *prog, const char *val, arbor_error_t *err)
{
    arbor_error_t e;
    uint32_t m;

    (void)mailtype_parse (val, &m, &e);
    errno = EINVAL;
    return errprintf (err, "%s: %s", prog, e.text);
}

/* A hostlist option value must parse. */
static int opt_set_hostlist (char **dst, const char *s)
{
    struct hostlist *hl = hostlist_create (s, NULL);

    if (!hl || hostlist_count (hl) == 0) {
        hostlist_destroy (hl);
        errno = EINVAL;
        return -1;
    }
    hostlist_destroy (hl);
    return opt_set_str (dst, s);
}

/* --propagate[=LIST]: checked now; kept as given ("" for no LIST: all). */
static int opt_parse_propagate (const char *s, char **dst)
{
    uint32_t mask;

    if (s && rlimits_parse (s, &mask, NULL) < 0)
        return -1;
    return opt_set_str (dst, s ? s : "");
}

/* Handle one shared option. 1 if 'c' is not one of ours, 0 done, -1 bad. */
static int opt_alloc_one (struct alloc_opts *o, int c, const char *a)
{
    switch (c) {
    case 'N': return opt_parse_nodes (a, &o->nnodes, &o->nnodes_max);
    case 'n': return opt_parse_count (a, false, &o->ntasks);
    case 'c':
        o->cpus_per_task_set = true;
        return opt_parse_count (a, false, &o->cpus_per_task);
    case OPT_NTASKS_PER_NODE:
        return opt_parse_count (a, false, &o->ntasks_per_node);
    case OPT_JOBID: return opt_parse_count (a, false, &o->jobid);
    case 'w': return opt_set_hostlist (&o->nodelist, a);
    case 'x': return opt_set_hostlist (&o->exclude, a);
    case 'p': return *a ? opt_set_str (&o->partition, a) : -1;
    case 'J': return opt_set_str (&o->job_name, a);
    case 'A': return *a ? opt_set_str (&o->account, a) : -1;
    case 'L': return *a ? opt_set_str (&o->licenses, a) : -1; /* ctld checks */
    case OPT_NICE: return opt_parse_nice (a, &o->nice);
    case OPT_MAIL_TYPE: return mailtype_parse (a, &o->mail_type, NULL);
    case OPT_MAIL_USER: return *a ? opt_set_str (&o->mail_user, a) : -1;
    case OPT_PROPAGATE: return opt_parse_propagate (a, &o->propagate);
    case 'D': return *a ? opt_set_str (&o->chdir, a) : -1;
    case 't': return timestr_parse (a, &o->time_limit, NULL);
    case OPT_MEM: return opt_parse_mem (a, &o->mem_mb);
    case OPT_MEM_PER_CPU: return opt_parse_mem (a, &o->mem_per_cpu_mb);
    case OPT_SIGNAL: {
        int batch,
            rc = signame_parse_warning (a, o->warn_batch_ok, &o->warn_signal,
                                        &o->warn_time, &batch);
        o->warn_batch = batch != 0;
        return rc;
    }
    case OPT_EXCLUSIVE: o->exclusive = true; return 0;
    case 'O': o->overcommit = true; return 0;
    case 'v': o->verbose++; return 0;
    case 'h': o->help = true; return 0;
    case 'V': o->version = true; return 0;
    case VERSION_OPT_USAGE: o->usage = true; return 0;
    default: return 1;
    }
}

/* Build the combined long option table: ours, the command's, then
 * Slurm's others (opt_slurm.h) that neither defines; caller frees. */
static struct option *opt_merge (const struct option *extra, unsigned cmd)
{
    size_t n1 = sizeof (alloc_longopts) / sizeof (alloc_longopts[0]) - 1;
    size_t n2 = 0, max;
    struct option *tab;

    while (extra && extra[n2].name)
        n2++;
    max = n1 + n2 + SLURM_MAX_LONGOPTS;
    if (!(tab = calloc (max + 1, sizeof (*tab))))
        return NULL;
    memcpy (tab, alloc_longopts, n1 * sizeof (*tab));
    if (n2)
        memcpy (tab + n1, extra, n2 * sizeof (*tab));
    slurm_longopts (tab, n1 + n2, max, cmd ? cmd : SLURM_CMD_ALL);
    return tab;
}

/* Does getopt's 'c' belong to the command (its own letters win)? */
static bool opt_extra_letter (const struct opt_extra *extra, int c)
{
    return extra && extra->shortopts && c > 0 && c < 0x100
           && strchr (extra->shortopts, c);
}

/* Names in 'tab' that 'arg' ("--mem-p=1") abbreviates, or 0. */
static int opt_ambiguous (const char *arg, const struct option *tab, char *list,
                          size_t len)
{
    size_t plen = strcspn (arg + 2, "="), used = 0;
    int n = 0;

    list[0] = '\0';
    for (const struct option *o = tab; o->name; o++) {
        if (strncmp (o->name, arg + 2, plen) || strlen (o->name) == plen)
            continue;
        n++;
        if (used < len)
            used +=
                (size_t)snprintf (list + used, len - used, " '--%s'", o->name);
    }
    return n;
}

int opt_getopt_error (int c, char **argv, const char *prog,
                      const struct option *tab, arbor_error_t *err)
{
    const char *arg = argv[optind - 1];
    char name[64], list[120];

    errno = EINVAL;
    if (c == ':') {
        if (optopt)
            opt_name (optopt, tab, name, sizeof (name));
        else
            snprintf (name, sizeof (name), "%s", arg);
        return errprintf (err, "%s: option '%s' requires an argument", prog,
                          name);
    }
    if (optopt && strncmp (arg, "--", 2) != 0)
        return errprintf (err, "%s: invalid option -- '%c'", prog, optopt);
    if (!strncmp (arg, "--", 2)
        && opt_ambiguous (arg, tab, list, sizeof (list)) > 1)
        return errprintf (err,
                          "%s: option '%.*s' is ambiguous; possibilities:%s",
                          prog, (int)strcspn (arg, "="), arg, list);
    return errprintf (err, "%s: unrecognized option '%s'", prog, arg);
}

/* One option of the merged table: ours, the command's letters, Slurm's
 * others, then the rest of the command's. 0, or -1 with err. */
static int opt_one (struct alloc_opts *o, const struct opt_extra *extra, int c,
                    const char *prog, const struct option *tab,
                    arbor_error_t *err)
{
    int rc = opt_extra_letter (extra, c) ? 1 : opt_alloc_one (o, c, optarg);

    if (rc == 1 && !opt_extra_letter (extra, c))
        rc = slurm_opt_one (&o->slurm, c, optarg);
    if (rc == 1)
        rc = extra && extra->cb ? extra->cb (c, optarg, extra->arg) : -1;
    if (rc < 0 && c == OPT_NICE)
        return opt_bad_nice (prog, optarg, err);
    if (rc < 0 && c == OPT_MAIL_TYPE) /* say which words are valid */
        return opt_bad_mail (prog, optarg, err);
    if (rc < 0 && o->slurm.err.text[0]) { /* a parser's own words */
        errno = EINVAL;
        return errprintf (err, "%s: %s", prog, o->slurm.err.text);
    }
    if (rc < 0)
        return opt_bad (prog, c, tab, optarg ? optarg : "", err);
    return 0;
}

/* Checks across options, once all are read. */
static int opt_finish (struct alloc_opts *o, const char *prog,
                       arbor_error_t *err)
{
    if (slurm_unsupported_check (&o->slurm, prog, err) < 0)
        return -1;
    if (o->mem_mb && o->mem_per_cpu_mb) {
        errno = EINVAL;
        return errprintf (err,
                          "%s: --mem and --mem-per-cpu are mutually "
                          "exclusive",
                          prog);
    }
    return 0;
}

int opt_parse (struct alloc_opts *o, int argc, char **argv,
               const struct opt_extra *extra, arbor_error_t *err)
{
    const char *prog = argv[0];
    unsigned cmd = extra && extra->cmd ? extra->cmd : SLURM_CMD_ALL;
    char shortopts[256], more[96];
    struct option *tab;
    int c, rc = 0;

    slurm_shortopts (cmd, extra && extra->shortopts ? extra->shortopts : "",
                     more, sizeof (more));
    snprintf (shortopts, sizeof (shortopts), "+:%s%s%s", alloc_shortopts,
              extra && extra->shortopts ? extra->shortopts : "", more);
    if (!(tab = opt_merge (extra ? extra->longopts : NULL, cmd)))
        return errprintf (err, "%s: out of memory", prog);
    optind = 0;
    opterr = 0;
    while (rc == 0
           && (c = getopt_long (argc, argv, shortopts, tab, NULL)) != -1) {
        if (c == '?' || c == ':')
            rc = opt_getopt_error (c, argv, prog, tab, err);
        else
            rc = opt_one (o, extra, c, prog, tab, err);
    }
    free (tab);
    if (rc == 0 && opt_finish (o, prog, err) < 0)
        return -1;
    return rc < 0 ? -1 : optind;
}

void opt_getopt_die (int c, char **argv, const char *prog,
                     const struct option *tab)
{
    arbor_error_t err;

    opt_getopt_error (c, argv, prog, tab, &err);
    fprintf (stderr, "%s\nTry '%s --help' for more information.\n", err.text,
             prog);
    exit (1);
}
