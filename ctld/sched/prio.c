/* prio.c - pending jobs' priorities. See prio.h.
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "sched/prio.h"
#include "assoc/policy.h"
#include "words.h"

#define PRIO_BASIC_TOP 0xffff0000u /* priority/basic: this less the id */

/* PriorityPresets, resolved: users by uid. */
struct prio_presets {
    double dflt;
    size_t n;
    struct prio_preset {
        uid_t uid;
        double y;
    } * v;
};

static int preset_cmp (const void *a, const void *b)
{
    uid_t x = ((const struct prio_preset *)a)->uid;
    uid_t y = ((const struct prio_preset *)b)->uid;

    return x < y ? -1 : x > y;
}

/* One "USER:Y" (or "default:Y") of PriorityPresets into 'ps'. */
static int preset_word (char *w, void *arg, arbor_error_t *err)
{
    struct prio_presets *ps = arg;
    char *colon = strrchr (w, ':'), *end;
    struct passwd *pw;
    double y;

    errno = 0;
    if (!colon || colon == w || !colon[1]
        || ((y = strtod (colon + 1, &end)),
            *end || errno || !(y >= 0) || y > 1e6)) {
        errno = EINVAL;
        return errprintf (err,
                          "PriorityPresets: '%s': USER:Y expected, Y a "
                          "number from 0 to 1000000",
                          w);
    }
    *colon = '\0';
    if (!strcmp (w, "default")) {
        ps->dflt = y;
        return 0;
    }
    if (!(pw = getpwnam (w))) {
        errno = EINVAL;
        return errprintf (err, "PriorityPresets: no such user '%s'", w);
    }
    ps->v[ps->n++] = (struct prio_preset){ .uid = pw->pw_uid, .y = y };
    return 0;
}

