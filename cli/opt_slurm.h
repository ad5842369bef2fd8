/* opt_slurm.h - the rest of Slurm's submission options, for srun, salloc
 * and sbatch alike, beside opt.c's core set:
 *
 *   - aliases Slurm documents (--tasks-per-node for --ntasks-per-node);
 *   - options Arbor takes for what they mean here: --comment, --time-min,
 *     --mincpus, --tmp, --hint, --ntasks-per-core, --cpu-freq,
 *     -M/--clusters (this cluster only), --get-user-env, --test-only,
 *     -q/--qos (sent as given: the controller checks it);
 *   - options Arbor does not support: each one given is remembered, and
 *     opt_parse names them all in one message at the end
 *       "srun: error: not supported by Arbor: --wckey, --switches (see
 *        arbor-slurm(7))"
 *     rather than stopping at the first as "unrecognized". The reasons
 *     are in docs/slurm-differences.md, which a unit test keeps in step
 *     with the table.
 *
 * opt.c merges slurm_longopts into every command's table and hands the
 * values to slurm_opt_one.
 */
#ifndef ARBOR_CLI_OPT_SLURM_H
#define ARBOR_CLI_OPT_SLURM_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#include "error.h"

/* Which command an option belongs to (Slurm's own split). */
enum {
    SLURM_CMD_RUN = 1,
    SLURM_CMD_ALLOC = 2,
    SLURM_CMD_BATCH = 4,
    SLURM_CMD_ALL = 7,
};

/* getopt values: accepted options from SLURM_OPT_BASE, unsupported ones
 * from SLURM_UNSUP_BASE + their index in the table. */
#define SLURM_OPT_BASE 0x600
#define SLURM_UNSUP_BASE 0x700
#define SLURM_UNSUP_MAX 128 /* entries of slurm_unsupported, at most */

/* Options carried to the job's request as given: at most this many
 * (opt_slurm.c's 'carried' table). */
#define SLURM_CARRIED_MAX 16

/* What the accepted options asked for. */
struct slurm_opts {
    char *carried[SLURM_CARRIED_MAX]; /* each carried option's text (as
                                         the table orders them); NULL:
                                         not given */
    uint32_t time_min;                /* --time-min, minutes; 0 none */
    uint32_t mincpus;                 /* --mincpus: cores a node must offer */
    uint64_t tmp_mb;                  /* --tmp: TmpDisk a node must have, MB */
    char *hint;                       /* --hint, checked; NULL none */
    uint32_t ntasks_per_core;         /* --ntasks-per-core, 0 none */
    char *cpu_freq;                   /* --cpu-freq, checked; NULL none */
    char *clusters;                   /* -M, NULL none (checked by the ctld) */
    char *constraint;                 /* -C, parsed (featspec.h); NULL none */
    uint32_t cpus_per_gpu;            /* --cpus-per-gpu; 0 none */
    uint64_t mem_per_gpu_mb;          /* --mem-per-gpu; 0 none */
    arbor_error_t err; /* why the last option's value was refused, when a
                          parser said more than "invalid"; "" none */
    bool get_user_env; /* --get-user-env (see docs) */
    bool test_only;    /* --test-only: ask when, submit nothing */
    bool hold;         /* srun -H/--hold: submitted held */
    bool unsupported[SLURM_UNSUP_MAX]; /* [i]: slurm_unsupported[i] given */
};

struct slurm_unsupported {
    const char *name; /* long name, no dashes */
    char letter;      /* its short letter, or 0 */
    int has_arg;      /* getopt's */
    unsigned cmds;    /* SLURM_CMD_* it exists in */
};

/* Terminated by a zero entry; fewer than SLURM_UNSUP_MAX entries. */
extern const struct slurm_unsupported slurm_unsupported[];

/* At most this many long options come from here. */
#define SLURM_MAX_LONGOPTS 96

/* Append the long options of command 'cmd' (SLURM_CMD_*) to tab[0..n),
 * leaving out names tab already has; at most max entries in all.
 * Returns the new count. */
size_t slurm_longopts (struct option *tab, size_t n, size_t max, unsigned cmd);
/* Their short letters for getopt ("M:G:q:..."), leaving out those in
 * 'taken' (the command's own letters win). */
void slurm_shortopts (unsigned cmd, const char *taken, char *buf, size_t len);

/* Handle option 'c' (value a), which came from the tables above. 1 if it
 * is not one of these, 0 done, -1 bad value. */
int slurm_opt_one (struct slurm_opts *s, int c, const char *a);

/* The message for the unsupported options given, or 0 if none. */
int slurm_unsupported_check (const struct slurm_opts *s, const char *prog,
                             arbor_error_t *err);

void slurm_opts_clear (struct slurm_opts *s);

/* Set the request's fields of the carried options that were given (their
 * text is borrowed from s). */
void slurm_opts_carry (const struct slurm_opts *s, struct msg_job_alloc *req);
/* The text given for carried option 'name' ("comment"), or NULL. */
const char *slurm_carried (const struct slurm_opts *s, const char *name);

/* Values Slurm documents, checked: --hint, --cpu-freq. 0 or -1. */
int slurm_hint_check (const char *s);
int slurm_cpu_freq_check (const char *s);

#endif
