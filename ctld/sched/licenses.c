/* licenses.c - the license pool and what jobs take from it. See
 * licenses.h for the rules.
 *
 * The pool is a short array sorted by name (a cluster has tens of
 * licenses, a job names a few): lookups are binary searches, and every
 * change of what is held is an add or a subtract on 'used', so the
 * scheduler's tests cost no walk over the jobs. Only a reconfigure counts
 * again from the jobs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "job/job.h"
#include "sched/licenses.h"
#include "licspec.h"
#include "log.h"
#include "sched/sched.h"
#include "sched/sched_wake.h"

/* ---- the pool -------------------------------------------------------------
 */

static int lic_cmp (const void *a, const void *b)
{
    return strcmp (((const struct lic *)a)->name,
                   ((const struct lic *)b)->name);
}

long licenses_find (const struct licenses *l, const char *name)
{
    struct lic key = { .name = (char *)name };
    const struct lic *hit;

    if (!l || !l->n)
        return -1;
    hit = bsearch (&key, l->v, l->n, sizeof (*l->v), lic_cmp);
    return hit ? hit - l->v : -1;
}

void licenses_destroy (struct licenses *l)
{
    int saved = errno;

    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free (l->v[i].name);
    free (l->v);
    free (l);
    errno = saved;
}

/* The entry of 'name', added with Total=0 when the pool lacks it (a job
 * holds a license no longer configured). NULL with errno ENOMEM. */
static struct lic *lic_get (struct licenses *l, const char *name)
{
    long i = licenses_find (l, name);
    struct lic *v;

    if (i >= 0)
        return &l->v[i];
    if (!(v = realloc (l->v, (l->n + 1) * sizeof (*v))))
        return NULL;
    l->v = v;
    if (!(v[l->n].name = strdup (name)))
        return NULL;
    v[l->n].total = 0;
    v[l->n].used = 0;
    v[l->n].claimed = false;
    l->n++;
    if (l->n) /* qsort wants an array, even of none */
        qsort (l->v, l->n, sizeof (*l->v), lic_cmp);
    return &l->v[licenses_find (l, name)];
}

/* A pool from Licenses= text (already checked by the conf parser), with
 * nothing held. NULL with errno and err. */
static struct licenses *pool_parse (const char *text, arbor_error_t *err)
{
    struct licenses *l = calloc (1, sizeof (*l));
    struct licspec s;

