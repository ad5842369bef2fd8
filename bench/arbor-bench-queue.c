/* arbor-bench-queue - the controller's answer times to job listings and
 * submissions, and what its threads were doing meanwhile
 * (bench/queue_during_pass.py).
 *
 *   arbor-bench-queue -S JOBS [-k CONNECTIONS] [-m NODES] [-C CPUS]
 *   arbor-bench-queue [-q CALLS] [-c] [-j ID] [-s SUBMITS] [-i MS]
 *                     [-P PID [-W TID]] [-d SECONDS]
 *
 * -S: submits JOBS pending batch jobs of mixed shapes over CONNECTIONS
 * client connections (one thread each; the same submission as "arbor
 * batch"), so that every one is a job each scheduling pass tries: one
 * task of 1 to CPUS cores, 2 to 4*CPUS tasks of one core, 1 to NODES/8
 * (at least 1) nodes of 1 to CPUS tasks, or 1 to 16 whole nodes (at
 * most NODES), with time limits of 5 minutes to 10 hours and, except for
 * whole nodes, a memory request per node. Prints "N submissions in S
 * s". Exit 1 if any failed.
 *
 * Otherwise it probes the controller of $ARBOR_CONF, one request at a
 * time, each started a random 0 to 2*MS milliseconds (default 20) after
 * the last answer:
 *   -q CALLS  the JOB_INFO request of "arbor queue" (pending, running and
 *             completing jobs of every user; with -j ID that job only),
 *             one line "q START_S ANSWER_MS JOBS" each
 *   -r        ask for job records (JOB_REC, what the commands of 2.12
 *             ask for), not JOB_INFO_REPLY's lists (a 2.11 command's)
 *   -c        each listing on a new connection (configuration, munge
 *             credential, connect and hello, as the command does), not
 *             on one kept open
 *   -s SUBMITS   then SUBMITS batch submissions like -S's, one line
 *             "s START_S ANSWER_MS JOB_ID" each
 * With -P, a thread reads the CPU time the kernel counts for thread PID
 * (the controller's loop) and, with -W, thread TID of process PID (its
 * backfill planner) every 2 ms (/proc/PID/task/TID/schedstat), from -d
 * SECONDS before the first request to the last answer, and prints one
 * line "c TIME_S LOOP_NS PLANNER_NS" each. Times are CLOCK_MONOTONIC
 * seconds. Exit 1 on a failed request. Not part of ctest.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "jobsel.h"
#include "proto.h"
#include "states.h"

#define SCRIPT "#!/bin/sh\ntrue\n"
#define SAMPLE_US 2000

static double now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- submissions of mixed shapes ------------------------------------------
 */

static unsigned max_nodes = 4, node_cpus = 4;

static void job_shape (struct msg_job_alloc *r, unsigned *seed)
{
    unsigned kind = (unsigned)rand_r (seed) % 100;
    unsigned mem = 256 * (1 + (unsigned)rand_r (seed) % 8); /* per node */

    /* 5 minutes to 10 hours, short ones more often. */
    static const uint32_t limits[] = { 5,  10,  15,  30,  30, 60,
                                       60, 120, 240, 360, 600 };
    r->time_limit = limits[(unsigned)rand_r (seed) % 11];
    r->cpus_per_task = 1;
    if (kind < 50) { /* one task, 1..CPUS cores */
        r->ntasks = 1;
        r->cpus_per_task = 1 + (unsigned)rand_r (seed) % node_cpus;
        r->mem_mb = mem;
    } else if (kind < 80) { /* 2..4*CPUS single-core tasks, anywhere */
        unsigned most = 4 * node_cpus;
        if (most > max_nodes * node_cpus)
            most = max_nodes * node_cpus;
        r->ntasks = most < 2 ? 1 : 2 + (unsigned)rand_r (seed) % (most - 1);
        r->mem_per_cpu_mb = 256;
    } else if (kind < 95) { /* 1..NODES/8 nodes of 1..CPUS tasks */
        unsigned most = max_nodes / 8 ? max_nodes / 8 : 1;
        r->nnodes = 1 + (unsigned)rand_r (seed) % most;
        r->ntasks_per_node = 1 + (unsigned)rand_r (seed) % node_cpus;
        r->ntasks = r->nnodes * r->ntasks_per_node;
        r->mem_mb = mem;
    } else { /* 1..16 whole nodes */
        unsigned most = max_nodes < 16 ? max_nodes : 16;
        r->nnodes = 1 + (unsigned)rand_r (seed) % most;
        r->exclusive = true;
    }
}

