/* stat.c - what the step's tasks on this node use now, for sstat
 * (STEP_STAT on the step socket, sock.c).
 *
 * Every live process of the container is sampled (procstat.h) and
 * counted to the task whose tree it is in; one that left every task's
 * tree (a daemon reparented to init) counts to the first task, as it
 * is still the step's. A task that has exited counts what wait4 gave
 * (reap.c). Peak sizes only grow: each task keeps the largest resident
 * and virtual sizes seen at any ask, and a process's own peaks (VmHWM,
 * VmPeak) count too, so the MaxRSS of a task of one process is the
 * kernel's exact figure; for a tree it is the largest sum seen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "procstat.h"
#include "contain.h"
#include "stat.h"
#include "stepd.h"

/* One task's sums over its processes. */
struct stat_sums {
    uint64_t cpu_ticks, majflt, rss_kb, vsize_kb, hwm_kb, peak_kb;
    uint64_t read_bytes, write_bytes;
};

static uint32_t stat_u32 (uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint64_t stat_max (uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Samples of the container's live processes, the stepd itself left
 * out. -1 with errno ENOMEM. */
static int stat_sample (struct stepd *sd, struct proc_sample **out, size_t *n)
{
    pid_t *pids = NULL, self = getpid ();
    size_t npids = 0;

    *out = NULL;
    *n = 0;
    if (contain_pids (sd, &pids, &npids) < 0) {
        log_info ("sstat: cannot list the step's processes: %s",
                  strerror (errno));
        return 0; /* the tasks' own exits still count */
    }
    if (npids && !(*out = calloc (npids, sizeof (**out)))) {
        free (pids);
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < npids; i++)
        if (pids[i] != self && procstat_read (pids[i], &(*out)[*n]) == 0)
            (*n)++; /* one that is gone meanwhile is not counted */
    free (pids);
    return 0;
}

static void stat_add (struct stat_sums *t, const struct proc_sample *p)
{
    t->cpu_ticks += p->cpu_ticks;
    t->majflt += p->majflt;
    t->rss_kb += p->rss_kb;
    t->vsize_kb += p->vsize_kb;
    t->hwm_kb = stat_max (t->hwm_kb, p->hwm_kb);
    t->peak_kb = stat_max (t->peak_kb, p->peak_kb);
    t->read_bytes += p->read_bytes;
    t->write_bytes += p->write_bytes;
}

/* Entry i of the reply for task t, from its sums. */
static void stat_task (struct task *t, const struct stat_sums *u, long hz,
                       struct msg_step_stat_reply *r, uint32_t i)
{
    uint64_t cpu_cs = u->cpu_ticks * 100 / (uint64_t)hz;

    if (t->exited)
        cpu_cs = (t->user_usec + t->sys_usec) / 10000;
    t->stat_rss_kb = stat_max (stat_max (t->stat_rss_kb, u->rss_kb),
                               stat_max (u->hwm_kb, t->maxrss_kb));
    t->stat_vsize_kb =
        stat_max (stat_max (t->stat_vsize_kb, u->vsize_kb), u->peak_kb);
    r->ranks[i] = t->rank;
    r->cpu_cs[i] = stat_u32 (cpu_cs);
    r->rss_kb[i] = stat_u32 (t->stat_rss_kb);
    r->vsize_kb[i] = stat_u32 (t->stat_vsize_kb);
    r->pages[i] = stat_u32 (u->majflt);
    r->read_kb[i] = stat_u32 (u->read_bytes / 1024);
    r->write_kb[i] = stat_u32 (u->write_bytes / 1024);
}

static int stat_alloc (struct msg_step_stat_reply *r, uint32_t ntasks,
                       size_t nprocs)
{
#define ALLOC(f, n)                                    \
    if ((n) && !(r->f = calloc ((n), sizeof (*r->f)))) \
        return -1;                                     \
    r->f##_count = (uint32_t)(n);
    ALLOC (ranks, ntasks);
    ALLOC (cpu_cs, ntasks);
    ALLOC (rss_kb, ntasks);
    ALLOC (vsize_kb, ntasks);
    ALLOC (pages, ntasks);
    ALLOC (read_kb, ntasks);
    ALLOC (write_kb, ntasks);
    ALLOC (pids, nprocs);
    ALLOC (pid_ranks, nprocs);
#undef ALLOC
    return 0;
}

/* Which processes are whose: task_pids of the started tasks, owner of
 * each sample (the first task for the strays). */
static int stat_owners (const struct stepd *sd, const struct proc_sample *s,
                        size_t n, int *owner)
{
    pid_t *task_pids = calloc (sd->ntasks ? sd->ntasks : 1, sizeof (pid_t));

    if (!task_pids)
        return -1;
    for (uint32_t k = 0; k < sd->ntasks; k++)
        task_pids[k] = sd->tasks[k].exited ? 0 : sd->tasks[k].pid;
    procstat_attribute (s, n, task_pids, sd->ntasks, owner);
    for (size_t i = 0; i < n; i++)
        if (owner[i] < 0)
            owner[i] = 0;
    free (task_pids);
    return 0;
}

int stat_measure (struct stepd *sd, struct msg_step_stat_reply *r)
{
    struct proc_sample *s = NULL;
    struct stat_sums *sums = NULL;
    int *owner = NULL, rc = -1;
    long hz = sysconf (_SC_CLK_TCK);
    size_t n = 0;

    memset (r, 0, sizeof (*r));
    if (stat_sample (sd, &s, &n) < 0 || !(r->node = strdup (sd->node)))
        goto out;
    if (sd->ntasks == 0)
        n = 0; /* no task to count them to (the extern step) */
    if (!(owner = calloc (n ? n : 1, sizeof (*owner)))
        || !(sums = calloc (sd->ntasks ? sd->ntasks : 1, sizeof (*sums)))
        || stat_owners (sd, s, n, owner) < 0
        || stat_alloc (r, sd->ntasks, n) < 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        stat_add (&sums[owner[i]], &s[i]);
        r->pids[i] = (uint32_t)s[i].pid;
        r->pid_ranks[i] = sd->tasks[owner[i]].rank;
    }
    for (uint32_t k = 0; k < sd->ntasks; k++)
        stat_task (&sd->tasks[k], &sums[k], hz > 0 ? hz : 100, r, k);
    rc = 0;
out:
    if (rc < 0) {
        proto_clear (MSG_STEP_STAT_REPLY, r);
        errno = ENOMEM;
    }
    free (s);
    free (sums);
    free (owner);
    return rc;
}
