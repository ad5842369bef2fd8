/* stepd_orphan.c - end the container of a stepd that died.
 *
 * When a stepd is killed its tasks live on in the step's container, which
 * nobody would ever signal, empty or remove. The noded takes it over: it
 * loads ProctrackType as the stepd does (stepd/contain.c), "creates" the
 * step's container with the same identity (job, step, uid, and the
 * node_<NODE> level under emulation: conf_node_nests), which the plugin
 * contract makes an adoption of the existing one, and runs the same
 * termination sequence as stepd/kill.c: SIGCONT + SIGTERM, KillWait
 * (polling is_empty, so an emptied container ends the wait early),
 * SIGKILL, repeated every ORPHAN_KILL_REPEAT s until the container is
 * empty. Past UnkillableStepTimeout the waiting terminations get ETIME
 * (the node drains) while the kill goes on. Once empty the container is
 * removed with the step's directories in the spool (MPI, batch), the
 * controller gets STEP_COMPLETE {node, rc != 0} (retried:
 * step_notify, stepd_relay.c) so the node's share of the
 * step ends as failed, and the stale socket and the record go last: until
 * then a restarted noded finds the orphan again (stepd_scan).
 *
 * The plugin's ops are synchronous (cgroup v1 freezes the group to signal
 * it, up to half a second); an orphan is rare enough that this is
 * accepted on the loop.
 *
 * proctrack/pgid cannot adopt: it knows a step only by the process groups
 * its stepd recorded in memory, so with it the dead stepd's tasks are not
 * found (docs/proctrack.md: pgid is not a container).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "noded_base.h"
#include "plugin.h"
#include "proctrack.h"
#include "stepd_info.h"
#include "stepd_orphan.h"
#include "stepd_relay.h"
#include "stepd_table.h"
#include "stepd_track.h"
#include "../stepd/userdir.h"

#define ORPHAN_POLL 0.15       /* s between is_empty checks */
#define ORPHAN_KILL_REPEAT 2.0 /* s between SIGKILLs */

enum orphan_phase { ORPHAN_TERM, ORPHAN_KILL, ORPHAN_NOTIFY };

struct orphan_wait {
    struct orphan_wait *next;
    stepd_term_f cb;
    void *arg;
};

struct orphan {
    struct noded *nd;
    struct orphan *next;
    struct stepd_info si;
    int rc; /* for STEP_COMPLETE */
    struct plugin *plugin;
    const struct proctrack_ops *ops;
    void *ctx;
    struct plugin_env env;
    char plugin_dir[PATH_MAX];
    enum orphan_phase phase;
    ev_timer w;         /* kill poll */
    ev_tstamp deadline; /* end of KillWait */
    ev_tstamp first_kill, last_kill;
    bool unkillable;
    char unkillable_text[160]; /* told to every waiter once unkillable */
    struct orphan_wait *waits;
    struct step_notify *notify; /* the STEP_COMPLETE in progress */
};

static void orphan_poll_cb (struct ev_loop *loop, ev_timer *w, int revents);

static struct orphan *orphan_find (struct noded *nd, uint32_t job,
                                   uint32_t step)
{
    for (struct orphan *o = nd->stepds->orphans; o; o = o->next)
        if (o->si.job_id == job && o->si.step_id == step)
            return o;
    return NULL;
}

bool stepd_orphan_exists (struct noded *nd, uint32_t job, uint32_t step)
{
    return orphan_find (nd, job, step) != NULL;
}

/* Answer every waiting termination. */
static void orphan_answer (struct orphan *o, int errnum, const char *text)
{
    while (o->waits) {
        struct orphan_wait *ow = o->waits;
        o->waits = ow->next;
        if (ow->cb)
            ow->cb (o->si.job_id, o->si.step_id, errnum, text, ow->arg);
        free (ow);
    }
}

static void orphan_unload (struct orphan *o)
{
    if (o->ops)
        o->ops->fini (o->ctx);
    o->ops = NULL;
    o->ctx = NULL;
    plugin_unload (o->plugin);
    o->plugin = NULL;
}

static void orphan_free (struct orphan *o)
{
    ev_timer_stop (o->nd->loop, &o->w);
    step_notify_cancel (o->notify);
    while (o->waits) {
        struct orphan_wait *ow = o->waits;
        o->waits = ow->next;
        free (ow);
    }
    orphan_unload (o);
    free (o);
}

static void orphan_unlink (struct orphan *o)
{
    for (struct orphan **pp = &o->nd->stepds->orphans; *pp; pp = &(*pp)->next) {
        if (*pp == o) {
            *pp = o->next;
            return;
        }
    }
}

