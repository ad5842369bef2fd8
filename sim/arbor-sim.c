/* arbor-sim - the controller's scheduling code over a workload trace, in
 * virtual time.
 *
 *   arbor-sim [--conf arbor.conf] [--set KEY=VALUE]...
 *             [--sample N --seed S --iterations K] TRACE.swf
 *
 * Prints one key=value line per figure: jobs=, skipped=, avg_wait_s=,
 * avg_bounded_slowdown=, utilization=, makespan_s= (averages over the
 * iterations when sampling). Without --conf the cluster is the trace's
 * processors (MaxProcs, else MaxNodes) as nodes of one CPU in one
 * partition; --set adds or replaces a global key (SchedulerType=...,
 * SchedulerParameters=..., PriorityType=...), as arbor.conf(5) has them.
 * --sample N replays N consecutive jobs starting at a random one (with
 * --seed), --iterations times, their submit times shifted to start at 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "simrun.h"
#include "swf.h"

struct sim_opts {
    const char *conf_path;
    char **sets;
    size_t nsets;
    size_t sample;
    unsigned seed, iterations;
    const char *trace;
};

static void usage (FILE *f)
{
    fprintf (f, "Usage: arbor-sim [--conf FILE] [--set KEY=VALUE]... "
                "[--sample N [--seed S] [--iterations K]] TRACE.swf\n");
}

static void die_usage (const char *what)
{
    fprintf (stderr, "arbor-sim: %s\n", what);
    usage (stderr);
    exit (2);
}

static unsigned long number (const char *opt, const char *s)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul (s, &end, 10);
    if (errno || *end || end == s) {
        fprintf (stderr, "arbor-sim: %s '%s': a number expected\n", opt, s);
        exit (2);
    }
    return v;
}

static void parse (struct sim_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "conf", required_argument, NULL, 'c' },
        { "set", required_argument, NULL, 's' },
        { "sample", required_argument, NULL, 'n' },
        { "seed", required_argument, NULL, 'r' },
        { "iterations", required_argument, NULL, 'i' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    *o = (struct sim_opts){ .seed = 1, .iterations = 1 };
    while ((c = getopt_long (argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': o->conf_path = optarg; break;
        case 's':
            if (!strchr (optarg, '=') || optarg[0] == '=')
                die_usage ("--set wants KEY=VALUE");
            o->sets = realloc (o->sets, (o->nsets + 1) * sizeof (char *));
            if (!o->sets)
                die_usage ("out of memory");
            o->sets[o->nsets++] = optarg;
            break;
        case 'n': o->sample = number ("--sample", optarg); break;
        case 'r': o->seed = (unsigned)number ("--seed", optarg); break;
        case 'i':
            o->iterations = (unsigned)number ("--iterations", optarg);
            break;
        case 'h': usage (stdout); exit (0);
        default: die_usage ("unknown option");
        }
    }
    if (optind != argc - 1)
        die_usage ("one trace file expected");
    o->trace = argv[optind];
    if (!o->iterations)
        die_usage ("--iterations must be at least 1");
}

/* The configuration: --conf's text, or a cluster of 'procs' one-CPU
 * nodes; each --set replaces its key's line or is added. */
static char *sim_conf (const struct sim_opts *o, uint32_t procs)
{
    char *text = NULL, *line = NULL;
    size_t size = 0, cap = 0;
    FILE *out = open_memstream (&text, &size), *in = NULL;

    if (!out)
        return NULL;
    if (o->conf_path && !(in = fopen (o->conf_path, "r"))) {
        fprintf (stderr, "arbor-sim: %s: %s\n", o->conf_path, strerror (errno));
        exit (1);
    }
    if (!in)
        fprintf (out,
                 "ClusterName=sim\nNodedPort=1\n"
                 "NodeName=n[1-%u] CPUs=1\n"
                 "PartitionName=sim Nodes=ALL Default=YES\n",
                 procs);
    while (in && getline (&line, &cap, in) > 0) {
        bool replaced = false;
        for (size_t i = 0; i < o->nsets; i++) {
            size_t k = (size_t)(strchr (o->sets[i], '=') - o->sets[i]);
            replaced |= !strncasecmp (line, o->sets[i], k) && line[k] == '=';
        }
        if (!replaced && strncasecmp (line, "MinJobAge=", 10)
            && strncasecmp (line, "MaxJobCount=", 12))
            fputs (line, out);
    }
    fprintf (out, "MinJobAge=0\nMaxJobCount=10000000\n");
    for (size_t i = 0; i < o->nsets; i++)
        fprintf (out, "%s\n", o->sets[i]);
    free (line);
    if (in)
        fclose (in);
    fclose (out);
    return text;
}

static void print (const struct sim_result *r, double iterations)
{
    printf ("jobs=%.0f\nskipped=%.0f\navg_wait_s=%.2f\n"
            "avg_bounded_slowdown=%.2f\nutilization=%.4f\nmakespan_s=%.0f\n",
            (double)r->jobs / iterations, (double)r->skipped / iterations,
            r->avg_wait / iterations, r->avg_bsld / iterations,
            r->utilization / iterations, (double)r->makespan / iterations);
}

/* N consecutive jobs from a random one, submit times from 0. */
static struct swf_job *sim_sample (const struct swf_trace *t, size_t n)
{
    struct swf_job *v = calloc (n, sizeof (*v));
    size_t first = t->njobs > n ? (size_t)rand () % (t->njobs - n + 1) : 0;

    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        v[i] = t->jobs[first + i];
        v[i].submit -= t->jobs[first].submit;
    }
    return v;
}

int main (int argc, char **argv)
{
    struct sim_opts o;
    struct swf_trace t;
    struct sim_result sum = { 0 }, r;
    arbor_error_t err;
    char *conf;
    FILE *f;

    parse (&o, argc, argv);
    log_open ("arbor-sim", LOG_LVL_ERR, NULL);
    if (!(f = fopen (o.trace, "r"))) {
        fprintf (stderr, "arbor-sim: %s: %s\n", o.trace, strerror (errno));
        return 1;
    }
    if (swf_read (f, o.trace, &t, &err) < 0) {
        fprintf (stderr, "arbor-sim: %s\n", err.text);
        return 1;
    }
    fclose (f);
    if (!t.max_procs && !o.conf_path) {
        fprintf (stderr,
                 "arbor-sim: %s says neither MaxProcs nor MaxNodes: "
                 "give --conf\n",
                 o.trace);
        return 1;
    }
    if (o.sample > t.njobs || (o.sample == 0 && o.iterations > 1))
        die_usage ("--sample N needs N jobs of the trace at most, "
                   "--iterations needs --sample");
    if (!(conf = sim_conf (&o, t.max_procs)))
        return 1;
    srand (o.seed);
    for (unsigned i = 0; i < o.iterations; i++) {
        struct swf_job *jobs = o.sample ? sim_sample (&t, o.sample) : t.jobs;
        size_t n = o.sample ? o.sample : t.njobs;
        if (!jobs || sim_run (conf, jobs, n, t.max_procs, &r, &err) < 0) {
            fprintf (stderr, "arbor-sim: %s\n", jobs ? err.text : "no memory");
            return 1;
        }
        if (o.sample)
            free (jobs);
        sum.jobs += r.jobs;
        sum.skipped += r.skipped;
        sum.avg_wait += r.avg_wait;
        sum.avg_bsld += r.avg_bsld;
        sum.utilization += r.utilization;
        sum.makespan += r.makespan;
    }
    print (&sum, o.iterations);
    free (conf);
    swf_free (&t);
    free (o.sets);
    return 0;
}
