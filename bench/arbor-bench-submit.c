/* arbor-bench-submit - how many batch submissions a second the controller
 * accepts, each one durable before it is answered.
 *
 *   arbor-bench-submit [-n JOBS] [-k CONNECTIONS] [-p]
 *
 * Opens CONNECTIONS client connections to the controller of $ARBOR_CONF
 * (one thread each) and sends JOBS batch submissions in all, each held
 * (--hold: they queue and never run), one after another on each
 * connection: every one is answered only once it is in the state
 * database. With -p they are not held: each is a pending job every
 * scheduling pass considers (give them a cluster kept busy). Prints "N
 * submissions in S s: R/s" and the median and maximum answer time. Exit 1 if
 * any submission failed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "proto.h"

#define SCRIPT "#!/bin/sh\ntrue\n"

struct worker {
    pthread_t thread;
    unsigned jobs;
    double *lat; /* seconds, one per job */
    unsigned done;
    char error[200];
};

static double now (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool held = true; /* -p: not held */

static void *submit_loop (void *arg)
{
    struct worker *w = arg;
    struct client cl = { 0 };
    arbor_error_t err = { "" };

    if (client_open (&cl, &err) < 0) {
        snprintf (w->error, sizeof (w->error), "%s", err.text);
        return NULL;
    }
    for (unsigned i = 0; i < w->jobs; i++) {
        struct msg_job_alloc req = {
            .name = "bench",
            .cpus_per_task = 1,
            .cwd = "/tmp",
            .script = SCRIPT,
            .script_len = sizeof (SCRIPT) - 1,
            .std_out = "/dev/null",
            .hold = held,
        };
        struct msg_job_submitted out = { 0 };
        double t0 = now ();
        if (client_call (&cl, MSG_JOB_ALLOC, &req, MSG_JOB_SUBMITTED, &out,
                         CLIENT_TIMEOUT_MS, &err)
            < 0) {
            snprintf (w->error, sizeof (w->error), "%s", err.text);
            break;
        }
        w->lat[w->done++] = now () - t0;
    }
    client_close (&cl);
    return NULL;
}

static int cmp_double (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main (int argc, char **argv)
{
    unsigned jobs = 10000, conns = 32, total = 0;
    struct worker *w;
    double t0, elapsed, *all;
    int c, rc = 0;

    while ((c = getopt (argc, argv, "n:k:p")) != -1) {
        if (c == 'p')
            held = false;
        else if (c == 'n')
            jobs = (unsigned)atoi (optarg);
        else if (c == 'k')
            conns = (unsigned)atoi (optarg);
        else {
            fprintf (stderr,
                     "usage: arbor-bench-submit [-n JOBS] [-k N] [-p]\n");
            return 2;
        }
    }
    if (!jobs || !conns || !(w = calloc (conns, sizeof (*w)))
        || !(all = calloc (jobs, sizeof (*all))))
        return 2;
    for (unsigned i = 0; i < conns; i++) {
        w[i].jobs = jobs / conns + (i < jobs % conns);
        w[i].lat = calloc (w[i].jobs + 1, sizeof (double));
    }
    t0 = now ();
    for (unsigned i = 0; i < conns; i++)
        pthread_create (&w[i].thread, NULL, submit_loop, &w[i]);
    for (unsigned i = 0; i < conns; i++)
        pthread_join (w[i].thread, NULL);
    elapsed = now () - t0;
    for (unsigned i = 0; i < conns; i++) {
        if (w[i].error[0]) {
            fprintf (stderr, "connection %u: %s\n", i, w[i].error);
            rc = 1;
        }
        memcpy (all + total, w[i].lat, w[i].done * sizeof (double));
        total += w[i].done;
        free (w[i].lat);
    }
    qsort (all, total, sizeof (*all), cmp_double);
    printf ("%u submissions on %u connections in %.2f s: %.0f/s; answer "
            "median %.2f ms, max %.2f ms\n",
            total, conns, elapsed, total / elapsed,
            total ? all[total / 2] * 1e3 : 0, total ? all[total - 1] * 1e3 : 0);
    free (all);
    free (w);
    return rc;
}
