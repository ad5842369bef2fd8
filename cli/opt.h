/* opt.h - the allocation options shared by arbor run, arbor alloc and the
 * test tools, parsed with getopt_long under Slurm's names and letters.
 *
 *   -N/--nodes N  -n/--ntasks N  -c/--cpus-per-task N  --ntasks-per-node N
 *   -w/--nodelist HOSTLIST  -x/--exclude HOSTLIST  -p/--partition NAME
 *   -t/--time TIME  --mem SIZE  --mem-per-cpu SIZE  --exclusive
 *   -O/--overcommit  --signal=[R:]SIG[@TIME]  -J/--job-name NAME
 *   -A/--account NAME  -L/--licenses LIST  --nice[=ADJ]  -D/--chdir DIR
 *   --mail-type TYPE[,TYPE]  --mail-user USER
 *   -v/--verbose (repeatable)  --jobid ID
 *
 * A command adds its own options (a struct option table and short letters)
 * and gets them back through a callback. Parsing stops at the first
 * non-option argument (the command to run), as srun does. Errors are
 * returned in an arbor_error_t phrased for the user:
 *     "arbor run: unrecognized option '--foo'"
 *     "arbor run: invalid --ntasks 'x'"
 * and the caller adds the usage hint and exits 1.
 */
#ifndef ARBOR_CLI_OPT_H
#define ARBOR_CLI_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include "error.h"
#include "opt_slurm.h"
#include "proto.h"

struct alloc_opts {
    char *job_name;           /* -J, NULL: the command's basename */
    char *account;            /* -A, NULL: none */
    char *licenses;           /* -L as given (the ctld checks it), NULL */
    int32_t nice;             /* --nice: subtracted from the priority; 0
                                 none */
    char *partition;          /* -p, NULL: default partition */
    uint32_t nnodes;          /* -N, 0: not given (the minimum of a range) */
    uint32_t nnodes_max;      /* -N MIN-MAX: MAX; 0: no range */
    uint32_t ntasks;          /* -n, 0: not given */
    uint32_t cpus_per_task;   /* -c, default 1 */
    bool cpus_per_task_set;   /* -c given (or its input variable) */
    uint32_t ntasks_per_node; /* 0: not given */
    char *nodelist;           /* -w, NULL: not given */
    char *exclude;            /* -x */
    uint32_t time_limit;      /* -t in minutes, 0: partition default */
    uint64_t mem_mb;          /* --mem per node, 0: not given */
    uint64_t mem_per_cpu_mb;  /* --mem-per-cpu, 0: not given; excludes
                                 --mem, as in Slurm */
    int warn_signal;          /* --signal SIG, 0: none */
    bool warn_batch;          /* --signal=B:...: the batch shell alone */
    bool warn_batch_ok;       /* B: is accepted (sbatch), set by the caller */
    uint32_t warn_time;       /* ... seconds before the time limit */
    bool exclusive;
    bool overcommit;         /* -O: more tasks than cores */
    char *chdir;             /* -D, NULL: current directory */
    int verbose;             /* -v count */
    uint32_t jobid;          /* --jobid, 0: not given */
    uint32_t mail_type;      /* --mail-type: MAIL_* (mailtype.h); 0 none */
    char *mail_user;         /* --mail-user, NULL: the submitting user */
    char *propagate;         /* --propagate LIST, "" ALL; NULL: not given
                                (PropagateResourceLimits; rlimits.h) */
    bool help;               /* -h/--help */
    bool version;            /* -V/--version */
    bool usage;              /* --usage (version.h) */
    struct slurm_opts slurm; /* Slurm's other options (opt_slurm.h) */
};

/* A command's own option: 'c' is getopt_long's return value for it.
 * Return 0 if handled, -1 if its argument is bad (opt_parse then reports
 * "PROG: invalid --NAME 'VALUE'"). */
typedef int (*opt_extra_f) (int c, const char *optarg, void *arg);

struct opt_extra {
    const struct option *longopts; /* terminated by a zero entry; may be NULL */
    const char *shortopts;         /* getopt letters, may be NULL */
    opt_extra_f cb;
    void *arg;
    unsigned cmd; /* SLURM_CMD_RUN/ALLOC/BATCH: which of Slurm's other
                     options it takes (opt_slurm.h); 0: all */
};

/* Set defaults (cpus_per_task 1) and apply SLURM_PARTITION,
 * SLURM_TIMELIMIT and SLURM_EXCLUSIVE (arbor alloc's behaviour; arbor run
 * reads srun's whole set of input variables through its own optenv
 * table, cmd_run.c). Bad values in the environment are ignored. */
void opt_init (struct alloc_opts *o);
/* The defaults alone (no environment). */
void opt_defaults (struct alloc_opts *o);

/* Parse argv (argv[0] is the program name used in messages). Returns the
 * index of the first non-option argument, or -1 with err. Resets getopt's
 * state, so it may be called more than once in a process. */
int opt_parse (struct alloc_opts *o, int argc, char **argv,
               const struct opt_extra *extra, arbor_error_t *err);

void opt_clear (struct alloc_opts *o);

/* The JOB_ALLOC request that the options ask for, named 'name', with
 * working directory 'cwd'. The strings stay the options' (and the
 * caller's): the request is valid while they are. */
struct msg_job_alloc opt_job_alloc (const struct alloc_opts *o,
                                    const char *name, const char *cwd);

/* Slurm memory sizes: "100" (MB), "100K", "100M", "4G", "1T" (any case,
 * an optional trailing B). Kilobytes round up to whole MB. 0 or -1 with
 * errno EINVAL / ERANGE. */
int opt_parse_mem (const char *s, uint64_t *mb);

/* Replace *dst (freed) by a copy of s. 0, or -1 with errno ENOMEM (*dst
 * unchanged). */
int opt_set_str (char **dst, const char *s);

/* sbatch's and salloc's -m: checked (common/spec/distrib.h), kept as given
 * in *dst for SLURM_DISTRIBUTION. 0, or -1 (bad value, ENOMEM). */
int opt_distribution (char **dst, const char *s);

/* -N: "N" (*max 0) or "MIN-MAX" (MIN <= MAX; equal ones are "N"). */
int opt_parse_nodes (const char *s, uint32_t *min, uint32_t *max);

/* A positive decimal count ("0" refused unless allow_zero). 0 or -1. */
int opt_parse_count (const char *s, bool allow_zero, uint32_t *out);

/* --nice's bound, as Slurm's: |ADJ| <= OPT_NICE_MAX, so that the
 * controller can add it to a priority offset without overflow. */
#define OPT_NICE_MAX 2147483645
/* --nice[=ADJ]: NULL (no value) is 100, as in Slurm; else a decimal
 * integer within +-OPT_NICE_MAX. 0, or -1 with errno EINVAL / ERANGE.
 * Negative values are accepted here: only the controller knows whether
 * the user may ask for them (root, ArborUser). */
int opt_parse_nice (const char *s, int32_t *out);

/* The text printed by "--help" for the shared options. */
extern const char opt_alloc_help[];

/* The message for getopt_long's '?' (unknown option) or ':' (missing
 * argument) just returned by a loop over 'tab' (errno EINVAL, returns -1):
 * "arbor info: unrecognized option '--foo'". */
int opt_getopt_error (int c, char **argv, const char *prog,
                      const struct option *tab, arbor_error_t *err);
/* Commands only: print that message and a --help hint, exit(1). */
void opt_getopt_die (int c, char **argv, const char *prog,
                     const struct option *tab) __attribute__ ((noreturn));

#endif
