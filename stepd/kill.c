/* kill.c - the termination sequence and the end-of-step cleanup.
 *
 * STEPD_TERMINATE (docs/design-termination.md): tell the user why on the
 * first task's stderr ("slurmstepd: error: *** STEP 5.0 ON node1
 * CANCELLED AT ... ***"; not for reason COMPLETED, the normal end of the
 * job's allocation), SIGCONT and SIGTERM to the whole container,
 * wait KillWait seconds (polling is_empty every STEPD_KILL_POLL s, so an
 * emptied container ends the wait early), SIGKILL, wait until empty, and
 * answer RC 0 to every STEPD_TERMINATE received meanwhile. If the
 * container is still not empty UnkillableStepTimeout seconds after the
 * first SIGKILL, the waiting requesters get ETIME ("unkillable step 5.0:
 * pids 123 456"); SIGKILL is repeated every STEPD_KILL_REPEAT s and the
 * wait goes on. Tasks' exits are reaped and reported as usual meanwhile.
 *
 * The same poll ends every step: once the tasks have exited and their
 * output is drained, whatever is left in the container (a daemonized
 * grandchild) is SIGKILLed, and when the container is empty it is
 * removed. Only then may the stepd report STEP_COMPLETE and exit, so no
 * process of a step outlives it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "naming.h"
#include "base.h"
#include "batch.h"
#include "contain.h"
#include "io.h"
#include "kill.h"
#include "stepd.h"

/* A STEPD_TERMINATE waiting for its answer (kill.c). */
struct term_req {
    struct conn *c;
    uint32_t matchtag;
    struct term_req *next;
};

enum kill_phase {
    KILL_NONE = 0, /* nothing sent by the sequence yet */
    KILL_TERM,     /* SIGTERM sent, KillWait running */
    KILL_KILL,     /* SIGKILL sent, waiting for empty */
    KILL_EMPTY,    /* container seen empty */
};

struct killer {
    enum kill_phase phase;
    ev_timer poll_w;      /* is_empty poll, KillWait, retries */
    ev_tstamp deadline;   /* KILL_TERM: end of KillWait */
    ev_tstamp first_kill; /* KILL_KILL: first SIGKILL */
    ev_tstamp last_kill;  /* ... and the latest one */
    bool unkillable;      /* ETIME answered */
    bool terminated;      /* a STEPD_TERMINATE arrived */
    struct term_req *reqs;
};

static void kill_poll_cb (struct ev_loop *loop, ev_timer *w, int revents);

int kill_init (struct stepd *sd)
{
    if (!(sd->kill = calloc (1, sizeof (*sd->kill))))
        return -1;
    ev_timer_init (&sd->kill->poll_w, kill_poll_cb, STEPD_KILL_POLL,
                   STEPD_KILL_POLL);
    sd->kill->poll_w.data = sd;
    return 0;
}

/* Answer and drop every pending STEPD_TERMINATE. */
static void kill_answer (struct stepd *sd, int errnum, const char *text)
{
    while (sd->kill->reqs) {
        struct term_req *r = sd->kill->reqs;
        sd->kill->reqs = r->next;
        if (conn_send_rc (r->c, r->matchtag, errnum, "%s", text) < 0)
            log_warn ("answer STEPD_TERMINATE: %s", strerror (errno));
        free (r);
    }
}

void kill_forget_conn (struct stepd *sd, struct conn *c)
{
    struct term_req **pp = &sd->kill->reqs;

    while (*pp) {
        struct term_req *r = *pp;
        if (r->c == c) {
            *pp = r->next;
            free (r);
        } else
            pp = &r->next;
    }
}

static void kill_send (struct stepd *sd, int sig)
{
    if (contain_signal (sd, sig) < 0) {
        if (errno != ESRCH)
            log_warn ("signal %d to the container: %s", sig, strerror (errno));
        stepd_signal_tasks (sd, sig); /* no container: the groups */
    }
}

