/* persist.c - the controller's records written to and read back from its
 * state database. See persist.h; the record layouts are proto_msgs.def's
 * JOB_REC, STEP_REC, BATCH_REC and NODE_REC (encoded with proto_encode,
 * so that a damaged record is refused by the same bounded decoder as a
 * hostile frame).
 *
 * Keys: "node/NAME", "batch/ID" (the id of the job that submitted the
 * script), "job/ID", "step/JOB/STEP". Kinds load in that order, so that a
 * job finds its script and a step its job. A job's order is its place in
 * the submit order (j->seq).
 *
 * A marked job is written by the ev_prepare watcher, just before the loop
 * waits, with its steps (they are rewritten whole: a job has few), and
 * its script the first time one of its array's tasks is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/batch.h"
#include "conf.h"
#include "ctld.h"
#include "job/cores.h"
#include "job/events.h"
#include "job/job.h"
#include "job/job_rec.h"
#include "sched/licenses.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/part.h"
#include "state/persist.h"
#include "state/persist_private.h"
#include "proto.h"
#include "sched/sched.h"
#include "job/step.h"
#include "job/term.h"
#include "sched/sched_wake.h"

/* ---- writing ---------------------------------------------------------- */

static void persist_put (struct persist *p, const char *key, int kind,
                         uint64_t order, int type, const void *rec)
{
    char *buf = NULL;
    size_t len = 0;

    if (proto_encode (type, rec, &buf, &len) < 0
        || store_put (p->store, key, kind, order, buf, len) < 0)
        log_err ("state: cannot save %s: %s", key, strerror (errno));
    free (buf);
}

static void persist_batch (struct persist *p, const struct job *j)
{
    const struct batch *b = j->batch;
    struct msg_batch_rec r = {
        .id = b->store_id,
        .script = b->script,
        .script_len = (uint32_t)b->script_len,
        .argv = b->argv,
        .argv_count = (uint32_t)b->argc,
        .env = b->env,
        .env_count = (uint32_t)b->nenv,
        .std_out = b->std_out,
        .std_err = b->std_err,
        .std_in = b->std_in,
        .append = b->append,
        .submit_host = b->submit_host,
        .ntasks_asked = b->ntasks_asked,
    };
    char key[32];

    snprintf (key, sizeof (key), "batch/%u", b->store_id);
    persist_put (p, key, KIND_BATCH, b->store_id, MSG_BATCH_REC, &r);
}

static void persist_step (struct persist *p, const struct job *j,
                          const struct step *s)
{
    struct msg_step_rec r = {
        .job_id = j->id,
        .id = s->id,
        .name = s->name,
        .tasks = s->tasks,
        .tasks_count = (uint32_t)s->nnodes,
        .cpus = s->cpus,
        .cpus_count = (uint32_t)s->nnodes,
        .mem_mb = s->mem_mb,
        .ntasks = s->ntasks,
        .nodelist = s->nodelist,
        .start_time = (uint64_t)s->start_time,
        .shadow = s->shadow,
    };
    uint32_t *jnodes = calloc (s->nnodes + 1, sizeof (*jnodes));
    uint32_t *done = calloc (s->nnodes + 1, sizeof (*done));
    char **cores = calloc (s->nnodes + 1, sizeof (*cores));
    char key[48];
    bool ok = jnodes && done && cores;

    for (size_t k = 0; ok && k < s->nnodes; k++) {
        jnodes[k] = (uint32_t)s->jnodes[k];
        done[k] = s->done[k];
        ok = (cores[k] =
                  cores_ranged (s->cores[k], j->nodes[s->jnodes[k]].ncores))
             != NULL;
    }
    if (ok) {
        r.jnodes = jnodes;
        r.jnodes_count = r.done_count = r.cores_count = (uint32_t)s->nnodes;
        r.done = done;
        r.cores = cores;
        snprintf (key, sizeof (key), "step/%u/%u", j->id, s->id);
        persist_put (p, key, KIND_STEP, s->id, MSG_STEP_REC, &r);
    } else
        log_err ("state: cannot save step %u.%u: out of memory", j->id, s->id);
    for (size_t k = 0; cores && k < s->nnodes; k++)
        free (cores[k]);
    free (cores);
    free (jnodes);
    free (done);
}

static void persist_write_job (struct persist *p, struct job *j)
{
    struct msg_job_rec r;
    char key[32], prefix[32];

    j->dirty = false;
    if (j->batch && !j->batch->stored) {
        if (!j->batch->store_id)
            j->batch->store_id = j->array_job_id ? j->array_job_id : j->id;
        persist_batch (p, j);
        j->batch->stored = true;
    }
    if (job_rec_fill (p->ctx, j, JOB_REC_STORE, &r) < 0)
        log_err ("state: cannot save job %u: out of memory", j->id);
    else {
        snprintf (key, sizeof (key), "job/%u", j->id);
        persist_put (p, key, KIND_JOB, j->seq, MSG_JOB_REC, &r);
        job_rec_release (&r);
    }
    snprintf (prefix, sizeof (prefix), "step/%u/", j->id);
    if (store_del_prefix (p->store, prefix) < 0)
        log_err ("state: cannot save job %u's steps: out of memory", j->id);
    for (const struct step *s = j->steps; s; s = s->next)
        persist_step (p, j, s);
}

/* A job's last record (ended, done completing): on disk at once, with
 * what is queued before it, not with the next group (store.h): its end is
 * what accounting and a restarted controller must not lose. */