void stepd_orphan_free_all (struct stepd_table *t)
{
    while (t->orphans) {
        struct orphan *o = t->orphans;
        t->orphans = o->next;
        orphan_free (o);
    }
}

/* The end: the socket and the record go, the orphan is forgotten. */
static void orphan_done (struct orphan *o)
{
    struct noded *nd = o->nd;
    char *path = stepd_socket_path (nd, o->si.job_id, o->si.step_id);

    if (path)
        unlink (path);
    free (path);
    stepd_info_remove (nd, o->si.job_id, o->si.step_id);
    orphan_unlink (o);
    orphan_free (o);
}

/* ---- the container --------------------------------------------------------
 */

/* Load the plugin and adopt the step's container. */
static int orphan_adopt (struct orphan *o, arbor_error_t *err)
{
    struct noded *nd = o->nd;
    bool nest = conf_node_nests (nd->conf, nd->name);
    struct step_info s = {
        .job_id = o->si.job_id,
        .step_id = o->si.step_id,
        .uid = o->si.uid,
        .gid = o->si.gid,
        .node = nest ? nd->name : NULL,
        .mem_mb = 0, /* adopting: the limit it has stays */
    };
    arbor_error_t perr = { "" };

    plugin_env_daemon (&o->env, nd->conf, nd->name, nd->spool, o->plugin_dir,
                       sizeof (o->plugin_dir));
    if (!(o->plugin =
              proctrack_load (o->plugin_dir, nd->conf->proctrack_type, &perr)))
        return errprintf (err, "ProctrackType=%s: %s", nd->conf->proctrack_type,
                          perr.text);
    o->ops = plugin_ops (o->plugin);
    if (o->ops->init (&o->env, &o->ctx, &perr) < 0) {
        o->ops = NULL; /* no ctx to fini */
        return errprintf (err, "%s", perr.text);
    }
    if (o->ops->create (o->ctx, &s, &perr) < 0)
        return errprintf (err, "%s", perr.text);
    return 0;
}

static void orphan_signal (struct orphan *o, int sig)
{
    if (o->ops->signal (o->ctx, sig) < 0)
        log_warn ("step %u.%u: signal %d to the container: %s", o->si.job_id,
                  o->si.step_id, sig, strerror (errno));
}

static void orphan_sigkill (struct orphan *o, ev_tstamp now)
{
    if (o->phase != ORPHAN_KILL) {
        o->phase = ORPHAN_KILL;
        o->first_kill = now;
    }
    o->last_kill = now;
    orphan_signal (o, SIGKILL);
}

static void orphan_notify (struct orphan *o);

/* The directories the dead stepd made in the spool for the step
 * (stepd/mpi.c, stepd/batch.c), which it can no longer remove: the
 * user's, so removed without following any link in them. */
static void orphan_dirs_remove (struct orphan *o)
{
    const char *fmt[] = { "%s/mpi.%u.%u", "%s/pmix.%u.%u" };
    char path[PATH_MAX];

    for (size_t i = 0; i < sizeof (fmt) / sizeof (fmt[0]); i++) {
        snprintf (path, sizeof (path), fmt[i], o->nd->spool, o->si.job_id,
                  o->si.step_id);
        userdir_remove (path);
    }
    if (o->si.step_id == STEP_ID_BATCH) {
        snprintf (path, sizeof (path), "%s/batch.%u", o->nd->spool,
                  o->si.job_id);
        userdir_remove (path);
    }
}

/* Empty: remove the container and the step's directories, answer, tell
 * the controller. */
static void orphan_emptied (struct orphan *o)
{
    arbor_error_t err = { "" };

    if (o->ops->destroy (o->ctx, &err) < 0) {
        log_warn ("step %u.%u: remove container: %s (retrying)", o->si.job_id,
                  o->si.step_id, err.text);
        return; /* the poll goes on */
    }
    ev_timer_stop (o->nd->loop, &o->w);
    orphan_dirs_remove (o);
    log_info ("step %u.%u: container of the dead stepd emptied and "
              "removed",
              o->si.job_id, o->si.step_id);
    orphan_unload (o);
    orphan_answer (o, 0, NULL);
    orphan_notify (o);
}

static void orphan_unkillable (struct orphan *o)
{
    snprintf (o->unkillable_text, sizeof (o->unkillable_text),
              "unkillable step %u.%u (its stepd died): container not empty "
              "%u s after SIGKILL",
              o->si.job_id, o->si.step_id,
              o->nd->conf->unkillable_step_timeout);
    log_err ("%s; still trying", o->unkillable_text);
    o->unkillable = true;
}

