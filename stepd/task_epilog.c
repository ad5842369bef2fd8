/* task_epilog.c - --task-epilog and TaskEpilog, after each task.
 *
 * When a task has ended (reaped), its epilogs run one after the other,
 * in Slurm's order: the user's (srun --task-epilog), then the site's
 * (TaskEpilog of arbor.conf). Each is started from a task plan like a
 * task (task_child.h): in the step's container, as the job's user, in
 * the task's directory, with the task's environment (SLURM_TASK_PID is
 * the ended task's pid), its stdin, stdout and stderr on /dev/null (the
 * task's output is closed by then; an epilog that has something to say
 * writes a file). They run on the loop, not in the way of other tasks;
 * reap.c hands their exits here, and the step is not over while one runs
 * (lifecycle.c). Each is bounded: --task-epilog by EPILOG_USER_SECS
 * (srun(1): "a few seconds"), TaskEpilog by PrologEpilogTimeout; at the
 * bound its process group is killed. A failure is logged, nothing more.
 * Once the step is being ended (STEPD_TERMINATE) no epilog starts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "contain.h"
#include "kill.h"
#include "stepd.h"
#include "gpus.h"
#include "task_epilog.h"
#include "tasks.h"
#include "task_child.h"
#include "task_env.h"

#define EPILOG_USER_SECS 5

struct epilog_run {
    struct epilogs *ep;
    uint32_t local; /* the task's index on this node */
    pid_t task_pid; /* SLURM_TASK_PID */
    int next;       /* the script to run next: 0, 1, 2 (none left) */
    pid_t pid;      /* the one running, 0 none */
    ev_timer timer; /* its bound */
};

struct epilogs {
    struct stepd *sd;
    const char *scripts[2]; /* --task-epilog, TaskEpilog; NULL none */
    unsigned secs[2];
    gid_t *gids; /* the job's groups (task_plan_groups) */
    size_t ngids;
    char *home; /* the job's HOME, NULL unknown */
    int sigs[NSIG];
    int nsigs;
    struct epilog_run *runs; /* one per local task */
    uint32_t running;
};

static const char *const epilog_what[2] = { "--task-epilog", "TaskEpilog" };

static const char *epilog_path (const char *p)
{
    return p && *p ? p : NULL;
}

/* The home directory of 'user', malloc'd, or NULL. */
static char *epilog_home (const struct msg_stepd_init *in)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    if (in->home && *in->home)
        return strdup (in->home);
    if (!in->user || getpwnam_r (in->user, &pw, buf, sizeof (buf), &res)
        || !res)
        return NULL;
    return strdup (res->pw_dir);
}

/* What every epilog of the step shares, made at the first one. */
static struct epilogs *epilog_state (struct stepd *sd)
{
    const struct msg_stepd_init *in = &sd->init;
    struct epilogs *ep = sd->epilogs;
    int n;

    if (ep)
        return ep;
    if (!(ep = calloc (1, sizeof (*ep)))
        || !(ep->runs = calloc (sd->ntasks + 1, sizeof (*ep->runs)))) {
        free (ep);
        return NULL;
    }
    ep->sd = sd;
    ep->scripts[0] = epilog_path (in->task_epilog);
    ep->scripts[1] = epilog_path (sd->conf->task_epilog);
    ep->secs[0] = EPILOG_USER_SECS;
    ep->secs[1] = sd->conf->prolog_epilog_timeout;
    ep->nsigs = task_plan_signals (ep->sigs);
    ep->home = epilog_home (in);
    if (getuid () == 0 && in->uid != 0
        && (n = task_plan_groups (in->user, in->gid, (const gid_t *)in->gids,
                                  in->gids_count, &ep->gids))
               > 0)
        ep->ngids = (size_t)n;
    sd->epilogs = ep;
    return ep;
}

/* The plan of one epilog: a task's, with /dev/null for its I/O. */
static void epilog_plan (struct epilogs *ep, struct task_plan *p, char **argv,
                         struct env *env, char *slot, int null)
{
    const struct msg_stepd_init *in = &ep->sd->init;

    memset (p, 0, sizeof (*p));
    p->sd = ep->sd;
    p->in = p->out = p->err = null;
    p->drop = getuid () == 0 && in->uid != 0;
    p->uid = in->uid;
    p->gid = in->gid;
    p->gids = ep->gids;
    p->ngids = ep->ngids;
    p->umask = -1;
    p->cwd = in->cwd;
    p->pid_slot = slot;
    p->keep_fd = -1;
    p->argv = argv;
    p->envp = env_vars (env);
    p->sigs = ep->sigs;
    p->nsigs = ep->nsigs;
}

