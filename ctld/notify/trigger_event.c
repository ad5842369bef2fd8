/* trigger_event.c - when triggers fire, and their programs.
 *
 * Every second trigger_tick compares each node's state with the one it
 * saw a second before: the nodes that went DOWN, came back from DOWN
 * (up) or became DRAINED are this tick's events, and each node's idle
 * start is kept for --idle. Node triggers fire on their nodes' events,
 * job triggers on their job's end (fini; also when the job is gone
 * altogether), on its time limit plus --offset (time) and on events of
 * the nodes it holds or held until this tick (up, down). A fired trigger
 * runs its program --offset seconds later (at once for time and idle),
 * as its owner, with the nodes (ranged) or the job id as the last
 * argument; once the program ends, a PERM trigger is armed again and any
 * other removed. A job trigger whose job is gone (purged) is removed
 * unless it watches its end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctld.h"
#include "env.h"
#include "hostlist.h"
#include "ident.h"
#include "job/job.h"
#include "log.h"
#include "nodes/node.h"
#include "notify/spawn.h"
#include "timestr.h"
#include "notify/trigger.h"
#include "notify/trigger_event.h"
#include "notify/trigger_private.h"
#include "trigtype.h"
#include "job/jobs.h"

/* Run t's program now (it fired and is due); below, after its argv. */
static void trigger_run (struct ctld *ctx, struct trigger *t, time_t now);

/* ---- node events ---------------------------------------------------- */

static int trigger_nodes_alloc (struct trigger_nodes *tn, size_t n)
{
    tn->last = calloc (n + 1, sizeof (*tn->last));
    tn->idle_since = calloc (n + 1, sizeof (*tn->idle_since));
    tn->down = calloc (n + 1, sizeof (bool));
    tn->up = calloc (n + 1, sizeof (bool));
    tn->drained = calloc (n + 1, sizeof (bool));
    tn->n = n;
    return tn->last && tn->idle_since && tn->down && tn->up && tn->drained ? 0
                                                                           : -1;
}

/* This tick's node events. -1 out of memory (no events this tick). */
static int trigger_nodes_scan (struct ctld *ctx, struct trigger_nodes *tn,
                               time_t now)
{
    if (!tn->last && trigger_nodes_alloc (tn, ctx->nnodes) < 0)
        return -1;
    for (size_t i = 0; i < tn->n && i < ctx->nnodes; i++) {
        enum node_state s = node_state_of (&ctx->nodes[i]);
        enum node_state was = tn->seen ? tn->last[i] : s;
        tn->down[i] = s == NODE_STATE_DOWN && was != NODE_STATE_DOWN;
        tn->up[i] = was == NODE_STATE_DOWN && s != NODE_STATE_DOWN
                    && s != NODE_STATE_UNKNOWN;
        tn->drained[i] = s == NODE_STATE_DRAIN && was != NODE_STATE_DRAIN;
        if (s != NODE_STATE_IDLE)
            tn->idle_since[i] = 0;
        else if (!tn->idle_since[i])
            tn->idle_since[i] = now;
        tn->last[i] = s;
    }
    tn->seen = true;
    return 0;
}

/* The nodes of 'ev' that t watches (all when t->nodes is NULL), added to
 * hl. Returns how many. */
static size_t trigger_pick (struct ctld *ctx, const struct trigger *t,
                            const bool *ev, struct hostlist *hl)
{
    size_t k = 0;

    for (size_t i = 0; i < ctx->triggers->nodes.n; i++)
        if (ev[i] && (!t->nodes || t->nodes[i])) {
            if (hl)
                (void)hostlist_append (hl, ctx->nodes[i].name);
            k++;
        }
    return k;
}

/* Idle long enough, and not already fired for in this idle period. */
static void trigger_idle_set (struct ctld *ctx, const struct trigger *t,
                              time_t now, bool *out)
{
    const struct trigger_nodes *tn = &ctx->triggers->nodes;
    time_t need = t->offset > 0 ? t->offset : 0;

    for (size_t i = 0; i < tn->n; i++)
        out[i] = tn->idle_since[i] && now - tn->idle_since[i] >= need
                 && tn->idle_since[i] > t->last_fired;
}

/* t fires now for 'arg' (taken), its program due 'delay' s later. */
static void trigger_fire (struct ctld *ctx, struct trigger *t, char *arg,
                          time_t now, time_t delay)
{
    char ty[64];

    free (t->arg);
    t->arg = arg;
    t->state = TRIGGER_FIRED;
    t->last_fired = now;
    t->run_at = now + (delay > 0 ? delay : 0);
    log_verbose ("trigger %u fired: %s %s", t->id,
                 trigtype_str (t->types, ty, sizeof (ty)), arg ? arg : "");
    trigger_persist (ctx, t);
}

