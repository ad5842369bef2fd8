/* prio_info.c - PRIO_INFO (arbor prio, sprio): the pending jobs that may
 * start, in the order the scheduler takes them, with their priority and
 * its weighted factors as of now.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "job/job.h"
#include "nodes/part.h"
#include "sched/prio.h"
#include "sched/prio_info.h"

#define PRIO_INFO_MAX_LIST 1000 /* jobs or users one request may name */

struct prio_row {
    const struct job *j;
    struct prio prio;
};

static bool u32_in (const uint32_t *v, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

static bool prio_wanted (const struct ctld *ctx, const struct msg_prio_info *m,
                         const struct job *j)
{
    if (j->state != JOB_PENDING)
        return false;
    if (m->job_ids_count && !u32_in (m->job_ids, m->job_ids_count, j->id))
        return false;
    if (m->uids_count && !u32_in (m->uids, m->uids_count, (uint32_t)j->uid))
        return false;
    return !m->partition || !m->partition[0]
           || !strcmp (m->partition, ctx->parts[j->part].name);
}

static int row_cmp (const void *pa, const void *pb, void *arg)
{
    const struct prio_row *a = pa, *b = pb;

    return prio_order (arg, a->j, &a->prio, b->j, &b->prio);
}

/* The wanted jobs in scheduling order. NULL on ENOMEM. */
static struct prio_row *prio_rows (struct ctld *ctx,
                                   const struct msg_prio_info *m, size_t *n)
{
    struct prio_row *v = calloc (ctx->njobs + 1, sizeof (*v));
    struct prio_pass pp;
    size_t k = 0;

    if (!v)
        return NULL;
    prio_pass_begin (ctx, ctld_now (ctx), &pp);
    for (const struct job *j = ctx->jobs; j; j = j->next)
        if (prio_wanted (ctx, m, j)) {
            v[k].j = j;
            prio_job (ctx, &pp, j, &v[k++].prio);
        }
    qsort_r (v, k, sizeof (*v), row_cmp, ctx);
    *n = k;
    return v;
}

#define LIST(name, type) (r->name = calloc (n + 1, sizeof (type))) == NULL

static int reply_fill (struct ctld *ctx, const struct prio_row *v, size_t n,
                       struct msg_prio_info_reply *r)
{
    if (LIST (job_ids, uint32_t) || LIST (users, char *)
        || LIST (partitions, char *) || LIST (priorities, uint32_t)
        || LIST (age, uint32_t) || LIST (job_size, uint32_t)
        || LIST (part, uint32_t) || LIST (nice, int32_t)
        || LIST (tiers, uint32_t) || LIST (preset, uint32_t)
        || LIST (wait, uint32_t) || LIST (reserve, uint32_t)
        || LIST (qos, uint32_t) || LIST (qos_names, char *))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct part *p = &ctx->parts[v[i].j->part];
        r->job_ids[i] = v[i].j->id;
        r->users[i] = v[i].j->user; /* borrowed */
        r->partitions[i] = p->name;
        r->priorities[i] = v[i].prio.priority;
        r->age[i] = v[i].prio.age;
        r->job_size[i] = v[i].prio.job_size;
        r->part[i] = v[i].prio.part;
        r->nice[i] = v[i].prio.nice;
        r->tiers[i] = p->priority_tier;
        r->preset[i] = v[i].prio.preset;
        r->wait[i] = v[i].prio.wait;
        r->reserve[i] = !v[i].prio.under_threshold;
        r->qos[i] = v[i].prio.qos;
        r->qos_names[i] = *v[i].j->qos ? v[i].j->qos : "normal"; /* borrowed */
    }
    r->job_ids_count = r->users_count = r->partitions_count =
        r->priorities_count = r->age_count = r->job_size_count = r->part_count =
            r->nice_count = r->tiers_count = r->preset_count = r->wait_count =
                r->reserve_count = r->qos_count = r->qos_names_count =
                    (uint32_t)n;
    return 0;
}

static void reply_free (struct msg_prio_info_reply *r)
{
    free (r->job_ids);
    free (r->users);
    free (r->partitions);
    free (r->priorities);
    free (r->age);
    free (r->job_size);
    free (r->part);
    free (r->nice);
    free (r->tiers);
    free (r->preset);
    free (r->wait);
    free (r->reserve);
    free (r->qos);
    free (r->qos_names);
}

void prio_serve_info (struct ctld *ctx, struct conn *c, const struct frame *f,
                      const struct msg_prio_info *m)
{
    const struct conf *cf = ctx->conf;
    struct msg_prio_info_reply r = {
        .type = (char *)prio_type (ctx),
        .threshold = prio_milli (cf->priority_threshold),
        .weight_age = cf->priority_weight_age,
        .weight_job_size = cf->priority_weight_job_size,
        .weight_partition = cf->priority_weight_partition,
        .weight_qos = cf->priority_weight_qos,
        .max_age = cf->priority_max_age,
    };
    struct prio_row *rows = NULL;
    size_t n = 0;

    if (m->job_ids_count > PRIO_INFO_MAX_LIST
        || m->uids_count > PRIO_INFO_MAX_LIST) {
        conn_send_rc (c, f->matchtag, EINVAL,
                      "at most %d jobs or users may be named",
                      PRIO_INFO_MAX_LIST);
        return;
    }
    if (!(rows = prio_rows (ctx, m, &n)) || reply_fill (ctx, rows, n, &r) < 0)
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
    else if (conn_send (c, MSG_PRIO_INFO_REPLY, f->matchtag, FRAME_F_RESPONSE,
                        &r)
             < 0)
        conn_send_rc (c, f->matchtag, errno, "cannot answer: %s",
                      strerror (errno));
    reply_free (&r);
    free (rows);
}
