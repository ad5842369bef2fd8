/* register.c - tell the ctld this node is up and what it has.
 *
 * One registration is one request (common/wire/request.h) to
 * ControlAddr:CtldPort: NODE_REGISTER, its RC within REG_ANSWER_TIMEOUT
 * (connect included). The request retries itself (opts.retry), each time
 * with the node's current load and jobs: every REG_RETRY seconds until
 * the first success, later every NodeRegisterInterval. Registrations run
 * every NodeRegisterInterval, give or take a fifth, once one succeeded.
 * Failures are logged when they change, not every second. Each
 * registration lists the jobs with a stepd here (REG_MAX_JOBS at most):
 * the ctld ends those it does not expect here (after its restart, say)
 * and keeps the node out of service until they are gone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <sodium.h>

#include "credkey_held.h"
#include "load.h"
#include "log.h"
#include "noded_base.h"
#include "register.h"
#include "request.h"
#include "spool_scan.h"
#include "stepd_table.h"

#define REG_MAX_JOBS 4096

#ifndef ARBOR_VERSION
#define ARBOR_VERSION "unknown"
#endif

/* The node's generic resources as NODE_REGISTER's lists, made once: they
 * do not change while the noded runs. */
struct reg_gres {
    char **names, **types, **files, **cores;
    uint32_t *counts;
    uint32_t n;
};

struct reg {
    struct noded *nd;
    struct reg_gres gres;
    ev_timer next_w;      /* next attempt */
    struct request *req;  /* the attempt in progress */
    bool registered;      /* at least once */
    char last_error[200]; /* last failure logged, to log changes only */
};

void reg_resources (const struct noded *nd, uint32_t *cpus,
                    uint32_t *real_memory)
{
    struct sysinfo si;
    long n;

    if (nd->emulate) {
        *cpus = nd->self->cpus;
        *real_memory = nd->self->real_memory;
        return;
    }
    n = sysconf (_SC_NPROCESSORS_ONLN);
    *cpus = n > 0 ? (uint32_t)n : 1;
    if (sysinfo (&si) == 0)
        *real_memory = (uint32_t)((unsigned long long)si.totalram * si.mem_unit
                                  / (1024 * 1024));
    else
        *real_memory = 1;
}

/* NodeRegisterInterval, give or take a fifth at random: nodes that
 * started together (a cluster booting, `arbor local`) would otherwise all
 * register in the same instant every interval, and a thousand of them at
 * once stall the controller and, emulated on one host, everything. */
static double reg_interval (const struct conf *conf)
{
    double spread = randombytes_uniform (1001) / 1000.0; /* 0 to 1 */

    return conf->node_register_interval * (0.8 + 0.4 * spread);
}

/* End the attempt in progress and schedule the next one. */
static void reg_schedule (struct reg *r)
{
    struct ev_loop *loop = r->nd->loop;

    request_cancel (r->req);
    r->req = NULL;
    ev_timer_set (&r->next_w,
                  r->registered ? reg_interval (r->nd->conf) : REG_RETRY, 0.);
    ev_timer_start (loop, &r->next_w);
}

/* A failed attempt, logged when the failure changes. */
static void reg_log_failure (struct reg *r, const char *msg)
{
    const struct conf *conf = r->nd->conf;

    if (strcmp (msg, r->last_error) != 0) {
        log_info ("registration with ctld at %s:%u: %s%s", conf->control_addr,
                  conf->ctld_port, msg,
                  r->registered ? "" : " (retrying every second)");
        snprintf (r->last_error, sizeof (r->last_error), "%s", msg);
    } else {
        log_debug ("registration with ctld: %s", msg);
    }
}

static void reg_failed (struct reg *r, const char *msg)
{
    reg_log_failure (r, msg);
    reg_schedule (r);
}

static void reg_done_cb (const struct request_result *res, void *arg)
{
    struct reg *r = arg;

    r->req = NULL; /* freed by request.c after this returns */
    if (res->errnum != 0 && res->outcome != REQUEST_REFUSED) {
        reg_failed (r, res->err.text);
        return;
    }
    if (res->errnum != 0) {
        log_err ("ctld refused registration: %s", res->err.text);
        snprintf (r->last_error, sizeof (r->last_error), "refused");
    } else {
        if (!r->registered)
            log_info ("registered with ctld at %s:%u",
                      r->nd->conf->control_addr, r->nd->conf->ctld_port);
        else
            log_debug ("registered with ctld");
        r->registered = true;
        r->last_error[0] = '\0';
    }
    reg_schedule (r);
}

static void reg_add_job (uint32_t *ids, uint32_t *n, uint32_t job)
{
    for (uint32_t i = 0; i < *n; i++)
        if (ids[i] == job)
            return;
    if (*n < REG_MAX_JOBS)
        ids[(*n)++] = job;
}

/* The list reg_running_jobs fills. */
struct reg_jobs {
    uint32_t *ids;
    uint32_t n;
};

/* spool_scan_f: a stepd socket of 'job' in the spool. */
static int reg_spool_job (const char *path, uint32_t job, uint32_t step,
                          void *arg)
{
    struct reg_jobs *jobs = arg;

    reg_add_job (jobs->ids, &jobs->n, job);
    return 0;
}

/* The jobs with a stepd here: ours (also those still starting), and those
 * with a socket in the spool (also a previous noded's). Caller frees;
 * NULL (no list) when out of memory. */
static uint32_t *reg_running_jobs (struct noded *nd, uint32_t *n)
{
    struct reg_jobs jobs = { calloc (REG_MAX_JOBS, sizeof (*jobs.ids)), 0 };

    *n = 0;
    if (!jobs.ids)
        return NULL;
    for (struct stepd_rec *s = nd->stepds->head; s; s = s->next)
        reg_add_job (jobs.ids, &jobs.n, s->job_id);
    spool_scan (nd->spool, reg_spool_job, NULL, &jobs);
    *n = jobs.n;
    return jobs.ids;
}