static int prio_presets_parse (const char *text, struct prio_presets **out,
                               arbor_error_t *err)
{
    struct prio_presets *ps = calloc (1, sizeof (*ps));
    int rc;

    *out = NULL;
    /* a word is at least "u:1": fewer than a half of the text */
    if (!ps
        || !(ps->v =
                 calloc (text ? strlen (text) / 2 + 1 : 1, sizeof (*ps->v)))) {
        free (ps);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    rc = words_each_comma (text, preset_word, ps, err);
    qsort (ps->v, ps->n, sizeof (*ps->v), preset_cmp);
    *out = ps;
    return rc;
}

int prio_configure (struct ctld *ctx, arbor_error_t *err)
{
    const char *type = ctx->conf->priority_type;

    if (type && strcmp (type, PRIO_BASIC) && strcmp (type, PRIO_MULTIFACTOR)
        && strcmp (type, PRIO_WAIT))
        return errprintf (err, "PriorityType=%s: Arbor has %s, %s and %s", type,
                          PRIO_BASIC, PRIO_MULTIFACTOR, PRIO_WAIT);
    prio_fini (ctx);
    return prio_presets_parse (ctx->conf->priority_presets, &ctx->presets, err);
}

void prio_fini (struct ctld *ctx)
{
    if (ctx->presets)
        free (ctx->presets->v);
    free (ctx->presets);
    ctx->presets = NULL;
}

const char *prio_type (const struct ctld *ctx)
{
    const char *type = ctx->conf->priority_type;

    return type ? type : PRIO_BASIC;
}

bool prio_multifactor (const struct ctld *ctx)
{
    return !strcmp (prio_type (ctx), PRIO_MULTIFACTOR);
}

bool prio_wait (const struct ctld *ctx)
{
    return !strcmp (prio_type (ctx), PRIO_WAIT);
}

/* Y of the job's user: its preset, or the default one. */
static double prio_preset (const struct ctld *ctx, uid_t uid)
{
    const struct prio_presets *ps = ctx->presets;
    struct prio_preset key = { .uid = uid }, *p;

    if (!ps)
        return 0;
    p = bsearch (&key, ps->v, ps->n, sizeof (*ps->v), preset_cmp);
    return p ? p->y : ps->dflt;
}

/* weight x num/den, rounded down; num is capped at den. */
static uint32_t weighted (uint32_t weight, uint64_t num, uint64_t den)
{
    if (den == 0)
        return 0;
    if (num > den)
        num = den;
    return (uint32_t)((uint64_t)weight * num / den);
}

void prio_pass_begin (const struct ctld *ctx, time_t now, struct prio_pass *pp)
{
    *pp = (struct prio_pass){ .now = now };
    for (size_t i = 0; i < ctx->nnodes; i++)
        pp->cluster_cpus += ctx->nodes[i].cpus;
    for (size_t i = 0; i < ctx->nparts; i++)
        if (ctx->parts[i].priority_job_factor > pp->largest_job_factor)
            pp->largest_job_factor = ctx->parts[i].priority_job_factor;
    pp->top_qos = policy_qos_top (ctx);
}

/* The job size factor: CPUs asked over the cluster's, or under
 * PriorityFavorSmall its complement (one CPU scores the full weight). */
static uint32_t size_factor (const struct ctld *ctx, const struct prio_pass *pp,
                             const struct job *j)
{
    const struct conf *c = ctx->conf;
    uint64_t total = pp->cluster_cpus;
    uint64_t cpus = select_req_cpus (&j->req);

    if (cpus > total)
        cpus = total;
    if (c->priority_favor_small)
        return weighted (c->priority_weight_job_size, total - cpus + 1, total);
    return weighted (c->priority_weight_job_size, cpus, total);
}

/* sum less the job's nice, in [1, UINT32_MAX]: 0 is a held job's
 * priority in Slurm. */
static uint32_t prio_niced (uint64_t sum, int32_t nice)
{
    if (nice > 0)
        sum = sum > (uint64_t)nice ? sum - (uint64_t)nice : 0;
    else
        sum += (uint64_t) - (int64_t)nice;
    return sum < 1 ? 1 : sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
}

uint32_t prio_milli (double x)
{
    x = x * PRIO_MILLI + 0.5;
    return x >= UINT32_MAX ? UINT32_MAX : x <= 0 ? 0 : (uint32_t)x;
}

/* The moment j's priority is taken at: now while it waits, the moment
 * it started once it has. Only age changes by itself, so a job that
 * started keeps the priority it started with, as Slurm's running jobs
 * keep theirs, however long it runs (and a requeued job, pending again,
 * ages from now on). */
static time_t prio_when (const struct prio_pass *pp, const struct job *j)
{
    return j->state != JOB_PENDING && j->start_time ? j->start_time : pp->now;
}

/* priority/wait: P = Y + k t E, capped at P_th. */
static void prio_job_wait (const struct ctld *ctx, const struct prio_pass *pp,
                           const struct job *j, struct prio *out)
{
    const struct conf *c = ctx->conf;
    double y = prio_preset (ctx, j->uid), minutes = 0, e = 1, p;
    uint64_t cpus = select_req_cpus (&j->req);
    time_t now = prio_when (pp, j);

    if (j->eligible_time && now > j->eligible_time)
        minutes = (double)(now - j->eligible_time) / 60.0;
    if (pp->cluster_cpus)
        e += (double)(cpus < pp->cluster_cpus ? cpus : pp->cluster_cpus)
             / (double)pp->cluster_cpus;
    p = y + c->priority_wait_weight * minutes * e;
    if (c->priority_threshold > 0 && p >= c->priority_threshold)
        p = c->priority_threshold;
    else
        out->under_threshold = c->priority_threshold > 0;
    out->preset = prio_milli (y);
    out->wait = prio_milli (p - y);
    out->priority = prio_niced (prio_milli (p), j->nice);
}

void prio_job (const struct ctld *ctx, const struct prio_pass *pp,
               const struct job *j, struct prio *out)
{
    const struct conf *c = ctx->conf;
    time_t now = prio_when (pp, j);
    uint64_t sum;

    memset (out, 0, sizeof (*out));
    out->nice = j->nice;
    if (j->state == JOB_PENDING && j->held)
        return; /* a held job's priority is 0, as in Slurm */
    if (prio_wait (ctx)) {
        prio_job_wait (ctx, pp, j, out);
        return;
    }
    if (!prio_multifactor (ctx)) {
        out->priority = j->id < PRIO_BASIC_TOP ? PRIO_BASIC_TOP - j->id : 1;
        return;
    }
    if (j->eligible_time && now > j->eligible_time)
        out->age = weighted (c->priority_weight_age,
                             (uint64_t)(now - j->eligible_time),
                             (uint64_t)c->priority_max_age * 60);
    out->job_size = size_factor (ctx, pp, j);
    out->part = weighted (c->priority_weight_partition,
                          ctx->parts[j->part].priority_job_factor,
                          pp->largest_job_factor);
    /* the QOS factor: its Priority over the highest, as Slurm's */
    if (c->priority_weight_qos && pp->top_qos && j->qos && *j->qos)
        out->qos = weighted (c->priority_weight_qos,
                             policy_qos_priority (ctx, j->qos), pp->top_qos);
    sum = (uint64_t)out->age + out->job_size + out->part + out->qos;
    out->priority = prio_niced (sum, j->nice);
}

int prio_order (const struct ctld *ctx, const struct job *a,
                const struct prio *pa, const struct job *b,
                const struct prio *pb)
{
    uint32_t ta = ctx->parts[a->part].priority_tier;
    uint32_t tb = ctx->parts[b->part].priority_tier;

    if (ta != tb)
        return ta > tb ? -1 : 1;
    if (pa->priority != pb->priority)
        return pa->priority > pb->priority ? -1 : 1;
    if (a->seq && b->seq && a->seq != b->seq) /* submission order */
        return a->seq < b->seq ? -1 : 1;
    if (a->submit_time != b->submit_time)
        return a->submit_time < b->submit_time ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}