static void kill_sigkill (struct stepd *sd)
{
    ev_tstamp now = ev_now (sd->loop);

    if (sd->kill->phase != KILL_KILL) {
        sd->kill->phase = KILL_KILL;
        sd->kill->first_kill = now;
    }
    sd->kill->last_kill = now;
    kill_send (sd, SIGKILL);
}

/* The container is empty: answer, and at the end remove it. */
static void kill_emptied (struct stepd *sd)
{
    uint64_t ooms;

    ev_timer_stop (sd->loop, &sd->kill->poll_w);
    if (sd->kill->phase != KILL_EMPTY && sd->kill->terminated)
        log_verbose ("step %s: container empty", stepd_id (sd));
    sd->kill->phase = KILL_EMPTY;
    kill_answer (sd, 0, "");
    if (!sd->finishing)
        return;
    if ((ooms = contain_oom_kills (sd)) > 0) {
        sd->oom = true;
        log_err ("Detected %llu oom_kill event(s) in StepId=%s. Some of the "
                 "step tasks have been OOM Killed.",
                 (unsigned long long)ooms, stepd_id (sd));
    }
    contain_destroy (sd);
}

static void kill_unkillable (struct stepd *sd)
{
    char pids[256], text[320];

    contain_pids_text (sd, pids, sizeof (pids));
    snprintf (text, sizeof (text), "unkillable step %s: pids %s", stepd_id (sd),
              pids);
    log_err ("%s (%u s after SIGKILL); still trying", text,
             sd->conf->unkillable_step_timeout);
    sd->kill->unkillable = true;
    kill_answer (sd, ETIME, text);
}

static void kill_poll_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct stepd *sd = w->data;
    struct killer *k = sd->kill;
    ev_tstamp now = ev_now (loop);
    int empty = contain_is_empty (sd);

    if (empty == 1) {
        kill_emptied (sd);
        return;
    }
    if (empty < 0)
        log_warn ("is the container empty? %s", strerror (errno));
    if (k->phase == KILL_TERM && now >= k->deadline) {
        log_verbose ("step %s: KillWait (%u s) over: SIGKILL", stepd_id (sd),
                     sd->conf->kill_wait);
        kill_sigkill (sd);
    } else if (k->phase == KILL_KILL) {
        if (now - k->last_kill >= STEPD_KILL_REPEAT)
            kill_sigkill (sd);
        if (!k->unkillable
            && now - k->first_kill >= sd->conf->unkillable_step_timeout)
            kill_unkillable (sd);
    }
}

static int kill_add_req (struct stepd *sd, struct conn *c, uint32_t tag)
{
    struct term_req *r = calloc (1, sizeof (*r));

    if (!r)
        return -1;
    r->c = c;
    r->matchtag = tag;
    r->next = sd->kill->reqs;
    sd->kill->reqs = r;
    return 0;
}

/* Child: as the job's user (never root by a path the user chose),
 * reopen the batch shell's own stderr and append 'text'. */
static void __attribute__ ((noreturn))
kill_banner_child (const struct stepd *sd, pid_t task, const char *text)
{
    uid_t uid = (uid_t)sd->init.uid;
    gid_t gid = (gid_t)sd->init.gid;
    char path[64];
    int fd;

    if (geteuid () == 0
        && (syscall (SYS_setgroups, 1, &gid) < 0
            || syscall (SYS_setresgid, gid, gid, gid) < 0
            || syscall (SYS_setresuid, uid, uid, uid) < 0))
        _exit (1);
    snprintf (path, sizeof (path), "/proc/%d/fd/2", (int)task);
    if ((fd = open (path, O_WRONLY | O_APPEND | O_NOCTTY)) < 0)
        _exit (1);
    _exit (write (fd, text, strlen (text)) < 0);
}

/* The batch script's stderr is a file its task opened as the user: the
 * banner goes there (Slurm's "*** JOB 5 ON n1 CANCELLED AT ... DUE TO
 * TIME LIMIT ***"), written by a child that first becomes the user. It is
 * waited for (at most BANNER_WAIT_MS), so that the shell, still alive
 * now, has its stderr when the child opens it, before SIGTERM. */