    if (!l) {
        errprintf (err, "out of memory");
        return NULL;
    }
    if (licspec_parse (text, LICSPEC_CONF, &s, err) < 0) {
        free (l);
        return NULL;
    }
    if (s.n && !(l->v = calloc (s.n, sizeof (*l->v)))) {
        licspec_clear (&s);
        free (l);
        errno = ENOMEM;
        errprintf (err, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < s.n; i++) {
        l->v[i].name = s.items[i].name; /* taken */
        l->v[i].total = s.items[i].count;
        s.items[i].name = NULL;
    }
    l->n = s.n;
    licspec_clear (&s);
    if (l->n) /* qsort wants an array, even of none */
        qsort (l->v, l->n, sizeof (*l->v), lic_cmp);
    return l;
}

/* Add what 'held' holds to the pool: all of it, or (-1, errno ENOMEM)
 * nothing. */
static int pool_hold (struct licenses *l, const struct licspec *held)
{
    for (size_t i = 0; i < held->n; i++)
        if (!lic_get (l, held->items[i].name))
            return -1;
    for (size_t i = 0; i < held->n; i++)
        l->v[licenses_find (l, held->items[i].name)].used +=
            held->items[i].count;
    return 0;
}

int licenses_configure (struct ctld *ctx, arbor_error_t *err)
{
    struct licenses *l = pool_parse (ctx->conf->licenses, err);

    if (!l)
        return -1;
    licenses_destroy (ctx->licenses);
    ctx->licenses = l;
    return 0;
}

/* Log the pool as it now is. */
static void licenses_log (const struct licenses *l)
{
    for (size_t i = 0; i < l->n; i++)
        log_info ("license %s: total %u, used %llu", l->v[i].name,
                  l->v[i].total, (unsigned long long)l->v[i].used);
}

int licenses_reconfigure (struct ctld *ctx, arbor_error_t *err)
{
    struct conf *c = conf_load (ctx->conf->path, err);
    struct licenses *l;

    if (!c)
        return -1;
    if (!(l = pool_parse (c->licenses, err))) {
        conf_destroy (c);
        return -1;
    }
    for (const struct job *j = ctx->jobs; j; j = j->next)
        if (pool_hold (l, &j->lic_held) < 0) {
            licenses_destroy (l);
            conf_destroy (c);
            return errprintf (err, "out of memory");
        }
    licenses_destroy (ctx->licenses);
    ctx->licenses = l;
    free (ctx->conf->licenses);
    ctx->conf->licenses = c->licenses; /* taken: show config says it */
    c->licenses = NULL;
    conf_destroy (c);
    licenses_log (l);
    return 0;
}

/* ---- a job's licenses --------------------------------------------------
 */

int licenses_job_init (struct job *j, const struct msg_job_alloc *req,
                       arbor_error_t *err)
{
    arbor_error_t e;

    if (licspec_parse (req->licenses, LICSPEC_JOB, &j->lic, &e) == 0)
        return 0;
    if (errno == ENOMEM)
        return errprintf (err, "out of memory");
    return errprintf (err, "Invalid license specification: %s", e.text);
}

int licenses_check (const struct ctld *ctx, const struct job *j,
                    arbor_error_t *err)
{
    for (size_t i = 0; i < j->lic.n; i++) {
        const struct licspec_item *it = &j->lic.items[i];
        long k = licenses_find (ctx->licenses, it->name);
        errno = EINVAL;
        if (k < 0)
            return errprintf (err,
                              "Invalid license specification: license '%s' "
                              "is not configured (arbor control show "
                              "licenses)",
                              it->name);
        if (it->count > ctx->licenses->v[k].total)
            return errprintf (err,
                              "Invalid license specification: %u of "
                              "license '%s' asked, the cluster has %u",
                              it->count, it->name, ctx->licenses->v[k].total);
    }
    return 0;
}

/* Are the licenses of j's choice k free now (and, with 'claims', wanted
 * by no job before j in this pass)? */
static bool choice_free (const struct licenses *l, const struct licspec *s,
                         size_t k, bool claims)
{
    size_t first, count;

    licspec_choice (s, k, &first, &count);
    for (size_t i = first; i < first + count; i++) {
        long x = licenses_find (l, s->items[i].name);
        if (x < 0 || l->v[x].used + s->items[i].count > l->v[x].total
            || (claims && l->v[x].claimed))
            return false;
    }
    return true;
}

void licenses_pass_begin (struct ctld *ctx)
{
    for (size_t i = 0; ctx->licenses && i < ctx->licenses->n; i++)
        ctx->licenses->v[i].claimed = false;
}

bool licenses_admit (struct ctld *ctx, struct job *j)
{
    struct licenses *l = ctx->licenses;

    for (size_t k = 0; k < licspec_choices (&j->lic); k++)
        if (choice_free (l, &j->lic, k, true))
            return true;
    if (j->lic.n == 0)
        return true;
    for (size_t i = 0; i < j->lic.n; i++) {
        long x = licenses_find (l, j->lic.items[i].name);
        if (x >= 0)
            l->v[x].claimed = true;
    }
    (void)job_set_reason (j, "Licenses");
    return false;
}

bool licenses_free (const struct ctld *ctx, const struct job *j)
{
    for (size_t k = 0; k < licspec_choices (&j->lic); k++)
        if (choice_free (ctx->licenses, &j->lic, k, false))
            return true;
    return j->lic.n == 0;
}

int licenses_take (struct ctld *ctx, struct job *j)
{
    size_t first, count;
    struct licspec pick;

    if (j->lic.n == 0)
        return 0;
    for (size_t k = 0; k < licspec_choices (&j->lic); k++) {
        if (!choice_free (ctx->licenses, &j->lic, k, false))
            continue;
        licspec_choice (&j->lic, k, &first, &count);
        pick = (struct licspec){ .items = j->lic.items + first, .n = count };
        if (licspec_copy (&j->lic_held, &pick) < 0)
            return -1;
        for (size_t i = 0; i < count; i++) {
            long x = licenses_find (ctx->licenses, pick.items[i].name);
            ctx->licenses->v[x].used += pick.items[i].count;
        }
        return 0;
    }
    errno = EAGAIN;
    return -1;
}

/* Forget an entry no longer configured once nothing of it is held. */
static void lic_drop_unused (struct licenses *l, long x)
{
    if (l->v[x].total || l->v[x].used)
        return;
    free (l->v[x].name);
    memmove (&l->v[x], &l->v[x + 1], (l->n - (size_t)x - 1) * sizeof (*l->v));
    l->n--;
}

void licenses_node_released (struct ctld *ctx, struct job *j)
{
    struct licenses *l = ctx->licenses;

    if (j->lic_held.n == 0)
        return;
    for (size_t k = 0; k < j->nnodes; k++)
        if (!j->nodes[k].released)
            return;
    for (size_t i = 0; i < j->lic_held.n; i++) {
        long x = licenses_find (l, j->lic_held.items[i].name);
        uint32_t n = j->lic_held.items[i].count;
        if (x < 0)
            continue;
        l->v[x].used -= n < l->v[x].used ? n : l->v[x].used;
        lic_drop_unused (l, x);
    }
    licspec_clear (&j->lic_held);
    sched_request (ctx); /* what waits for them may start */
}

void licenses_restore (struct ctld *ctx, struct job *j, const char *held)
{
    bool holds = false;
    arbor_error_t err;
    struct licspec s = { 0 };

    for (size_t k = 0; k < j->nnodes; k++)
        holds = holds || !j->nodes[k].released;
    if (!holds || !held || !*held)
        return;
    if (licspec_parse (held, LICSPEC_JOB, &s, &err) < 0
        || (pool_hold (ctx->licenses, &s) < 0
            && errprintf (&err, "out of memory"))) {
        log_err ("job %u: its licenses '%s' are not counted: %s", j->id, held,
                 err.text);
        licspec_clear (&s);
        return;
    }
    licspec_clear (&j->lic_held);
    j->lic_held = s;
    log_verbose ("job %u holds licenses %s again", j->id, held);
}

char *licenses_held_text (const struct job *j)
{
    return licspec_text (&j->lic_held);
}

char *licenses_shown (const struct job *j)
{
    return licspec_text (j->lic_held.n ? &j->lic_held : &j->lic);
}

/* ---- LIC_INFO ------------------------------------------------------------
 */

int licenses_info (const struct ctld *ctx, const struct msg_lic_info *m,
                   struct msg_lic_info_reply *r, arbor_error_t *err)
{
    const struct licenses *l = ctx->licenses;
    size_t first = 0, n = l ? l->n : 0;
    long x;