/* Node trigger t: fire on its nodes' events of this tick. */
static void trigger_check_nodes (struct ctld *ctx, struct trigger *t,
                                 time_t now, bool *idle)
{
    const struct trigger_nodes *tn = &ctx->triggers->nodes;
    const bool *ev = NULL;
    struct hostlist *hl;
    time_t delay = t->offset;

    if ((t->types & TRIG_DOWN) && trigger_pick (ctx, t, tn->down, NULL))
        ev = tn->down;
    else if ((t->types & TRIG_UP) && trigger_pick (ctx, t, tn->up, NULL))
        ev = tn->up;
    else if ((t->types & TRIG_DRAINED)
             && trigger_pick (ctx, t, tn->drained, NULL))
        ev = tn->drained;
    else if (t->types & TRIG_IDLE) {
        trigger_idle_set (ctx, t, now, idle);
        if (trigger_pick (ctx, t, idle, NULL)) {
            ev = idle;
            delay = 0;
        }
    }
    if (!ev || !(hl = hostlist_create (NULL, NULL)))
        return;
    trigger_pick (ctx, t, ev, hl);
    trigger_fire (ctx, t, hostlist_ranged (hl), now, delay);
    hostlist_destroy (hl);
}

/* Did one of j's nodes have event 'ev' this tick (while j held it)? */
static bool trigger_job_nodes (const struct ctld *ctx, const struct job *j,
                               const bool *ev, time_t since)
{
    if (!j->nodes || (!job_is_active (j) && j->end_time < since))
        return false;
    for (size_t k = 0; k < j->nnodes; k++)
        if (j->nodes[k].node < ctx->triggers->nodes.n && ev[j->nodes[k].node])
            return true;
    return false;
}

/* When j's time limit is reached, or 0 when it has none now. */
static time_t trigger_limit_at (const struct job *j)
{
    if (j->state != JOB_RUNNING || j->suspended || !j->start_time
        || j->time_limit == TIME_INFINITE)
        return 0;
    return j->start_time + (time_t)j->time_limit * 60
           + (time_t)j->suspended_secs;
}

/* Job trigger t: its job's end, time limit, nodes. */
static void trigger_check_job (struct ctld *ctx, struct trigger *t, time_t now)
{
    const struct trigger_nodes *tn = &ctx->triggers->nodes;
    struct job *j = job_find (ctx, t->job_id);
    time_t since = ctx->triggers->last_tick, limit;
    char *arg = NULL;

    if ((t->types & TRIG_FINI)
        && (!j || (!job_is_active (j) && !j->requeue_pending))) {
        if (asprintf (&arg, "%u", t->job_id) >= 0)
            trigger_fire (ctx, t, arg, now, t->offset);
        return;
    }
    if (!j) {
        log_verbose ("trigger %u: job %u is gone: trigger removed", t->id,
                     t->job_id);
        trigger_remove (ctx, t);
        return;
    }
    limit = trigger_limit_at (j);
    if (((t->types & TRIG_TIME) && limit && now >= limit + t->offset)
        || ((t->types & TRIG_DOWN)
            && trigger_job_nodes (ctx, j, tn->down, since))
        || ((t->types & TRIG_UP)
            && trigger_job_nodes (ctx, j, tn->up, since))) {
        bool timed =
            (t->types & TRIG_TIME) && limit && now >= limit + t->offset;
        if (asprintf (&arg, "%u", t->job_id) >= 0)
            trigger_fire (ctx, t, arg, now, timed ? 0 : t->offset);
    }
}

void trigger_start (struct ctld *ctx, time_t now)
{
    struct triggers *ts = ctx->triggers;

    if (ts && !ts->nodes.seen)
        (void)trigger_nodes_scan (ctx, &ts->nodes, now);
}

void trigger_tick (struct ctld *ctx, time_t now)
{
    struct triggers *ts = ctx->triggers;
    struct trigger *t, *next;
    bool *idle;

    if (!ts || trigger_nodes_scan (ctx, &ts->nodes, now) < 0)
        return;
    if (!ts->last_tick)
        ts->last_tick = now;
    idle = calloc (ts->nodes.n + 1, sizeof (bool));
    for (t = ts->head; t && idle; t = next) {
        next = t->next;
        if (t->cleared)
            continue;
        if (t->state == TRIGGER_ARMED && t->res_type == TRIG_RES_NODE)
            trigger_check_nodes (ctx, t, now, idle);
        else if (t->state == TRIGGER_ARMED && t->res_type == TRIG_RES_JOB)
            trigger_check_job (ctx, t, now);
        if (t->state == TRIGGER_FIRED && now >= t->run_at)
            trigger_run (ctx, t, now);
    }
    free (idle);
    ts->last_tick = now;
}

