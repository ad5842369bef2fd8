/* extern.c - the extern step of PrologFlags=Contain; see extern.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "ctld.h"
#include "job/extern.h"
#include "job/job.h"
#include "nodes/heard.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"
#include "job/prolog.h"
#include "job/jobstate.h"
#include "job/own_launch.h"
#include "job/step.h"
#include "job/term.h"
#include "job/jobs.h"

/* The nodes' answer to the extern step's LAUNCH. */
static void extern_launched (struct ctld *ctx,
                             const struct nodecomm_result *res, void *arg)
{
    struct job *j = job_find (ctx, res->job_id);
    char why[PROTO_MAX_NAME];

    (void)arg;
    heard_nodecomm (ctx, res);
    if (!j || j->state != JOB_RUNNING || !step_find (j, STEP_ID_EXTERN))
        return;
    if (res->errnum == 0) {
        log_verbose ("job %u: extern step runs on %s", j->id, j->nodelist);
        (void)jobstate_post (ctx, j, JS_PROLOG_DONE, NULL);
        return;
    }
    if (res->text
        && (!strcmp (res->text, "Prolog error")
            || !strcmp (res->text, "Prolog timed out"))) {
        /* the node that failed reports itself (PROLOG_FAILED) and is
         * drained then: the answer names where it was sent */
        prolog_requeue (ctx, j, res->node, res->text);
        return;
    }
    snprintf (why, sizeof (why), "extern step failed: %s",
              res->text ? res->text : strerror (res->errnum));
    job_end (ctx, j, JOB_FAILED, why);
}

/* The node names of the job, for the LAUNCH slice. */
static char **extern_slice (const struct ctld *ctx, const struct job *j)
{
    char **v = calloc (j->nnodes + 1, sizeof (char *));

    for (size_t k = 0; v && k < j->nnodes; k++)
        v[k] = ctx->nodes[j->nodes[k].node].name; /* borrowed */
    return v;
}

static void extern_launch (struct ctld *ctx, struct job *j,
                           const struct msg_step_created *st)
{
    char *argv[] = { "extern", NULL };
    struct msg_launch m = launch_msg_own (ctx, j, STEP_ID_EXTERN, st);

    m.slice_count = (uint32_t)j->nnodes;
    m.argv = argv;
    m.argv_count = 1;
    m.cwd = "/";
    if (!(m.slice = extern_slice (ctx, j))) {
        job_end (ctx, j, JOB_FAILED, "extern step: out of memory");
        return;
    }
    nodecomm_launch (ctx, j->nodes[0].node, &m,
                     m.budget_ms + OWN_LAUNCH_SLACK_MS, extern_launched, NULL);
    free (m.slice);
}

bool extern_start (struct ctld *ctx, struct job *j)
{
    struct msg_step_created st;
    arbor_error_t err;

    if (!(ctx->conf->prolog_flags & CONF_PROLOG_CONTAIN))
        return false;
    (void)job_set_reason (j, "Prolog");
    if (step_create_extern (ctx, j, &st, &err) < 0) {
        char why[PROTO_MAX_NAME];
        snprintf (why, sizeof (why), "extern step: %s", err.text);
        job_end (ctx, j, JOB_FAILED, why);
        return true;
    }
    extern_launch (ctx, j, &st);
    proto_clear (MSG_STEP_CREATED, &st);
    return true;
}