static void persist_flush (struct persist *p)
{
    bool over = false;

    for (size_t i = 0; i < p->ndirty; i++)
        if (p->dirty[i]->dirty) {
            over = over || job_is_over (p->dirty[i]);
            persist_write_job (p, p->dirty[i]);
        }
    p->ndirty = 0;
    if (p->dirty_lost)
        for (struct job *j = p->ctx->jobs; j; j = j->next)
            if (j->dirty) {
                over = over || job_is_over (j);
                persist_write_job (p, j);
            }
    p->dirty_lost = false;
    if (over)
        store_commit_soon (p->store);
}

static void persist_prepare_cb (struct ev_loop *loop, ev_prepare *w,
                                int revents)
{
    persist_flush (w->data);
}

void persist_job (const struct ctld *ctx, struct job *j)
{
    struct persist *p = ctx->persist;

    if (!p || !j)
        return;
    if (!j->seq)
        j->seq = p->next_seq++;
    if (j->dirty)
        return;
    j->dirty = true;
    if (p->ndirty == p->adirty) {
        size_t n = p->adirty ? p->adirty * 2 : 64;
        struct job **d = realloc (p->dirty, n * sizeof (*d));
        if (!d) {
            p->dirty_lost = true; /* the flush walks every job */
            return;
        }
        p->dirty = d;
        p->adirty = n;
    }
    p->dirty[p->ndirty++] = j;
}

void persist_job_gone (const struct ctld *ctx, struct job *j)
{
    struct persist *p = ctx->persist;
    char key[32];

    if (!p || !j->seq)
        return;   /* never written */
    if (j->dirty) /* it must not be written, nor looked at, any more */
        for (size_t i = 0; i < p->ndirty; i++)
            if (p->dirty[i] == j) {
                p->dirty[i] = p->dirty[--p->ndirty];
                break;
            }
    j->dirty = false;
    snprintf (key, sizeof (key), "job/%u", j->id);
    if (store_del (p->store, key) < 0)
        log_err ("state: cannot delete %s: out of memory", key);
    snprintf (key, sizeof (key), "step/%u/", j->id);
    (void)store_del_prefix (p->store, key);
    if (j->batch && j->batch->stored && j->batch->refs == 1) {
        snprintf (key, sizeof (key), "batch/%u", j->batch->store_id);
        (void)store_del (p->store, key);
    }
}

void persist_node (const struct ctld *ctx, size_t node)
{
    struct persist *p = ctx->persist;
    const struct node *n = &ctx->nodes[node];
    struct msg_node_rec r = {
        .name = n->name,
        .drain = n->drain,
        .admin_down = n->admin_down,
        .auto_drain = n->auto_drain,
        .reason = n->reason,
        .reason_uid = n->reason_uid,
        .reason_time = (uint64_t)n->reason_time,
        .features_set = n->features_set,
        .features = n->features_set ? n->features : NULL,
    };
    char key[PROTO_MAX_NAME + 8];

    if (!p)
        return;
    snprintf (key, sizeof (key), "node/%s", n->name);
    persist_put (p, key, KIND_NODE, node, MSG_NODE_REC, &r);
    /* A decision about a node (a drain, DOWN, their reasons) is rare and
     * an administrator's: on disk at once, not with the next group. */
    store_commit_soon (p->store);
}

int persist_then (struct ctld *ctx, store_done_f cb, void *arg)
{
    struct persist *p = ctx->persist;

    if (!p) {
        cb (0, "", arg);
        return 0;
    }
    persist_flush (p);
    return store_sync (p->store, cb, arg);
}

int persist_writable (const struct ctld *ctx, char *err, size_t size)
{
    const struct persist *p = ctx->persist;

    return p ? store_writable (p->store, err, size) : 0;
}

/* The store is writable again (the jobs it held back may start now) or
 * not any more (the writer logged why). */
static void persist_health_cb (bool writable, const char *err, void *arg)
{
    struct persist *p = arg;

    if (writable)
        sched_request (p->ctx);
}

int persist_request (const struct msg_job_alloc *req, char **buf, size_t *len)
{
    struct msg_job_alloc r = *req;

    /* A batch job's script and its files are its BATCH_REC's. */
    r.script = NULL;
    r.script_len = 0;
    r.script_argv = r.env = NULL;
    r.script_argv_count = r.env_count = 0;
    r.std_out = r.std_err = r.std_in = r.submit_host = NULL;
    r.open_append = false;
    return proto_encode (MSG_JOB_ALLOC, &r, buf, len);
}

void persist_begin (struct ctld *ctx, struct persist *p)
{
    store_on_health (p->store, persist_health_cb, p);
    ev_prepare_init (&p->prepare_w, persist_prepare_cb);
    p->prepare_w.data = p;
    /* after the scheduling pass (sched.c's prepare watcher): what it
     * changed is written in the same iteration */
    ev_set_priority (&p->prepare_w, EV_MINPRI);
    ev_prepare_start (ctx->loop, &p->prepare_w);
    ev_unref (ctx->loop); /* it does not keep the loop running */
    ctx->persist = p;
}

void persist_close (struct ctld *ctx)
{
    struct persist *p = ctx->persist;

    if (!p)
        return;
    persist_flush (p);
    ev_ref (ctx->loop);
    ev_prepare_stop (ctx->loop, &p->prepare_w);
    store_close (p->store); /* commits what is queued */
    free (p->dirty);
    ctx->persist = NULL;
    free (p);
}
