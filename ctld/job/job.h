/* job.h - the job record, made, refilled, cloned and freed (job.c).
 *
 * A job lives in ctx->jobs (submit order, jobs.h) from job_submit until
 * jobs_purge forgets it. What a job's run holds is job_alloc.h's; its
 * queries (state shown, access, reason) are job_base.h's. How a job
 * ends is term.h's; its steps are
 * step.h's.
 */
#ifndef ARBOR_CTLD_JOB_H
#define ARBOR_CTLD_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "depspec.h"
#include "error.h"
#include "featspec.h"
#include "licspec.h"
#include "proto.h"
#include "sched/gres_sched.h"
#include "sched/select.h"
#include "states.h"
#include "job/job_base.h" /* its queries: every user of a record asks them */

struct batch;
struct conn;
struct ctld;
struct step;
struct term_node;

#define CTLD_MAX_TIME_LIMIT                                  \
    52560000u                /* minutes (100 years): more is \
                           UNLIMITED, and seconds fit in 32 bits */
#define CTLD_WARN_DEFAULT 60 /* s: --signal=SIG without @TIME */

/* enum job_state and the state names are common/util/states.h's, shared with
 * the commands. A job record is PENDING, RUNNING or an end state;
 * SUSPENDED is a running job's 'suspended' flag and COMPLETING its
 * 'completing' flag. */

/* One node of a running job's allocation. */
struct job_node {
    size_t node;                 /* index into ctld->nodes */
    uint32_t cpus;               /* cores held there */
    uint32_t tasks;              /* tasks of the job layout there */
    uint32_t ncores;             /* node->cpus: length of the masks below */
    uint8_t *cores;              /* 1 if this job's */
    uint8_t *step_cores;         /* 1 if used by a running step */
    uint64_t mem_mb;             /* memory held there (--mem or per cpu) */
    uint32_t step_cpus;          /* cores used by running steps */
    uint64_t step_memory;        /* MB used by running steps */
    bool released;               /* share given back (job_node_release) */
    struct gresalloc *gres;      /* generic resources held there (gres_sched.h);
                                    NULL none */
    struct gresalloc *step_gres; /* of those, held apart by running steps
                                    (step_gres.h); NULL none */
};

struct job {
    struct job *next;  /* submit order */
    struct job *hnext; /* job_find's bucket (job.c) */
    uint32_t id;
    char *name;
    char *account; /* -A; "" none */
    char *qos;     /* its QOS (ctld/assoc/policy.h); "" none (volatile
                      controllers of the tests) */
    char *command; /* squeue's %o (JOB_ALLOC command); "" none */
    int32_t nice;  /* --nice: less priority (prio.h) */
    uid_t uid;
    gid_t gid;
    char *user;
    char *cwd;
    size_t part;           /* index into ctld->parts */
    struct select_req req; /* normalized request */
    bool *required;        /* per partition node: -w */
    bool *excluded;        /* per partition node: -x */
    size_t nrequired;
    uint32_t time_limit; /* minutes or TIME_INFINITE */
    enum job_state state;
    bool completing;         /* ended, epilog not done on every node */
    bool oom;                /* a step reported an OOM kill */
    bool warned;             /* the --signal warning was sent */
    bool suspended;          /* RUNNING, its processes stopped (action.c):
                                shown SUSPENDED */
    time_t suspend_time;     /* ... since */
    uint32_t suspended_secs; /* earlier suspensions: its time limit
                                does not count them */
    int32_t warn_signal;     /* --signal=SIG@TIME; 0: none */
    uint32_t warn_time;      /* s before the time limit */
    char *reason;            /* pending reason or end reason; may be NULL */
    int exit_rc;             /* highest rc reported (launcher, complete) */
    int exit_signal;         /* exit_rc is 128 + this signal; 0: an exit */
    time_t submit_time, start_time, end_time;
    struct job_node *nodes; /* when running */
    size_t nnodes;
    struct term_node *term; /* per job node: term.c's (term.h); made
                               zeroed by job_start, freed with the job */
    char *nodelist;         /* ranged; NULL until started */
    struct step *steps;     /* running steps */
    uint32_t next_step_id;
    struct conn *owner;      /* allocating connection, NULL once gone */
    uint32_t owner_tag;      /* matchtag of its JOB_ALLOC */
    struct batch *batch;     /* a batch job's script (batch.h, shared by the
                                tasks of an array); NULL for an allocation */
    struct licspec lic;      /* -L as asked (licenses.h); n 0: none */
    struct job_gres gres;    /* --gres, --gpus... (sched/gres_sched.h) */
    struct featspec feat;    /* -C (sched/constraint.h); n 0: none */
    struct licspec lic_held; /* the choice it holds while it runs and
                                completes; n 0: none held */