static int submit_one (struct client *cl, unsigned *seed, uint32_t *id,
                       arbor_error_t *err)
{
    struct msg_job_alloc req = {
        .name = "bench",
        .cwd = "/tmp",
        .script = SCRIPT,
        .script_len = sizeof (SCRIPT) - 1,
        .std_out = "/dev/null",
    };
    struct msg_job_submitted out = { 0 };

    job_shape (&req, seed);
    if (client_call (cl, MSG_JOB_ALLOC, &req, MSG_JOB_SUBMITTED, &out,
                     CLIENT_TIMEOUT_MS, err)
        < 0)
        return -1;
    *id = out.job_id;
    return 0;
}

struct worker {
    pthread_t thread;
    unsigned jobs, done, seed;
    char error[200];
};

static void *submit_loop (void *arg)
{
    struct worker *w = arg;
    struct client cl = { 0 };
    arbor_error_t err = { "" };
    uint32_t id;

    if (client_open (&cl, &err) < 0) {
        snprintf (w->error, sizeof (w->error), "%s", err.text);
        return NULL;
    }
    for (; w->done < w->jobs; w->done++)
        if (submit_one (&cl, &w->seed, &id, &err) < 0) {
            snprintf (w->error, sizeof (w->error), "%s", err.text);
            break;
        }
    client_close (&cl);
    return NULL;
}

static int submit_many (unsigned jobs, unsigned conns)
{
    struct worker *w = calloc (conns, sizeof (*w));
    unsigned total = 0;
    double t0;
    int rc = 0;

    if (!w)
        return 2;
    for (unsigned i = 0; i < conns; i++) {
        w[i].jobs = jobs / conns + (i < jobs % conns);
        w[i].seed = 12345 + i;
    }
    t0 = now ();
    for (unsigned i = 0; i < conns; i++)
        pthread_create (&w[i].thread, NULL, submit_loop, &w[i]);
    for (unsigned i = 0; i < conns; i++) {
        pthread_join (w[i].thread, NULL);
        if (w[i].error[0]) {
            fprintf (stderr, "connection %u: %s\n", i, w[i].error);
            rc = 1;
        }
        total += w[i].done;
    }
    printf ("%u submissions in %.2f s\n", total, now () - t0);
    free (w);
    return rc;
}

/* ---- the CPU time sampler -------------------------------------------------
 */

struct sample {
    double t;
    unsigned long long loop_ns, plan_ns;
};

static struct sampler {
    pthread_t thread;
    int loop_fd, plan_fd; /* -1: none */
    struct sample *v;
    size_t n, cap;
    atomic_bool stop;
} smp = { .loop_fd = -1, .plan_fd = -1 };

/* The first field of schedstat: nanoseconds on a CPU. */
static unsigned long long read_ns (int fd)
{
    char buf[128];
    ssize_t n;

    if (fd < 0 || (n = pread (fd, buf, sizeof (buf) - 1, 0)) <= 0)
        return 0;
    buf[n] = '\0';
    return strtoull (buf, NULL, 10);
}

static void *sample_loop (void *arg)
{
    (void)arg;
    while (!atomic_load (&smp.stop)) {
        if (smp.n == smp.cap) {
            size_t cap = smp.cap ? smp.cap * 2 : 65536;
            struct sample *v = realloc (smp.v, cap * sizeof (*v));
            if (!v)
                break;
            smp.v = v;
            smp.cap = cap;
        }
        smp.v[smp.n].t = now ();
        smp.v[smp.n].loop_ns = read_ns (smp.loop_fd);
        smp.v[smp.n].plan_ns = read_ns (smp.plan_fd);
        smp.n++;
        usleep (SAMPLE_US);
    }
    return NULL;
}

static int open_stat (const char *pid, const char *tid)
{
    char path[128];
    int fd;

    snprintf (path, sizeof (path), "/proc/%s/task/%s/schedstat", pid, tid);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        perror (path);
    return fd;
}

/* ---- probing --------------------------------------------------------------
 */

static void pause_ms (unsigned ms, unsigned *seed)
{
    if (ms)
        usleep ((useconds_t)((unsigned)rand_r (seed) % (2 * ms * 1000 + 1)));
}

static void listing_request (struct msg_job_info *req, uint32_t *id)
{
    memset (req, 0, sizeof (*req));
    req->states = calloc (JOB_STATE_COUNT, sizeof (char *));
    for (int i = 0; req->states && i < JOB_STATE_COUNT; i++)
        if (jobsel_state_in ("PD,R,CG", job_state_str (i)))
            req->states[req->states_count++] = (char *)job_state_str (i);
    if (*id) {
        req->job_ids = id;
        req->job_ids_count = 1;
    }
}