    memset (r, 0, sizeof (*r));
    if (m->name && *m->name) {
        if ((x = licenses_find (l, m->name)) < 0) {
            errno = ENOENT;
            return errprintf (err, "License %s not found", m->name);
        }
        first = (size_t)x;
        n = 1;
    }
    r->names = calloc (n + 1, sizeof (*r->names));
    r->totals = calloc (n + 1, sizeof (*r->totals));
    r->used = calloc (n + 1, sizeof (*r->used));
    r->names_count = r->totals_count = r->used_count = (uint32_t)n;
    for (size_t i = 0; r->names && r->totals && r->used && i < n; i++) {
        const struct lic *e = &l->v[first + i];
        if (!(r->names[i] = strdup (e->name)))
            break;
        r->totals[i] = e->total;
        r->used[i] = e->used > UINT32_MAX ? UINT32_MAX : (uint32_t)e->used;
    }
    if (!r->names || !r->totals || !r->used || (n && !r->names[n - 1])) {
        proto_clear (MSG_LIC_INFO_REPLY, r);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}

void licenses_rpc_cb (struct conn *c, const struct frame *f, void *msg,
                      void *arg)
{
    struct msg_lic_info_reply r;
    arbor_error_t err;

    if (licenses_info (arg, msg, &r, &err) < 0) {
        (void)conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        return;
    }
    if (conn_send (c, MSG_LIC_INFO_REPLY, f->matchtag, FRAME_F_RESPONSE, &r)
        < 0)
        log_err ("LIC_INFO_REPLY to %s: %s", conn_peer (c), strerror (errno));
    proto_clear (MSG_LIC_INFO_REPLY, &r);
}