/* Start script 'path' for run r's task. Its pid, or -1 (logged). */
static pid_t epilog_spawn (struct epilog_run *r, const char *path)
{
    struct stepd *sd = r->ep->sd;
    struct env_step es = { &sd->init,   sd->node,        sd->conf->cluster_name,
                           r->ep->home, sd->local_ranks, gpus_env (sd) };
    char *argv[] = { (char *)path, NULL }, slot[TASK_PID_ROOM], why[160];
    int null = -1, st[2] = { -1, -1 }, go[2] = { -1, -1 }, add_errno = 0;
    bool self = contain_adds_self (sd);
    struct task_plan plan;
    arbor_error_t err = { "" };
    struct env *env;
    pid_t pid = -1;

    if (!(env = env_task_create (&es, r->local, &err))
        || env_setf (env, "SLURM_TASK_PID", "%ld", (long)r->task_pid) < 0
        || (null = open ("/dev/null", O_RDWR | O_CLOEXEC)) < 0
        || pipe2 (st, O_CLOEXEC) < 0 || (!self && pipe2 (go, O_CLOEXEC) < 0))
        goto out;
    epilog_plan (r->ep, &plan, argv, env, slot, null);
    plan.status = st[1];
    plan.go = self ? -1 : go[0];
    plan.go_peer = self ? -1 : go[1];
    if ((pid = task_child_start (&plan)) < 0)
        goto out;
    setpgid (pid, pid);
    close (st[1]);
    st[1] = -1;
    if (tasks_release (sd, pid, self ? -1 : go[1], st[0], why, sizeof (why),
                       &add_errno)
            > 0
        || add_errno) /* the child ends on its own: reaped as ours */
        log_err ("%s %s: %s", path, "could not start",
                 add_errno ? strerror (add_errno) : why);
out:
    if (pid < 0)
        log_err ("task %u: %s: %s", r->local, path,
                 err.text[0] ? err.text : strerror (errno));
    for (int i = 0; i < 2; i++) {
        if (st[i] >= 0)
            close (st[i]);
        if (go[i] >= 0)
            close (go[i]);
    }
    if (null >= 0)
        close (null);
    env_destroy (env);
    return pid;
}

/* The next epilog of run r, if any is left and the step goes on. */
static void epilog_next (struct epilog_run *r)
{
    struct epilogs *ep = r->ep;

    for (; r->next < 2; r->next++) {
        const char *path = ep->scripts[r->next];
        if (!path || kill_requested (ep->sd))
            continue;
        if ((r->pid = epilog_spawn (r, path)) <= 0) {
            r->pid = 0;
            continue;
        }
        ep->running++;
        ev_timer_set (&r->timer, ep->secs[r->next] ? ep->secs[r->next] : 60,
                      0.);
        ev_timer_start (ep->sd->loop, &r->timer);
        return;
    }
}

static void epilog_timeout_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct epilog_run *r = w->data;

    log_info ("task %u: %s %s still running after %u s: killed", r->local,
              epilog_what[r->next], r->ep->scripts[r->next],
              r->ep->secs[r->next]);
    (void)kill (-r->pid, SIGKILL);
}

void epilog_task_ended (struct stepd *sd, const struct task *t)
{
    struct epilogs *ep;
    struct epilog_run *r;

    if ((!epilog_path (sd->init.task_epilog)
         && !epilog_path (sd->conf->task_epilog))
        || kill_requested (sd))
        return;
    if (!(ep = epilog_state (sd))) {
        log_err ("task %u: epilogs: out of memory", t->rank);
        return;
    }
    r = &ep->runs[t->local];
    r->ep = ep;
    r->local = t->local;
    r->task_pid = t->pid;
    r->next = 0;
    ev_timer_init (&r->timer, epilog_timeout_cb, 1., 0.);
    r->timer.data = r;
    epilog_next (r);
}

bool epilog_reaped (struct stepd *sd, pid_t pid, int status)
{
    struct epilogs *ep = sd->epilogs;

    for (uint32_t i = 0; ep && i < sd->ntasks; i++) {
        struct epilog_run *r = &ep->runs[i];
        if (r->pid != pid || pid <= 0)
            continue;
        ev_timer_stop (sd->loop, &r->timer);
        ep->running--;
        r->pid = 0;
        if (status != 0)
            log_info ("task %u: %s %s ended with status 0x%x", r->local,
                      epilog_what[r->next], ep->scripts[r->next],
                      (unsigned)status);
        r->next++;
        epilog_next (r);
        return true;
    }
    return false;
}

bool epilog_busy (const struct stepd *sd)
{
    return sd->epilogs && sd->epilogs->running > 0;
}

void epilog_fini (struct stepd *sd)
{
    struct epilogs *ep = sd->epilogs;

    if (!ep)
        return;
    for (uint32_t i = 0; i < sd->ntasks; i++)
        if (ep->runs[i].pid > 0) {
            ev_timer_stop (sd->loop, &ep->runs[i].timer);
            (void)kill (-ep->runs[i].pid, SIGKILL);
        }
    free (ep->runs);
    free (ep->gids);
    free (ep->home);
    free (ep);
    sd->epilogs = NULL;
}