    /* When it may start (sbatch/salloc options; when.c) */
    uint32_t array_job_id;   /* its array's id (its first task's); 0 if
                                not an array task */
    uint32_t array_task_id;  /* its index */
    uint32_t array_throttle; /* %N: tasks of the array running at once */
    uint32_t array_count, array_min, array_max; /* of the whole array */
    struct depspec deps;   /* dependencies not yet satisfied */
    char *dependency;      /* --dependency as given ("" none) */
    bool keep_invalid_dep; /* unsatisfiable: stay pending */
    bool held;             /* held (hold or --hold) */
    bool held_admin;       /* ... by an administrator */
    time_t begin_time;     /* --begin; 0 none */
    bool requeue;          /* a node failure requeues it */
    bool requeue_pending;  /* requeue once done completing */
    bool batch_launched;   /* this run's batch step was sent LAUNCH */
    bool batch_reported;   /* ... and its STEP_COMPLETE came: a requeue
                              waits for it, so that a late report of an
                              old run never ends the next one */
    uint32_t restarts;     /* times requeued */
    uint32_t prologs_left; /* allocation-time Prologs not yet done
                              (prolog.h); granted at 0 */
    bool granted;          /* its requester got it / its script runs */
    time_t reattach_by;    /* restored allocation: ended at this time
                              unless its requester attaches (persist.h);
                              0: none awaited */

    /* Its history (events.h) */
    struct job_event *events;
    uint32_t nevents;
    uint32_t events_dropped; /* past JOB_EVENTS_MAX */
    time_t eligible_time;    /* first became eligible this run; 0: not yet */
    time_t expected_start;   /* planned by backfill (backfill.h); 0: none */

    /* Its durable record (persist.h) */
    char *request; /* its JOB_ALLOC, encoded, batch fields left out */
    size_t request_len;
    uint64_t user_bytes; /* its share of what its owner chose the size of
                            (JOB_MAX_USER_BYTES, job.c) */
    uint64_t seq;        /* its place in the submit order; 0: not written */
    bool dirty;          /* to be written */

    /* Slurm's other submission options (job_slurm.c) */
    char *comment;     /* --comment; "" none (NULL until filled) */
    uint32_t time_min; /* --time-min, minutes; 0 none */
    struct {
        uint32_t min, max;   /* -N MIN-MAX; max 0: no range. req.nnodes
                                is what a run got (sched_range.c) */
        bool per_node_tasks; /* no -n: its tasks follow its node count */
    } range;

    /* Its accounting record (acct.h) */
    bool acct_written; /* this run's end is in the accounting database */

    /* Its mail (mail.h) */
    uint32_t mail_type; /* --mail-type: MAIL_* (common/spec/mailtype.h) */
    char *mail_user;    /* where it goes; NULL: nowhere */
    uint32_t mail_sent; /* MAIL_* sent this run that must not repeat */
};

/* The most one user's kept jobs (pending, running, finished until
 * purged) may hold of what the user chose the size of: their saved
 * requests (script, environment, arguments, command). Listings are paged
 * whatever this is; it bounds the controller's memory per user. */
#define JOB_MAX_USER_BYTES (64u << 20)
/* Validate 'req' from uid/gid and build a PENDING job (not yet listed).
 * NULL with errno EINVAL/ENOMEM, or EAGAIN over JOB_MAX_USER_BYTES (not
 * checked while the state database is restored), and err. */
struct job *job_create (struct ctld *ctx, const struct msg_job_alloc *req,
                        uid_t uid, gid_t gid, arbor_error_t *err);
void job_destroy (struct job *j);
/* Check pending job j against 'req', its request changed (scontrol
 * update), as job_create checked it at submission ('admin': the change
 * comes from root/ArborUser, who may set a negative nice). On success
 * j takes the new partition, request, node masks, nice and time limit,
 * and keeps 'req' as its recorded request; else -1 with errno and err,
 * j unchanged. */
int job_refill (struct ctld *ctx, struct job *j,
                const struct msg_job_alloc *req, bool admin,
                arbor_error_t *err);

/* A copy of pending job 'src' (not listed, no id): the next task of its
 * array; it shares src's script. NULL with errno ENOMEM. */
struct job *job_clone (const struct ctld *ctx, const struct job *src);

#endif
