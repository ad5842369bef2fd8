/* task_child.h - a task's life between its birth and its exec.
 *
 * tasks.c writes down, in a struct task_plan, everything a new task does
 * before it execs, with every decision taken in advance in the stepd (the
 * groups, the umask, which signals to reset, the environment, the pid's
 * place in it). The child then only makes system calls on memory it does
 * not change, which lets it share the stepd's memory rather than get a
 * copy: it is started with clone(CLONE_VM | CLONE_VFORK), the way
 * posix_spawn starts a process, which spares a copy of the stepd's page
 * tables per task and the copy-on-write faults that follow a fork, on
 * both sides. The stepd is paused until the child execs or exits.
 *
 * Sharing is used when the plugin lets the task put itself in its
 * container (there is then nothing for the stepd to do between the
 * child's birth and its exec), threads or not: the child writes nothing
 * another thread reads (not even environ: it searches the task's own
 * PATH, child_exec), so a running PMIx server thread cannot race it.
 * Otherwise the task is forked, and waits on the 'go' pipe while the
 * stepd contains it.
 */
#ifndef ARBOR_STEPD_TASK_CHILD_H
#define ARBOR_STEPD_TASK_CHILD_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "rlimits.h"

struct env;
struct stepd;

/* Enough for a pid (pid_max is at most 2^22) and its NUL. */
#define TASK_PID_ROOM 12

struct task_plan {
    struct stepd *sd; /* for contain_add_self */
    int in, out, err; /* become the task's 0, 1 and 2 (-1: keep) */
    int status;       /* close-on-exec write end: setup failures */
    int go;           /* read end: contained, go on; -1: add itself */
    int go_peer;      /* go's write end, which the forked child closes */
    bool tty;         /* in/out/err are a pseudo-terminal: a session of
                         its own, with it as controlling terminal */
    bool bind;        /* TaskPlugin=affinity: sched_setaffinity (cpus) */
    cpu_set_t cpus;
    /* --cpu-bind=verbose: "HEAD [PID]TAIL" on the task's stderr */
    char gpu_note[256]; /* --gpu-bind=verbose's line (gpus.h); "" none */
    bool bind_say;
    char bind_head[128];
    char bind_tail[272];
    const char *cores; /* for the message when binding fails */
    bool drop;         /* become uid/gid/gids (the stepd is root) */
    uid_t uid;
    gid_t gid;
    const gid_t *gids;
    size_t ngids;
    int umask;       /* -1: keep the stepd's */
    const char *cwd; /* NULL or "": stay */
    char *pid_slot;  /* TASK_PID_ROOM bytes of SLURM_TASK_PID's value */
    int keep_fd;     /* > 2: a stepd fd the task inherits (PMI_FD) */
    /* The batch script's files, opened by the child as the job's user
     * after its chdir, over its fds 0, 1 and 2 (NULL: keep in/out/err);
     * err_path NULL: stderr goes with stdout. */
    const char *out_path;
    const char *err_path;
    const char *in_path;
    bool append;       /* --open-mode=append, else truncate */
    bool cwd_fallback; /* an unusable cwd: /tmp instead of failing */
    char **argv;
    char **envp;
    const int *sigs; /* signals whose action in the stepd is not SIG_DFL */
    int nsigs;
    /* The launcher's soft limits (common/spec/rlimits.h), set once the child
     * is the job's user; 'rlim_note' (or NULL) is printed first on its
     * stderr: the limits lowered to this node's hard ones. */
    int nrlims;
    int rlim_res[RLIMITS_N];
    struct rlimit rlims[RLIMITS_N];
    const char *rlim_note;
    /* TaskProlog, then --task-prolog (NULL: none), run by the child once
     * it is in its directory, each bounded by prolog_secs; what they
     * print changes 'env' (which envp is the array of) before the exec
     * (task_prolog.c). Any of them makes the child a fork, not a sharer
     * of the stepd's memory: it allocates. */
    const char *prologs[2];
    unsigned prolog_secs;
    struct env *env;
    const char *who; /* "slurmstepd" or "arbor-stepd" (naming.h): the
                        name the child's messages to the user give */
};

/* The signals that a task must set back to SIG_DFL: those the stepd
 * catches or ignores, including glibc's internal ones. 'sigs' holds
 * NSIG entries; returns how many were stored. */
int task_plan_signals (int *sigs);

/* The supplementary groups of the job's user, malloc'd into *gids: the
 * credential's list when it has one, else the group database's for
 * 'user' (getgrouplist), else just gid. Returns the count, or -1 with
 * errno set. */
int task_plan_groups (const char *user, gid_t gid, const gid_t *cred_gids,
                      size_t cred_count, gid_t **gids);

/* Start the task described by 'p' (see above for how). Returns its pid,
 * or -1 with errno set if no process was made. Setup failures after the
 * child's birth travel on p->status as before. */
pid_t task_child_start (struct task_plan *p);

#endif
