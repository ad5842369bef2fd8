/* sign.c - one pending record per STEP_CREATE whose credential is being
 * signed, on a list owned by struct sign.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "authpool.h"
#include "conn.h"
#include "ctld.h"
#include "job.h"
#include "log.h"
#include "nodecomm.h"
#include "sign.h"
#include "step.h"

struct pending {
    struct ctld *ctx;
    struct conn *c;
    uint32_t tag;
    struct msg_step_created out;
    struct auth_job *job;
    struct pending *next;
};

struct sign {
    struct pending *list;
};

struct sign *sign_create (struct ctld *ctx)
{
    (void)ctx;
    return calloc (1, sizeof (struct sign));
}

static void pending_unlink (struct sign *sg, struct pending *p)
{
    for (struct pending **pp = &sg->list; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

static void pending_free (struct pending *p)
{
    auth_job_cancel (p->job);
    proto_clear (MSG_STEP_CREATED, &p->out);
    free (p);
}

/* Give the step back: nobody will hold its credential. */
static void pending_release (struct pending *p, const char *why)
{
    struct job *j = job_find (p->ctx, p->out.job_id);
    struct step *s = j ? step_find (j, p->out.step_id) : NULL;

    if (s)
        (void)step_complete (j, s, NULL, p->ctx);
    log_info ("step %u.%u dropped: %s", p->out.job_id, p->out.step_id, why);
}

static void signed_cb (struct auth_result *res, void *arg)
{
    struct pending *p = arg;
    struct ctld *ctx = p->ctx;
    struct job *j = job_find (ctx, p->out.job_id);

    p->job = NULL;
    pending_unlink (ctx->sign, p);
    if (res->errnum) {
        conn_send_rc (p->c, p->tag, EPERM, "cannot sign the credential: %s",
                      res->err.text);
        pending_release (p, "its credential could not be signed");
    } else if (!j || !step_find (j, p->out.step_id)) {
        conn_send_rc (p->c, p->tag, ESRCH, "job %u ended", p->out.job_id);
    } else {
        p->out.cred = res->token;
        res->token = NULL;
        log_info ("step %u.%u created on %s (%u tasks)", p->out.job_id,
                  p->out.step_id, p->out.nodelist,
                  step_find (j, p->out.step_id)->ntasks);
        if (conn_send (p->c, MSG_STEP_CREATED, p->tag, FRAME_F_RESPONSE,
                       &p->out)
            < 0) {
            conn_send_rc (p->c, p->tag, errno, "cannot answer: %s",
                          strerror (errno));
            pending_release (p, "its requester was not answered");
        }
    }
    pending_free (p);
}

int sign_step (struct ctld *ctx, struct conn *c, uint32_t tag,
               struct msg_step_created *out, const char *claims, size_t len,
               int ttl)
{
    struct pending *p = calloc (1, sizeof (*p));

    if (!p || !ctx->pool) {
        free (p);
        errno = p ? EIO : ENOMEM;
        return -1;
    }
    p->ctx = ctx;
    p->c = c;
    p->tag = tag;
    p->out = *out;
    memset (out, 0, sizeof (*out));
    p->job = auth_pool_encode (ctx->pool, claims, len, ttl, AUTH_UID_ANY,
                               signed_cb, p);
    if (!p->job) {
        int e = errno;
        *out = p->out; /* the caller still owns it */
        free (p);
        errno = e;
        return -1;
    }
    p->next = ctx->sign->list;
    ctx->sign->list = p;
    return 0;
}

void sign_conn_closed (struct ctld *ctx, struct conn *c)
{
    struct pending **pp = &ctx->sign->list;

    while (*pp) {
        struct pending *p = *pp;
        if (p->c != c) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        pending_release (p, "its requester went away");
        pending_free (p);
    }
}

/* ---- the controller's own steps ------------------------------------------ */

struct sign_own {
    struct ctld *ctx;
    struct job *j;
    struct msg_step_created st;
    struct auth_job *job;
    struct sign_own **slot;
    sign_own_f cb;
};

void sign_own_cancel (struct sign_own *s)
{
    if (!s)
        return;
    auth_job_cancel (s->job);
    if (s->slot)
        *s->slot = NULL;
    proto_clear (MSG_STEP_CREATED, &s->st);
    free (s);
}

static void sign_own_cb (struct auth_result *res, void *arg)
{
    struct sign_own *s = arg;

    s->job = NULL; /* done: nothing to cancel */
    *s->slot = NULL;
    s->slot = NULL;
    s->cb (s->ctx, s->j, res->errnum ? NULL : res->token,
           res->errnum ? res->err.text : NULL, &s->st);
    sign_own_cancel (s);
}

int sign_own_step (struct ctld *ctx, struct job *j, struct msg_step_created *st,
                   const struct step_claims *claims, struct sign_own **slot,
                   sign_own_f cb)
{
    struct sign_own *s = calloc (1, sizeof (*s));

    if (!s || !ctx->pool) {
        free (s);
        proto_clear (MSG_STEP_CREATED, st);
        errno = s ? EIO : ENOMEM;
        return -1;
    }
    *s = (struct sign_own){ ctx, j, *st, NULL, slot, cb };
    memset (st, 0, sizeof (*st));
    s->job = auth_pool_encode (ctx->pool, claims->buf, claims->len, claims->ttl,
                               AUTH_UID_ANY, sign_own_cb, s);
    if (!s->job) {
        int e = errno;
        s->slot = NULL;
        sign_own_cancel (s);
        errno = e;
        return -1;
    }
    *slot = s;
    return 0;
}

struct msg_launch launch_msg_own (const struct ctld *ctx, const struct job *j,
                                  uint32_t step_id, const char *cred,
                                  const struct msg_step_created *st)
{
    return (struct msg_launch){
        .cred = (char *)cred,
        .job_id = j->id,
        .step_id = step_id,
        .budget_ms = launch_budget_ms (ctx->conf),
        .io_host = "",
        .step_nodelist = st->nodelist,
        .tasks = st->tasks,
        .tasks_count = st->tasks_count,
        .cpus = st->cpus,
        .cpus_count = st->cpus_count,
        .job_nodelist = j->nodelist,
        .cpus_per_task = j->req.cpus_per_task,
        .stdin_task = STDIN_NONE,
        .job_name = j->name,
        .mpi = "none",
    };
}

void sign_destroy (struct sign *sg)
{
    if (!sg)
        return;
    while (sg->list) {
        struct pending *p = sg->list;
        sg->list = p->next;
        pending_free (p);
    }
    free (sg);
}
