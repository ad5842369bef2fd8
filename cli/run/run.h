/* run.h - the launcher behind "arbor run" (srun): cli/run/'s only interface.
 *
 * cmd_run.c parses the command line into a struct run_opts and hands it,
 * with the command to run, to run_step(). Everything after that happens in
 * cli/run/ (run_base.h lists its stages): the job and the step, the
 * stepds' connections and their output, stdin, signals, early ends, and
 * the exit status. The room knows nothing of the command's option parsing,
 * and nothing outside it sees its context.
 */
#ifndef ARBOR_CLI_RUN_H
#define ARBOR_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include "opt.h"
#include "rlimits.h"

struct run_opts {
    struct alloc_opts alloc;
    bool label;             /* -l */
    bool unbuffered;        /* -u */
    char *output;           /* -o pattern */
    char *error;            /* -e pattern */
    int32_t stdin_task;     /* -i: STDIN_ALL, STDIN_NONE or a task id */
    char *input_file;       /* -i PATTERN: each task reads its own file,
                               opened on its node (stdin_task STDIN_NONE) */
    int kill_bad_exit;      /* -K: 1, 0, or -1 (KillOnBadExit decides) */
    char *export_spec;      /* --export, NULL: ALL */
    char *mpi;              /* --mpi / SLURM_MPI_TYPE, NULL: MpiDefault */
    char *distribution;     /* -m, canonical: "cyclic", "plane=4",
                               "arbitrary"; NULL: block */
    bool multi_prog;        /* --multi-prog: argv[0] names the configuration */
    bool quiet;             /* -Q: errors only */
    bool quit_on_interrupt; /* one Ctrl-C ends the step */
    char *cpu_bind;         /* --cpu-bind, canonical (cpubind_text); NULL:
                               TaskPlugin's default */
    bool overlap;           /* --overlap */
    bool exact;             /* --exact */
    int immediate;          /* -I: -1 not given, 0 at once, else seconds */
    bool pty;               /* --pty: task 0 on a pseudo-terminal, our
                               terminal raw, stdin to task 0 only */
    bool interactive;       /* --interactive: the job's interactive step
                               (salloc's shell, STEP_ID_INTERACTIVE) */
    bool preserve_env;      /* -E: SLURM_NTASKS, SLURM_JOB_NUM_NODES kept */
    char *task_prolog;      /* --task-prolog, NULL none */
    char *task_epilog;      /* --task-epilog, NULL none */
    struct rlimits_want limits; /* the caller's soft limits when it started,
                                   before srun raised its open-file one
                                   for its connections (rlimits.h) */
};

/* Run the command argv[0..argc) (argc >= 1) as a job step with the options
 * 'opt' (borrowed and not changed: the caller frees them afterwards).
 * 'prog' names us in messages ("arbor run", or "srun"). Call it before
 * opening any descriptor: closed standard descriptors are pointed at
 * /dev/null first. Returns srun's exit status: 128 + the largest signal
 * that killed a task, else the highest exit code; 1 if the launch failed
 * (the reason is printed on stderr). */
int run_step (const char *prog, const struct run_opts *opt, int argc,
              char **argv);

#endif
