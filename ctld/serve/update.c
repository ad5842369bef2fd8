/* update.c - NODE_UPDATE: an administrator changes node states, as
 * "scontrol update NodeName=LIST State=STATE Reason=TEXT" does.
 *
 *   DOWN    the nodes go DOWN with the reason until RESUME; every job
 *           running on one of them ends NODE_FAIL through job_end(), the
 *           one termination path (term.c): JOB_TERMINATE goes to all of
 *           the job's nodes, the downed one included (its noded still
 *           answers and must empty the containers and run the Epilog).
 *   DRAIN   no new jobs; running ones go on (DRAINING, then DRAIN).
 *   RESUME  lifts DOWN and DRAIN and clears the reason. A node that is
 *           DOWN because it stopped responding is not made usable by
 *           this: it comes back when its noded registers again.
 *
 * State words are matched without regard to case; IDLE and UNDRAIN are
 * taken as RESUME (arbor keeps no separate DOWN and DRAIN flags for them
 * to lift one at a time). DOWN and DRAIN need a reason, as in Slurm, so
 * that "arbor info -R" can always say why a node is out. Everything is
 * checked before anything changes: an update applies to every named node
 * or, on a bad node name, state or missing reason, to none. The reason
 * is recorded with the requester's uid and the time (sinfo -R's USER and
 * TIMESTAMP).
 *
 * AvailableFeatures= (or ActiveFeatures=, the same here) sets the nodes'
 * features (node_features.h), with or without a state; they are kept in
 * the node's state record, so a restart keeps them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld.h"
#include "error.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/node_features.h"
#include "sched/sched_wake.h"
#include "state/persist.h"
#include "proto.h"
#include "job/term.h"
#include "serve/update.h"

enum update_state {
    UPDATE_DOWN,
    UPDATE_DRAIN,
    UPDATE_RESUME,
};

static const struct {
    const char *name;
    enum update_state state;
} update_words[] = {
    { "DOWN", UPDATE_DOWN },      { "DRAIN", UPDATE_DRAIN },
    { "RESUME", UPDATE_RESUME },  { "IDLE", UPDATE_RESUME },
    { "UNDRAIN", UPDATE_RESUME },
};

#define UPDATE_VALID "DOWN, DRAIN, RESUME (or IDLE, UNDRAIN)"

static int update_state_parse (const char *word, enum update_state *st,
                               arbor_error_t *err)
{
    for (size_t i = 0; i < sizeof (update_words) / sizeof (*update_words);
         i++) {
        if (strcasecmp (word, update_words[i].name) == 0) {
            *st = update_words[i].state;
            return 0;
        }
    }
    errno = EINVAL;
    if (!word[0])
        return errprintf (err, "no node state given; valid states: %s",
                          UPDATE_VALID);
    return errprintf (err, "invalid node state '%s'; valid states: %s", word,
                      UPDATE_VALID);
}

/* The nodes of 'expr', which must name at least one configured node. */
static size_t *update_nodes (const struct ctld *ctx, const char *expr,
                             size_t *n, arbor_error_t *err)
{
    size_t *idx;

    if (!expr || !expr[0]) {
        errno = EINVAL;
        errprintf (err, "no nodes named (NodeName=LIST)");
        return NULL;
    }
    if (!(idx = nodes_select (ctx, expr, n, err))) {
        if (errno != ENOMEM)
            errno = EINVAL;
        return NULL;
    }
    return idx;
}

/* DOWN: the node first, so that job_end sees it DOWN (and, its noded
 * answering, still sends it JOB_TERMINATE). */
static int update_down (struct ctld *ctx, size_t node, const char *reason,
                        uint32_t uid, time_t now)
{
    struct node *n = &ctx->nodes[node];
    char why[256];

    if (node_admin_down (ctx, node, reason, uid, now) < 0)
        return -1;
    log_warn ("node %s set DOWN: %s", n->name, reason);
    snprintf (why, sizeof (why), "node %s set DOWN: %s", n->name, reason);
    term_node_down (ctx, node, why);
    return 0;
}

static int update_one (struct ctld *ctx, size_t node, enum update_state st,
                       const char *reason, uint32_t uid, time_t now)
{
    struct node *n = &ctx->nodes[node];

    switch (st) {
    case UPDATE_DOWN: return update_down (ctx, node, reason, uid, now);
    case UPDATE_DRAIN:
        if (node_admin_drain (ctx, node, reason, uid, now) < 0)
            return -1;
        log_info ("node %s set to drain (%s): %s", n->name, node_state_str (n),
                  reason);
        return 0;
    case UPDATE_RESUME:
        node_resume (ctx, node, now);
        log_info ("node %s resumed: %s%s%s", n->name, node_state_str (n),
                  n->reason ? ", " : "", n->reason ? n->reason : "");
        return 0;
    }
    return 0;
}

/* AvailableFeatures= (ActiveFeatures= is the same here): checked on a
 * scratch record first, so that a bad list changes no node. */
static int update_features (struct ctld *ctx, const size_t *idx, size_t n,
                            const char *features, arbor_error_t *err)
{
    struct node scratch = { 0 };

    if (node_features_set (&scratch, features, err) < 0)
        return -1;
    node_features_clear (&scratch);
    for (size_t i = 0; i < n; i++) {
        struct node *nd = &ctx->nodes[idx[i]];
        if (node_features_set (nd, features, err) < 0)
            return -1;
        nd->features_set = true;
        persist_node (ctx, idx[i]);
        log_info ("node %s: features set to '%s'", nd->name,
                  features ? features : "");
    }
    sched_request (ctx); /* new features may let constrained jobs start */
    return 0;
}

int node_update (struct ctld *ctx, const struct msg_node_update *m,
                 uint32_t uid, arbor_error_t *err)
{
    const char *reason = m->reason ? m->reason : "";
    enum update_state st = UPDATE_RESUME;
    time_t now = time (NULL);
    size_t n, *idx;

    if (m->features_set && (!m->state || !m->state[0])) {
        if (!(idx = update_nodes (ctx, m->nodelist, &n, err)))
            return -1;
        int rc = update_features (ctx, idx, n, m->features, err);
        free (idx);
        return rc;
    }
    if (update_state_parse (m->state ? m->state : "", &st, err) < 0)
        return -1;
    if (st != UPDATE_RESUME && !reason[0]) {
        errno = EINVAL;
        return errprintf (err, "a Reason is required to set DOWN or DRAIN");
    }
    if (!(idx = update_nodes (ctx, m->nodelist, &n, err)))
        return -1;
    if (m->features_set
        && update_features (ctx, idx, n, m->features, err) < 0) {
        free (idx);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (update_one (ctx, idx[i], st, reason, uid, now) < 0) {
            free (idx);
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
    }
    free (idx);
    return 0;
}