static bool records; /* -r */

static int probe (unsigned calls, bool fresh, uint32_t id, unsigned submits,
                  unsigned pause, double quiet)
{
    struct client cl = { 0 };
    arbor_error_t err = { "" };
    struct msg_job_info req;
    unsigned seed = 777;
    int rc = 0;

    listing_request (&req, &id);
    if (!req.states)
        return 2;
    req.records = records;
    if (quiet > 0)
        usleep ((useconds_t)(quiet * 1e6));
    if ((!fresh || submits) && client_open (&cl, &err) < 0) {
        fprintf (stderr, "%s\n", err.text);
        free (req.states);
        return 1;
    }
    for (unsigned i = 0; i < calls; i++) {
        struct msg_job_info_reply r = { 0 };
        struct client one = { 0 };
        double t0;
        pause_ms (pause, &seed);
        t0 = now ();
        if (fresh && client_open (&one, &err) < 0) {
            rc = 1;
            break;
        }
        if (client_call (fresh ? &one : &cl, MSG_JOB_INFO, &req,
                         MSG_JOB_INFO_REPLY, &r, CLIENT_TIMEOUT_MS, &err)
            < 0) {
            if (fresh)
                client_close (&one);
            rc = 1;
            break;
        }
        if (fresh)
            client_close (&one);
        printf ("q %.6f %.3f %u\n", t0, (now () - t0) * 1e3,
                records ? r.jobs_count : r.job_ids_count);
        proto_clear (MSG_JOB_INFO_REPLY, &r);
    }
    for (unsigned i = 0; !rc && i < submits; i++) {
        uint32_t job;
        double t0;
        pause_ms (pause, &seed);
        t0 = now ();
        if (submit_one (&cl, &seed, &job, &err) < 0) {
            rc = 1;
            break;
        }
        printf ("s %.6f %.3f %u\n", t0, (now () - t0) * 1e3, job);
    }
    if (rc)
        fprintf (stderr, "request failed: %s\n", err.text);
    if (cl.ch.fd >= 0)
        client_close (&cl);
    free (req.states); /* the names are static, the id ours */
    return rc;
}

int main (int argc, char **argv)
{
    unsigned jobs = 0, conns = 8, calls = 0, submits = 0, pause = 20;
    const char *pid = NULL, *tid = NULL;
    uint32_t id = 0;
    bool fresh = false;
    double quiet = 0;
    int c, rc;

    while ((c = getopt (argc, argv, "S:k:m:C:q:rcj:s:i:P:W:d:")) != -1) {
        switch (c) {
        case 'S': jobs = (unsigned)atoi (optarg); break;
        case 'k': conns = (unsigned)atoi (optarg); break;
        case 'm': max_nodes = (unsigned)atoi (optarg); break;
        case 'C': node_cpus = (unsigned)atoi (optarg); break;
        case 'q': calls = (unsigned)atoi (optarg); break;
        case 'c': fresh = true; break;
        case 'r': records = true; break;
        case 'j': id = (uint32_t)strtoul (optarg, NULL, 10); break;
        case 's': submits = (unsigned)atoi (optarg); break;
        case 'i': pause = (unsigned)atoi (optarg); break;
        case 'P': pid = optarg; break;
        case 'W': tid = optarg; break;
        case 'd': quiet = atof (optarg); break;
        default:
            fprintf (stderr,
                     "usage: arbor-bench-queue -S JOBS [-k N] [-m NODES] "
                     "[-C CPUS]\n"
                     "       arbor-bench-queue [-q CALLS] [-c] [-j ID] "
                     "[-s SUBMITS] [-i MS] [-P PID [-W TID]] [-d S]\n");
            return 2;
        }
    }
    if (!max_nodes || !node_cpus || !conns)
        return 2;
    if (jobs)
        return submit_many (jobs, conns);
    if (pid) {
        if ((smp.loop_fd = open_stat (pid, pid)) < 0
            || (tid && (smp.plan_fd = open_stat (pid, tid)) < 0))
            return 1;
        pthread_create (&smp.thread, NULL, sample_loop, NULL);
    }
    rc = probe (calls, fresh, id, submits, pause, quiet);
    if (pid) {
        atomic_store (&smp.stop, true);
        pthread_join (smp.thread, NULL);
        for (size_t i = 0; i < smp.n; i++)
            printf ("c %.6f %llu %llu\n", smp.v[i].t, smp.v[i].loop_ns,
                    smp.v[i].plan_ns);
    }
    return rc;
}