/* ---- the program ---------------------------------------------------- */

/* After the program: a PERM trigger is armed again, another removed. */
static void trigger_done (struct ctld *ctx, struct trigger *t)
{
    free (t->arg);
    t->arg = NULL;
    t->proc = NULL;
    if (t->cleared || !(t->flags & TRIG_FLAG_PERM)) {
        t->cleared = false; /* so that trigger_remove frees it */
        trigger_remove (ctx, t);
        return;
    }
    t->state = TRIGGER_ARMED;
    trigger_persist (ctx, t);
}

static void trigger_done_cb (int status, bool timed_out, void *arg)
{
    struct trigger *t = arg;
    char st[32];

    if (timed_out)
        log_err ("trigger %u: %s killed after %d s", t->id, t->program,
                 TRIGGER_PROG_TIMEOUT);
    else if (status != 0)
        log_info ("trigger %u: %s ended with %s", t->id, t->program,
                  spawn_status_str (status, st, sizeof (st)));
    else
        log_verbose ("trigger %u: %s done", t->id, t->program);
    trigger_done (t->ctx, t);
}

/* argv: the program's basename, the words after its path, then 'arg'.
 * The words are copies in *words (caller frees both). */
static char **trigger_argv (const struct trigger *t, char **words)
{
    char **argv = calloc (TRIGGER_ARGS_MAX + 3, sizeof (char *));
    char *save = NULL, *w, *base;
    size_t n = 0;

    if (!argv || !(*words = strdup (t->program))) {
        free (argv);
        return NULL;
    }
    w = strtok_r (*words, " \t", &save);
    base = strrchr (w, '/');
    argv[n++] = base ? base + 1 : w;
    while (n <= TRIGGER_ARGS_MAX && (w = strtok_r (NULL, " \t", &save)))
        argv[n++] = w;
    argv[n] = t->arg ? t->arg : "";
    return argv;
}

/* PATH, and who the program runs as. */
static char **trigger_env (const struct ident *id)
{
    char **env = calloc (5, sizeof (char *));
    const char *user = id && id->user ? id->user : "";
    const char *home = id && id->home && *id->home ? id->home : "/";

    if (!env)
        return NULL;
    if (asprintf (&env[0], "PATH=/usr/local/bin:/usr/bin:/bin") < 0
        || asprintf (&env[1], "HOME=%s", home) < 0
        || asprintf (&env[2], "USER=%s", user) < 0
        || asprintf (&env[3], "LOGNAME=%s", user) < 0) {
        for (int i = 0; i < 4; i++)
            free (env[i]);
        free (env);
        return NULL;
    }
    return env;
}

static void trigger_run (struct ctld *ctx, struct trigger *t, time_t now)
{
    const struct ident *id = ident_get (ctx->idents, t->uid, t->gid, now);
    char *words = NULL, **argv = NULL, **env = NULL;
    struct spawn_req r = { .as_user = geteuid () == 0,
                           .uid = t->uid,
                           .gid = t->gid,
                           .groups = id ? id->gids : NULL,
                           .ngroups = id ? id->ngids : 0,
                           .timeout = TRIGGER_PROG_TIMEOUT };
    arbor_error_t err = { "" };

    /* On disk it is over (PERM: armed again): a restart does not run
     * the program twice. */
    t->state = TRIGGER_RUNNING;
    if (t->flags & TRIG_FLAG_PERM) {
        t->state = TRIGGER_ARMED;
        trigger_persist (ctx, t);
        t->state = TRIGGER_RUNNING;
    } else
        trigger_persist_gone (ctx, t);
    if (trigger_prog_ok (t->program, t->uid, t->gid, id, &err) < 0
        || !(argv = trigger_argv (t, &words)) || !(env = trigger_env (id))) {
        log_err ("trigger %u: not run: %s", t->id,
                 err.text[0] ? err.text : "out of memory");
        goto done;
    }
    r.path = words; /* its first word, cut by strtok_r */
    r.argv = argv;
    r.env = env;
    log_info ("trigger %u: running %s %s as uid %u", t->id, t->program,
              t->arg ? t->arg : "", (unsigned)t->uid);
    if (!(t->proc = spawn_start (ctx->loop, &r, trigger_done_cb, t, &err)))
        log_err ("trigger %u: cannot run %s: %s", t->id, t->program, err.text);
done:
    if (!t->proc)
        trigger_done (ctx, t);
    free (words);
    free (argv);
    env_strv_free (env);
}
