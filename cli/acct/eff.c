/* eff.c - seff's efficiency report; see eff.h.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "acct_text.h"
#include "eff.h"
#include "jobview_acct.h"

void eff_compute (const struct job_view *v, const struct msg_acct_step *steps,
                  size_t nsteps, time_t now, struct eff_report *r)
{
    const struct msg_job_rec *job = &v->rec;
    const struct msg_acct_job *acct = v->acct;
    uint64_t end = job->end_time ? job->end_time : (uint64_t)now;
    uint32_t cpus = jobview_acct_alloc_cpus (v);
    uint64_t usec = 0;

    memset (r, 0, sizeof (*r));
    r->job = v;
    r->ncpus = cpus ? cpus : 1;
    r->nnodes = job->nnodes ? job->nnodes : 1;
    r->walltime_s =
        job->start_time && end > job->start_time ? end - job->start_time : 0;
    for (size_t i = 0; i < nsteps; i++) {
        usec += steps[i].user_usec + steps[i].sys_usec;
        if (steps[i].nodes_reported && steps[i].max_rss_kb > r->mem_used_kb)
            r->mem_used_kb = steps[i].max_rss_kb;
    }
    r->cpu_used_s = (usec + 500000) / 1000000;
    /* the memory asked as accounted */
    r->mem_per_cpu = acct->mem_per_cpu;
    r->mem_asked_kb =
        acct->req_mem_mb * 1024 * (acct->mem_per_cpu ? r->ncpus : r->nnodes);
}

double eff_cpu_percent (const struct eff_report *r)
{
    uint64_t core_wall = r->walltime_s * r->ncpus;

    return core_wall ? 100.0 * (double)r->cpu_used_s / (double)core_wall : 0.0;
}

double eff_mem_percent (const struct eff_report *r)
{
    return r->mem_asked_kb
               ? 100.0 * (double)r->mem_used_kb / (double)r->mem_asked_kb
               : 0.0;
}

/* The largest unit that keeps the number at 1 or more. */
const char *eff_kbytes_text (double kb, char *buf, size_t len)
{
    static const char *const units[] = { "K", "M", "G", "T", "P", "E" };
    size_t u = 0;

    if (kb <= 0) {
        snprintf (buf, len, "0.00 MB");
        return buf;
    }
    while (kb >= 1024 && u + 1 < sizeof (units) / sizeof (units[0])) {
        kb /= 1024;
        u++;
    }
    snprintf (buf, len, "%.2f %sB", kb, units[u]);
    return buf;
}

/* Is its state, as accounted, 'state'? */
static bool eff_is (const struct eff_report *r, const char *state)
{
    const char *s = r->job->acct->state;

    return s && !strcmp (s, state);
}

static void eff_print_head (FILE *f, const struct eff_report *r,
                            const char *group)
{
    const struct msg_job_rec *j = &r->job->rec;
    const struct msg_acct_job *a = r->job->acct;

    fprintf (f, "Job ID: %" PRIu32 "\n", j->id);
    if (j->array_job_id)
        fprintf (f, "Array Job ID: %" PRIu32 "_%" PRIu32 "\n", j->array_job_id,
                 j->array_task_id);
    fprintf (f, "Cluster: %s\n", jv_str (a->cluster));
    fprintf (f, "User/Group: %s/%s\n", jv_str (j->user), group);
    if (eff_is (r, "PENDING") || eff_is (r, "RUNNING"))
        fprintf (f, "State: %s\n", a->state);
    else
        fprintf (f, "State: %s (exit code %" PRId32 ")\n", jv_str (a->state),
                 a->exit_code);
    if (r->ncpus == 1)
        fprintf (f, "Cores: 1\n");
    else
        fprintf (f, "Nodes: %" PRIu32 "\nCores per node: %" PRIu32 "\n",
                 r->nnodes, r->ncpus / r->nnodes);
}

static void eff_print_usage (FILE *f, const struct eff_report *r)
{
    char used[32], core[32], wall[32], mem[32], asked[32], share[32];
    double per = r->mem_per_cpu ? r->ncpus : r->nnodes;

    acct_text_duration (r->cpu_used_s, used, sizeof (used));
    acct_text_duration (r->walltime_s * r->ncpus, core, sizeof (core));
    acct_text_duration (r->walltime_s, wall, sizeof (wall));
    eff_kbytes_text ((double)r->mem_used_kb, mem, sizeof (mem));
    eff_kbytes_text ((double)r->mem_asked_kb, asked, sizeof (asked));
    eff_kbytes_text ((double)r->mem_asked_kb / per, share, sizeof (share));
    fprintf (f, "CPU Utilized: %s\n", used);
    fprintf (f, "CPU Efficiency: %.2f%% of %s core-walltime\n",
             eff_cpu_percent (r), core);
    fprintf (f, "Job Wall-clock time: %s\n", wall);
    fprintf (f, "Memory Utilized: %s\n", mem);
    fprintf (f, "Memory Efficiency: %.2f%% of %s (%s/%s)\n",
             eff_mem_percent (r), asked, share,
             r->mem_per_cpu ? "core" : "node");
}

void eff_print (FILE *f, const struct eff_report *r, const char *group)
{
    eff_print_head (f, r, group);
    if (eff_is (r, "PENDING")) {
        fprintf (f, "Efficiency not available for jobs in the PENDING "
                    "state.\n");
        return;
    }
    eff_print_usage (f, r);
    if (eff_is (r, "RUNNING"))
        fprintf (f, "WARNING: Efficiency statistics may be misleading for "
                    "RUNNING jobs.\n");
}