#define BANNER_WAIT_MS 200
static void kill_banner_file (struct stepd *sd, const char *text)
{
    const struct task *t = sd->ntasks ? &sd->tasks[0] : NULL;
    struct timespec tick = { 0, 1000000 };
    int status;
    pid_t pid;

    if (!t || t->pid <= 0 || t->exited || (pid = fork ()) < 0)
        return;
    if (pid == 0)
        kill_banner_child (sd, t->pid, text);
    for (int ms = 0; ms < BANNER_WAIT_MS; ms++) {
        if (waitpid (pid, &status, WNOHANG) != 0)
            return;
        nanosleep (&tick, NULL);
    }
    log_debug ("the banner's writer (pid %d) is slow: not waited for",
               (int)pid); /* reap.c collects it */
}

static void kill_banner (struct stepd *sd, const char *reason)
{
    char text[256];

    if (term_banner (text, sizeof (text), stepd_who (sd->init.slurm_names),
                     sd->init.job_id, sd->init.step_id, sd->node, reason,
                     time (NULL))
        < 0)
        return;
    if (io_user_error (sd, text))
        return;
    if (batch_step (sd))
        kill_banner_file (sd, text);
    else
        log_debug ("no open stderr to tell the user: %s", text);
}

void kill_terminate (struct stepd *sd, struct conn *c, uint32_t matchtag,
                     const char *reason)
{
    struct killer *k = sd->kill;

    if (k->phase == KILL_EMPTY
        || (k->unkillable && contain_is_empty (sd) == 1)) {
        conn_send_rc (c, matchtag, 0, "%s", "");
        return;
    }
    if (k->unkillable) {
        char pids[256];
        contain_pids_text (sd, pids, sizeof (pids));
        conn_send_rc (c, matchtag, ETIME, "unkillable step %s: pids %s",
                      stepd_id (sd), pids);
        return;
    }
    if (kill_add_req (sd, c, matchtag) < 0) {
        conn_send_rc (c, matchtag, ENOMEM, "out of memory");
        return;
    }
    if (k->terminated)
        return; /* the sequence is already running */
    k->terminated = true;
    log_info ("terminating step %s (%s)%s", stepd_id (sd),
              reason && *reason ? reason : "CANCELLED",
              k->phase == KILL_NONE ? ": SIGTERM, then KillWait"
                                    : ": already being killed");
    if (!reason || strcmp (reason, "COMPLETED") != 0)
        kill_banner (sd, reason); /* a job that simply ended: no banner */
    if (k->phase == KILL_NONE) {
        kill_send (sd, SIGCONT);
        kill_send (sd, SIGTERM);
        k->phase = KILL_TERM;
        k->deadline = ev_now (sd->loop) + sd->conf->kill_wait;
    }
    ev_timer_again (sd->loop, &k->poll_w);
}

bool kill_requested (const struct stepd *sd)
{
    return sd->kill && sd->kill->terminated;
}

void kill_leftovers (struct stepd *sd)
{
    struct killer *k = sd->kill;
    char pids[256];
    int empty;

    if (k->phase == KILL_TERM || k->phase == KILL_KILL)
        return; /* the poll is running and will end in kill_emptied */
    if ((empty = contain_is_empty (sd)) == 1) {
        kill_emptied (sd);
        return;
    }
    contain_pids_text (sd, pids, sizeof (pids));
    log_verbose ("tasks over, processes left in the container (%s): SIGKILL",
                 pids);
    kill_sigkill (sd);
    ev_timer_again (sd->loop, &k->poll_w);
}

bool kill_done (const struct stepd *sd)
{
    return !contain_exists (sd) && sd->kill->phase == KILL_EMPTY;
}

void kill_free (struct stepd *sd)
{
    if (sd->kill)
        kill_fini (sd);
    free (sd->kill);
    sd->kill = NULL;
}

void kill_fini (struct stepd *sd)
{
    ev_timer_stop (sd->loop, &sd->kill->poll_w);
    while (sd->kill->reqs) {
        struct term_req *r = sd->kill->reqs;
        sd->kill->reqs = r->next;
        free (r);
    }
}
