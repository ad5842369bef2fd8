/* reap.c - the end of each task: reap it, keep what it used, sum it up.
 *
 * The stepd's loop is one of its own (ev_loop_new, stepd.c), not libev's
 * default loop: the default loop reaps every child itself, in its own
 * SIGCHLD handler, and drops the resource usage the kernel hands over
 * with the exit status. Here one SIGCHLD watcher, started before the
 * first task is made (so no exit is missed), collects every child with
 * wait4(): the task keeps its CPU time and peak resident size, and
 * tasks.c takes the exit (TASK_EXIT, OOM, MPI; tasks_exited). The tasks
 * and their epilogs (task_epilog.c) are the stepd's only children; any
 * other pid is logged and dropped.
 *
 * STEP_COMPLETE (report.c) carries the node's account (reap_account):
 * how the task with the highest rc ended, the CPU time summed over the
 * tasks (the kernel counts in each task's the descendants it waited
 * for), the largest peak resident size with its task's rank, and the sum
 * of the peaks. A task's peak (ru_maxrss) is never below the stepd's own
 * peak when it was born: the kernel carries the old memory's high-water
 * mark over exec, and a task starts sharing (clone CLONE_VM) or copying
 * (fork) the stepd's memory. That floor is the stepd's few MB; Slurm's
 * jobacct_gather, which polls /proc, has none, but misses a peak between
 * two polls.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "log.h"
#include "reap.h"
#include "stepd.h"
#include "task_epilog.h"
#include "tasks.h"

int reap_rc (int status)
{
    if (WIFSIGNALED (status))
        return 128 + WTERMSIG (status);
    return WIFEXITED (status) ? WEXITSTATUS (status) : 1;
}

static uint64_t tv_usec (const struct timeval *tv)
{
    return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

/* The running task of 'pid', or NULL. */
static struct task *reap_task (struct stepd *sd, pid_t pid)
{
    for (uint32_t i = 0; i < sd->ntasks; i++)
        if (sd->tasks[i].pid == pid && !sd->tasks[i].exited)
            return &sd->tasks[i];
    return NULL;
}

/* SIGCHLD: one signal may stand for several exits; take them all. */
static void reap_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    struct stepd *sd = w->data;
    struct rusage ru;
    struct task *t;
    pid_t pid;
    int status;

    while ((pid = wait4 (-1, &status, WNOHANG, &ru)) > 0) {
        if (!(t = reap_task (sd, pid))) {
            if (epilog_reaped (sd, pid, status))
                continue; /* a task epilog (task_epilog.c) */
            log_debug ("reaped pid %ld (status 0x%x): not a task", (long)pid,
                       (unsigned)status);
            continue;
        }
        t->user_usec = tv_usec (&ru.ru_utime);
        t->sys_usec = tv_usec (&ru.ru_stime);
        t->maxrss_kb = ru.ru_maxrss > 0 ? (uint64_t)ru.ru_maxrss : 0; /* KB */
        tasks_exited (t, status);
    }
}

void reap_start (struct stepd *sd)
{
    ev_signal_init (&sd->chld_w, reap_cb, SIGCHLD);
    sd->chld_w.data = sd;
    ev_signal_start (sd->loop, &sd->chld_w);
    ev_unref (sd->loop); /* lifecycle.c ends the loop, not the watchers */
}

void reap_stop (struct stepd *sd)
{
    if (!ev_is_active (&sd->chld_w))
        return;
    ev_ref (sd->loop);
    ev_signal_stop (sd->loop, &sd->chld_w);
}

/* exit_code and signal: of the task whose exit set the step's rc (the
 * highest, the first on a tie). When none did (the rc is the stepd's: a
 * launch failure, an MPI abort's code), the rc is the exit code. */
static void reap_how (const struct stepd *sd, const struct task *worst,
                      struct msg_step_complete *m)
{
    if (!worst || reap_rc (worst->status) != sd->rc) {
        m->exit_code = sd->rc;
        m->signal = 0;
        return;
    }
    m->exit_code = WIFEXITED (worst->status) ? WEXITSTATUS (worst->status) : 0;
    m->signal = WIFSIGNALED (worst->status) ? WTERMSIG (worst->status) : 0;
}

void reap_account (const struct stepd *sd, struct msg_step_complete *m)
{
    const struct task *worst = NULL;

    m->usage = true; /* also with no task (the extern step): zeros */
    m->user_usec = m->sys_usec = m->max_rss_kb = m->sum_rss_kb = 0;
    m->max_rss_task = m->ntasks = 0;
    for (uint32_t i = 0; i < sd->ntasks; i++) {
        const struct task *t = &sd->tasks[i];
        if (!t->exited)
            continue; /* never started */
        m->user_usec += t->user_usec;
        m->sys_usec += t->sys_usec;
        m->sum_rss_kb += t->maxrss_kb;
        if (m->ntasks++ == 0 || t->maxrss_kb > m->max_rss_kb) {
            m->max_rss_kb = t->maxrss_kb;
            m->max_rss_task = t->rank;
        }
        if (!worst || reap_rc (t->status) > reap_rc (worst->status))
            worst = t;
    }
    reap_how (sd, worst, m);
}