/* Files of item 'it' joined by ','; "" for a count-only one. */
static char *reg_gres_files (const struct gres_item *it)
{
    size_t len = 1;
    char *s;

    for (size_t k = 0; k < it->nfiles; k++)
        len += strlen (it->files[k]) + 1;
    if (!(s = calloc (1, len)))
        return NULL;
    for (size_t k = 0; k < it->nfiles; k++) {
        if (k)
            strcat (s, ",");
        strcat (s, it->files[k]);
    }
    return s;
}

static void reg_gres_free (struct reg_gres *g)
{
    for (uint32_t i = 0; i < g->n; i++) {
        free (g->names[i]);
        free (g->types[i]);
        free (g->files[i]);
        free (g->cores[i]);
    }
    free (g->names);
    free (g->types);
    free (g->files);
    free (g->cores);
    free (g->counts);
    memset (g, 0, sizeof (*g));
}

static int reg_gres_make (const struct gresnode *gn, struct reg_gres *g)
{
    size_t n = gn->n ? gn->n : 1;
    bool bad;

    g->names = calloc (n, sizeof (char *));
    g->types = calloc (n, sizeof (char *));
    g->files = calloc (n, sizeof (char *));
    g->cores = calloc (n, sizeof (char *));
    g->counts = calloc (n, sizeof (uint32_t));
    bad = !g->names || !g->types || !g->files || !g->cores || !g->counts;
    for (size_t i = 0; i < gn->n && !bad; i++, g->n++) {
        const struct gres_item *it = &gn->v[i];
        g->names[i] = strdup (it->name);
        g->types[i] = strdup (it->type ? it->type : "");
        g->files[i] = reg_gres_files (it);
        g->cores[i] = strdup (it->cores ? it->cores : "");
        g->counts[i] =
            it->count > UINT32_MAX ? UINT32_MAX : (uint32_t)it->count;
        bad = !g->names[i] || !g->types[i] || !g->files[i] || !g->cores[i];
    }
    if (bad) {
        reg_gres_free (g);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* NODE_REGISTER as of now. Caller frees m->job_ids. */
static void reg_message (struct reg *r, struct msg_node_register *m)
{
    struct noded *nd = r->nd;

    *m = (struct msg_node_register){
        .name = (char *)nd->name,
        .version = ARBOR_VERSION,
        .cred_key_id = (char *)credkey_held_id (nd),
    };
    reg_resources (nd, &m->cpus, &m->real_memory);
    load_measure (nd, &m->cpu_load, &m->free_mem);
    m->job_ids = reg_running_jobs (nd, &m->job_ids_count);
    m->gres_names = r->gres.names; /* borrowed */
    m->gres_names_count = r->gres.n;
    m->gres_types = r->gres.types;
    m->gres_types_count = r->gres.n;
    m->gres_counts = r->gres.counts;
    m->gres_counts_count = r->gres.n;
    m->gres_files = r->gres.files;
    m->gres_files_count = r->gres.n;
    m->gres_cores = r->gres.cores;
    m->gres_cores_count = r->gres.n;
}

/* request_again_f: a failure is logged and retried with the node's
 * current state; a refusal ends the registration. */
static bool reg_again (const struct request_result *res, void *arg)
{
    struct reg *r = arg;
    struct msg_node_register m;

    if (res->outcome == REQUEST_REFUSED)
        return false;
    reg_log_failure (r, res->err.text);
    reg_message (r, &m);
    if (request_set_msg (r->req, &m) < 0)
        log_debug ("registration with ctld: resending the previous "
                   "message: %s",
                   strerror (errno));
    free (m.job_ids);
    return true;
}

/* One registration: NODE_REGISTER, answered within REG_ANSWER_TIMEOUT,
 * retried until it is answered. */
static void reg_attempt (struct reg *r)
{
    struct noded *nd = r->nd;
    const struct conf *conf = nd->conf;
    struct msg_node_register m;
    struct request_opts opts;

    noded_ctld_opts (nd, REG_ANSWER_TIMEOUT, &opts);
    opts.retry.interval = r->registered ? reg_interval (conf) : REG_RETRY;
    opts.retry.again = reg_again;
    reg_message (r, &m);
    r->req = request_tcp (nd->loop, conf->control_addr, conf->ctld_port,
                          MSG_NODE_REGISTER, &m, &opts, reg_done_cb, r);
    free (m.job_ids);
    if (!r->req)
        reg_failed (r, strerror (errno));
}

static void reg_next_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    reg_attempt (w->data);
}

struct reg *reg_start (struct noded *nd)
{
    struct reg *r = calloc (1, sizeof (*r));

    if (!r)
        return NULL;
    r->nd = nd;
    if (reg_gres_make (&nd->gres, &r->gres) < 0) {
        free (r);
        return NULL;
    }
    ev_timer_init (&r->next_w, reg_next_cb, 0., 0.);
    r->next_w.data = r;
    reg_attempt (r);
    return r;
}

void reg_now (struct reg *r)
{
    if (!r)
        return;
    if (r->req) { /* one pausing between attempts tries now */
        request_retry_now (r->req);
        return;
    }
    ev_timer_stop (r->nd->loop, &r->next_w);
    ev_timer_set (&r->next_w, 0., 0.);
    ev_timer_start (r->nd->loop, &r->next_w);
}

void reg_destroy (struct reg *r)
{
    int saved = errno;

    if (r) {
        ev_timer_stop (r->nd->loop, &r->next_w);
        request_cancel (r->req);
        reg_gres_free (&r->gres);
        free (r);
    }
    errno = saved;
}
