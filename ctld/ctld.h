/* ctld.h - arbor-ctld assembled: what wires its modules together.
 *
 * struct ctld is passed explicitly everywhere (no globals). It holds the
 * configuration, the loop and its timers, and the shared records the
 * modules read: nodes (node.h), partitions (part.h) and jobs (job.h),
 * made of plain structs so that a state store can later write them out
 * and read them back. Each module's functions and contract are in its
 * own header: node.h, part.h, job.h, step.h, term.h (where a job ends),
 * cancel.h, update.h, sched.h (when the scheduler runs), select.h (pure
 * allocation logic), serve.h (client requests), info.h, nodecomm.h
 * (messages to nodeds), liveness.h, orphan.h, jobid.h. ctld.c builds and
 * frees it all (ctld_create/ctld_destroy); ctld_main.c is main.
 */
#ifndef ARBOR_CTLD_CTLD_H
#define ARBOR_CTLD_CTLD_H

#include <ev.h>
#include <time.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "sched/loadsel.h"

#define CTLD_TICK 30 /* s between housekeeping passes */

struct jobid;
struct nodecomm;
struct sched;
struct serve;
struct waits;

/* The modules' own state is behind opaque pointers (serve, jobid,
 * nodecomm, sched). The records (nodes, partitions, jobs) stay visible:
 * scheduling, termination, info and liveness all read them, and they are
 * what a state store will save. */
struct ctld {
    struct ev_loop *loop;
    struct conf *conf;
    struct auth *auth;      /* signs credentials */
    struct auth_pool *pool; /* munge off the loop: connections' HELLOs */
    struct peers *peers;    /* kept connections to the nodeds */
    uid_t priv_uid;
    uid_t noded_uid;         /* NodedUser: what the nodeds run as */
    struct serve *serve;     /* serve.h: client connections */
    struct credkey *credkey; /* credkey.h: what credentials are sealed with */
    struct ident_cache *idents; /* ident.h: users' names and groups */
    ev_signal sigterm_w, sigint_w, sighup_w;
    ev_timer tick_w;
    ev_timer limit_w;   /* 1 s: time limits, JOB_TERMINATE resends */
    struct node *nodes; /* node.h, configuration order */
    size_t nnodes;
    struct part *parts; /* part.h */
    size_t nparts;
    struct job *jobs; /* job.h, submit order */
    size_t njobs;
    struct job **jobs_tail;   /* where the next job is linked (jobs.c) */
    struct job **job_buckets; /* job_find's index by id (jobs.c) */
    size_t job_nbuckets;
    struct jobid *jobid;          /* jobid.h */
    struct nodecomm *nodecomm;    /* nodecomm.h: messages to nodeds */
    struct sched *sched;          /* sched.h: when the scheduler runs */
    struct waits *waits;          /* wait.h: JOB_WAIT requests */
    struct persist *persist;      /* persist.h: the state database; NULL
                                     without one (CTLD_STATE_VOLATILE) */
    struct acct *acct;            /* acct.h: the accounting database */
    struct policy *policy;        /* policy.h: the site's associations */
    time_t sim_now;               /* arbor-sim's virtual clock; 0: real time
                                     (ctld_now) */
    struct limits *limits;        /* cpulimits.h: CPU-hour limits; NULL none */
    struct loadsel loadsel;       /* loadsel.h: SelectLoadParameters */
    struct prio_presets *presets; /* prio.h: PriorityPresets */
    struct mailer *mail;          /* mail.h: job mail, MailProg */
    struct triggers *triggers;    /* trigger.h: strigger's triggers */
    struct licenses *licenses;    /* licenses.h: Licenses= and their use */
    /* jobstate.h: the reactions the state machine calls up through (set
     * at assembly, jobstart_init) */
    const struct jobstate_hooks *jobstate_hooks;
};

/* The time of scheduling decisions (submit, eligible, start, end,
 * priority age, backfill plans): real time, or arbor-sim's virtual clock
 * when it runs the controller's code over a trace. */
static inline time_t ctld_now (const struct ctld *ctx)
{
    return ctx->sim_now ? ctx->sim_now : time (NULL);
}

/* ctld_create loads CONF_PATH (NULL: the default),
 * opens the log (DebugLevel + verbose), connects munge, restores the job
 * id mark, builds nodes and partitions, restores the state database
 * ('clear': sets it aside instead, -c), listens and arms the timers; NULL
 * with err (nothing left behind) on failure. ctld_run serves until
 * SIGTERM/SIGINT; ctld_destroy frees everything (NULL accepted). */
struct ctld *ctld_create (const char *conf_path, int verbose, bool clear,
                          arbor_error_t *err);
void ctld_run (struct ctld *ctx);
/* The controller's state without its transport and clock: modules, job
 * ids, nodes and partitions from 'conf' (taken, also on failure), on
 * 'loop' (owned from now on). ctld_create is this plus munge, the
 * listener, the signals and the timers; unit tests use this alone and
 * drive requests and ticks themselves. CTLD_STATE_VOLATILE keeps the job
 * id mark in memory (no StateSaveLocation). NULL with err on failure. */
#define CTLD_STATE_VOLATILE 1u
#define CTLD_STATE_CLEAR 2u /* set the state database aside (-c) */
struct ctld *ctld_create_state (struct conf *conf, struct ev_loop *loop,
                                unsigned flags, arbor_error_t *err);
void ctld_destroy (struct ctld *ctx);

#endif