static void orphan_poll_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct orphan *o = w->data;
    const struct conf *conf = o->nd->conf;
    ev_tstamp now = ev_now (loop);
    int empty = o->ops->is_empty (o->ctx);

    if (empty == 1) {
        orphan_emptied (o);
        return;
    }
    if (empty < 0)
        log_warn ("step %u.%u: is the container empty? %s", o->si.job_id,
                  o->si.step_id, strerror (errno));
    if (o->phase == ORPHAN_TERM && now >= o->deadline) {
        log_verbose ("step %u.%u: KillWait (%u s) over: SIGKILL", o->si.job_id,
                     o->si.step_id, conf->kill_wait);
        orphan_sigkill (o, now);
    } else if (o->phase == ORPHAN_KILL) {
        if (now - o->last_kill >= ORPHAN_KILL_REPEAT)
            orphan_sigkill (o, now);
        if (!o->unkillable
            && now - o->first_kill >= conf->unkillable_step_timeout)
            orphan_unkillable (o);
    }
    if (o->unkillable) /* also those that started waiting since */
        orphan_answer (o, ETIME, o->unkillable_text);
}

int stepd_orphan_start (struct noded *nd, const struct stepd_info *si, int rc)
{
    struct orphan *o;
    arbor_error_t err = { "" };

    if (orphan_find (nd, si->job_id, si->step_id))
        return 0;
    if (!(o = calloc (1, sizeof (*o))))
        return -1;
    o->nd = nd;
    o->si = *si;
    o->rc = rc ? rc : 1;
    ev_timer_init (&o->w, orphan_poll_cb, ORPHAN_POLL, ORPHAN_POLL);
    o->w.data = o;
    if (orphan_adopt (o, &err) < 0) {
        int e = errno;
        log_err ("step %u.%u: cannot take over the container of its dead "
                 "stepd: %s",
                 si->job_id, si->step_id, err.text);
        orphan_free (o);
        errno = e;
        return -1;
    }
    o->next = nd->stepds->orphans;
    nd->stepds->orphans = o;
    /* The loop's time may be stale after a long callback. */
    ev_now_update (nd->loop);
    o->phase = ORPHAN_TERM;
    o->deadline = ev_now (nd->loop) + nd->conf->kill_wait;
    orphan_signal (o, SIGCONT);
    orphan_signal (o, SIGTERM);
    ev_timer_start (nd->loop, &o->w);
    return 0;
}

int stepd_orphan_wait (struct noded *nd, uint32_t job, uint32_t step,
                       stepd_term_f cb, void *arg)
{
    struct orphan *o = orphan_find (nd, job, step);
    struct orphan_wait *ow;

    if (!o || o->phase == ORPHAN_NOTIFY)
        return 0; /* emptied already: nothing left to wait for */
    if (!(ow = calloc (1, sizeof (*ow))))
        return 0;
    ow->cb = cb;
    ow->arg = arg;
    ow->next = o->waits;
    o->waits = ow;
    return 1;
}

void stepd_orphan_cancel (struct noded *nd, void *arg)
{
    for (struct orphan *o = nd->stepds->orphans; o; o = o->next)
        for (struct orphan_wait *ow = o->waits; ow; ow = ow->next)
            if (ow->arg == arg)
                ow->cb = NULL;
}

/* ---- STEP_COMPLETE to the controller ------------------------------------- */

/* The ctld took it, refused it, or never answered: the orphan ends. */
static void orphan_notified_cb (bool taken, void *arg)
{
    struct orphan *o = arg;

    o->notify = NULL; /* freed itself */
    if (taken)
        log_verbose ("step %u.%u: failure reported to the ctld (rc %d)",
                     o->si.job_id, o->si.step_id, o->rc);
    orphan_done (o);
}

static void orphan_notify (struct orphan *o)
{
    struct msg_step_complete m = {
        .job_id = o->si.job_id,
        .step_id = o->si.step_id,
        .rc = o->rc,
    };

    o->phase = ORPHAN_NOTIFY;
    if (!(o->notify = step_notify_start (o->nd, &m, orphan_notified_cb, o))) {
        log_err ("step %u.%u: cannot send STEP_COMPLETE: %s", o->si.job_id,
                 o->si.step_id, strerror (errno));
        orphan_done (o);
        return;
    }
    log_debug ("step %u.%u: reporting the failure to the ctld (rc %d)",
               o->si.job_id, o->si.step_id, o->rc);
}
