/* jobstate.h - the one place a job's state changes: an event in, the new
 * state out.
 *
 * Every transition of a job (submitted, eligible, held, released,
 * allocated, granted, steps and batch script done, ended by whatever
 * cause, requeued, suspended, resumed, done completing, purged) is
 * posted here. jobstate_post checks that the event is legal in the job's
 * present state (an illegal one is refused and logged, nothing changes),
 * applies it (state, reason, times, exit code, flags), records it in the
 * job's history (events.h), marks the job for the grouped durable commit
 * (persist_job) and runs the reactions of the new state (start the batch
 * script or tell the requester, notify waiters, accounting, mail, the
 * termination sequence, a scheduling pass). Request handlers parse,
 * authorise and post; they never set a job's state themselves.
 *
 * Dependencies run one way: handlers (serve/) -> the job life (job/) ->
 * scheduler, state and accounting (sched/, state/, acct/). Within the job
 * life, the reactions that themselves post events (the batch launch, the
 * termination sequence) are called through hooks given at assembly
 * (jobstate_hooks_set), so that this file calls nothing that calls it.
 */
#ifndef ARBOR_CTLD_JOBSTATE_H
#define ARBOR_CTLD_JOBSTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "states.h"

struct ctld;
struct job;
struct select_result;

enum jobstate_ev {
    JS_SUBMIT,      /* queued with its id: PENDING */
    JS_ELIGIBLE,    /* may start from now (first time this run) */
    JS_HOLD,        /* kept from starting ('admin': JobHeldAdmin) */
    JS_RELEASE,     /* no longer held */
    JS_ALLOCATE,    /* PENDING -> RUNNING on 'res' */
    JS_PROLOG_DONE, /* its allocation may be used: script starts or the
                       requester gets JOB_ALLOCATED */
    JS_STEP_DONE,   /* a step's report (step_id, node, rc, signal, oom) */
    JS_EXIT,        /* the requester reports the exit code (rc, signal) */
    JS_BATCH_DONE,  /* its script ended (rc, signal): COMPLETED/FAILED */
    JS_COMPLETE,    /* JOB_COMPLETE: COMPLETED/FAILED by rc, a pending
                       one CANCELLED */
    JS_DONE,        /* ends COMPLETED */
    JS_FAIL,        /* ends FAILED */
    JS_CANCEL,      /* ends CANCELLED */
    JS_TIMEOUT,     /* ends TIMEOUT */
    JS_NODE_FAIL,   /* ends NODE_FAIL (requeued when it asked for it) */
    JS_REQUEUE,     /* a batch job is to run again: a running one ends
                       first (CANCELLED "Requeued", or 'state'/'reason') */
    JS_RERUN,       /* ended (or never started) job is PENDING again */
    JS_SUSPEND,     /* RUNNING, its processes stopped */
    JS_RESUME,      /* ... going on */
    JS_ATTACH,      /* a restored allocation's requester is back */
    JS_EPILOG_DONE, /* every node's epilog done: completing over */
    JS_PURGE,       /* an ended job is forgotten (the caller unlinks and
                       destroys it after) */
    JS_NEVENTS
};

/* What an event carries; unused fields stay zero. */
struct jobstate_arg {
    const char *reason; /* the end's (or hold's) reason; NULL none */
    bool has_who;       /* 'who' did it (recorded in the history) */
    uid_t who;
    bool admin;                      /* JS_HOLD by an administrator */
    int rc, signal;                  /* exit code reported */
    bool oom;                        /* a task was OOM-killed */
    uint32_t step_id;                /* JS_STEP_DONE */
    const char *node;                /* JS_STEP_DONE: reporting node; ""
                                        or NULL: the step's launcher */
    enum job_state state;            /* JS_REQUEUE: end state (0: CANCELLED) */
    const struct select_result *res; /* JS_ALLOCATE */
    time_t now;                      /* JS_ELIGIBLE: when; 0: ctld_now */
};

/* The reactions of the job life above the state machine. */
struct jobstate_hooks {
    /* JS_PROLOG_DONE of a batch job: launch its script (batch.c) */
    void (*script_start) (struct ctld *ctx, struct job *j);
    /* the end of a run that holds nodes: terminate it there (term.c) */
    void (*nodes_terminate) (struct ctld *ctx, struct job *j);
    /* a requeue asked: back to pending once its nodes are done (term.c) */
    void (*requeue_check) (struct ctld *ctx, struct job *j, time_t now);
};
/* Give the state machine its reactions: once, at assembly. */
void jobstate_hooks_set (struct ctld *ctx, const struct jobstate_hooks *h);
/* Post event 'ev' for job j ('arg' may be NULL). Returns j's state after
 * it, or -1 with errno EINVAL when the event is not legal in j's present
 * state (logged; nothing changed), or ENOMEM when JS_ALLOCATE could not
 * take its nodes (nothing changed). */
int jobstate_post (struct ctld *ctx, struct job *j, enum jobstate_ev ev,
                   const struct jobstate_arg *arg);
/* The event's name ("allocate"), for logs and tests. */
const char *jobstate_ev_name (enum jobstate_ev ev);
/* Whether 'ev' is legal in j's present state. */
bool jobstate_legal (const struct job *j, enum jobstate_ev ev);

/* The ends by state, as the commands and tests have always asked for
 * them: posts JS_DONE, JS_FAIL, JS_CANCEL, JS_TIMEOUT or JS_NODE_FAIL with
 * 'reason'. No-op (logged at debug) on a job that is not active. */
void job_end (struct ctld *ctx, struct job *j, enum job_state state,
              const char *reason);
/* An exit reported for j outside an event ('rc' kept when the highest,
 * an OOM kill turns a completing COMPLETED/FAILED job OUT_OF_MEMORY). */
void job_note_exit (struct job *j, int rc, int signal, bool oom);
/* JS_RERUN, for the restore (persist_restore.c). */
void job_requeue (struct ctld *ctx, struct job *j);

#endif
