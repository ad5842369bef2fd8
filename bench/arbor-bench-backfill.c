/* arbor-bench-backfill - how long one backfill pass takes.
 *
 *   arbor-bench-backfill [-N NODES] [-j PENDING] [-m conservative|easy]
 *                        [-s SEED] [-l] [-g]
 *
 * Builds the controller's state in memory (the unit tests' fixture: no
 * daemons, no munge) for NODES nodes of 32 cores and 128 GB, fills it
 * with running jobs of random sizes (1-64 cores) and time limits (10
 * minutes to 10 hours) until it is 95 % busy, queues PENDING jobs of the
 * same mix (multifactor priority), runs the strict pass once, then times
 * one backfill pass (SchedulerType=sched/backfill) and prints how many
 * jobs it tested, started and reserved, and how the time splits between
 * the controller's loop (snapshot, applying the plan) and the planner's
 * thread (the plan itself). -l adds load-aware selection
 * (SelectLoadParameters, ctld/sched/loadsel.h) with a random load and free
 * memory on each node, so every selection sorts the nodes by score.
 * -g gives each node 8 GPUs (Gres=gpu:8) and 2 features (ib and one of
 * rack0-3); a third of the jobs then ask for 1-4 GPUs per node
 * (--gpus-per-node) and a sixth for a rack (-C rack1|rack2) (issue 35).
 * Not part of ctest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sched/backfill.h"
#include "conf.h"
#include "ctld.h"
#include "fixture.h"
#include "job/job.h"
#include "nodes/node.h"
#include "sched/sched.h"
#include "sched/sched_wake.h"

static struct outbox outbox;

static double now_s (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool gres; /* -g */

/* -g: 8 GPUs and ib on every node, and rack0..rack3 a quarter each. */
static void bench_node_lines (char *buf, size_t len, unsigned nodes)
{
    size_t at = 0;

    if (!gres) {
        snprintf (buf, len, "NodeName=n[1-%u] CPUs=32 RealMemory=128000\n",
                  nodes);
        return;
    }
    at += (size_t)snprintf (buf, len, "GresTypes=gpu\n");
    for (unsigned r = 0; r < 4 && at < len; r++) {
        unsigned lo = 1 + r * nodes / 4, hi = (r + 1) * nodes / 4;
        if (hi >= lo)
            at += (size_t)snprintf (buf + at, len - at,
                                    "NodeName=n[%u-%u] CPUs=32 "
                                    "RealMemory=128000 Gres=gpu:8 "
                                    "Features=ib,rack%u\n",
                                    lo, hi, r);
    }
}

static struct ctld *bench_cluster (unsigned nodes, const char *mode, bool load)
{
    char conf[2048], lines[1024];
    struct ctld *ctx;

    snprintf (conf, sizeof (conf),
              "ClusterName=bench\nNodedPort=1\nMaxJobCount=1000000\n"
              "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n"
              "PriorityWeightJobSize=1000\n"
              "SchedulerType=sched/backfill\nSchedulerParameters=bf_mode=%s,"
              "bf_max_job_test=1000000\n"
              "%s%s"
              "PartitionName=p Nodes=ALL Default=YES\n",
              mode,
              load ? "SelectLoadParameters=cpu_weight=6,ram_weight=4\n" : "",
              (bench_node_lines (lines, sizeof (lines), nodes), lines));
    if (!(ctx = fixture_ctld (conf, &outbox)) || !load)
        return ctx;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        ctx->nodes[i].cpu_load = (uint32_t)(rand () % 3200);
        ctx->nodes[i].free_mem = (uint32_t)(rand () % 128000);
    }
    return ctx;
}

static struct job *bench_job (struct ctld *ctx, bool held)
{
    static const char *const gpus[] = { "1", "2", "3", "4" };
    struct msg_job_alloc r = {
        .ntasks = 1 + (uint32_t)(rand () % 64),
        .time_limit = 10 + (uint32_t)(rand () % 590),
        .mem_mb = 1000 * (1 + (uint64_t)(rand () % 8)),
        .hold = held,
    };
    int kind = gres ? rand () % 6 : 6; /* without -g, base's sequence */

    if (gres && kind < 2) /* a third: GPUs on each node */
        r.gpus_per_node = (char *)gpus[rand () % 4];
    else if (gres && kind == 2) /* a sixth: a rack */
        r.constraint = "rack1|rack2";
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    if (!j) {
        fprintf (stderr, "submit: %s\n", err.text);
        exit (1);
    }
    return j;
}

/* Running jobs until 95 % of the cores are taken. */
static void bench_fill (struct ctld *ctx, uint64_t cores)
{
    uint64_t busy = 0;

    while (busy < cores * 95 / 100) {
        struct job *j = bench_job (ctx, false);
        if (j->state != JOB_RUNNING)
            break;
        for (size_t k = 0; k < j->nnodes; k++)
            busy += j->nodes[k].cpus;
    }
}

int main (int argc, char **argv)
{
    unsigned nodes = 100, pending = 1000, seed = 1;
    const char *mode = "conservative";
    bool load = false;
    struct bf_params bp;
    struct bf_stats st;
    arbor_error_t err;
    struct ctld *ctx;
    double t0;
    int c;

    while ((c = getopt (argc, argv, "N:j:m:s:lg")) != -1) {
        if (c == 'N')
            nodes = (unsigned)atoi (optarg);
        else if (c == 'j')
            pending = (unsigned)atoi (optarg);
        else if (c == 'm')
            mode = optarg;
        else if (c == 's')
            seed = (unsigned)atoi (optarg);
        else if (c == 'l')
            load = true;
        else if (c == 'g')
            gres = true;
        else {
            fprintf (stderr, "usage: arbor-bench-backfill [-N NODES] "
                             "[-j PENDING] [-m MODE] [-s SEED] [-l] [-g]\n");
            return 2;
        }
    }
    srand (seed);
    if (!(ctx = bench_cluster (nodes, mode, load))) {
        fprintf (stderr, "cannot build the cluster\n");
        return 1;
    }
    bench_fill (ctx, (uint64_t)nodes * 32);
    for (unsigned i = 0; i < pending; i++) /* held: no pass per job */
        bench_job (ctx, true);
    for (struct job *j = ctx->jobs; j; j = j->next)
        j->held = false;
    t0 = now_s ();
    sched_request (ctx);
    sched_flush (ctx);
    printf ("%u nodes, %u pending (%s%s%s): strict pass %.1f ms\n", nodes,
            pending, mode, load ? ", load-aware" : "",
            gres ? ", 8 GPUs and 2 features a node" : "",
            (now_s () - t0) * 1e3);
    if (bf_params_parse (ctx->conf->scheduler_params, &bp, &err) < 0) {
        fprintf (stderr, "%s\n", err.text);
        return 1;
    }
    t0 = now_s ();
    if (backfill_pass (ctx, &bp, &st) < 0) {
        fprintf (stderr, "backfill pass failed\n");
        return 1;
    }
    printf ("backfill pass: %.1f ms (%u tested, %u started, %u reserved)\n",
            (now_s () - t0) * 1e3, st.tested, st.started, st.reserved);
    printf ("  on the loop: snapshot %.1f ms + applying %.1f ms; "
            "off the loop: plan %.1f ms\n",
            st.snap_ms, st.apply_ms, st.plan_ms);
    fixture_free (ctx);
    outbox_clear (&outbox);
    return 0;
}
