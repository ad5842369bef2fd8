/* launch_check.c - the checks of a LAUNCH against its verified credential.
 *
 * Pure functions of the request, the claims and a struct launch_policy
 * (no noded context, no I/O), so that test/launch_test.c runs them alone:
 * launch_precheck before anything is verified, launch_check once the
 * credential opened (sender, ids, slice, step nodes, tasks and cpus per
 * node, revocation). launch.c runs them as stages of a launch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "launch_check.h"
#include "revoke.h"

/* Longer slices are checked through a hostlist_index. */
#define SLICE_INDEX_MIN 16

/* The slice: this node first, then nodes of the credential, none twice.
 * Its size is bounded by the credential's node list before any lookup, so
 * a hostile slice costs nothing. */
static int check_slice (const struct msg_launch *req,
                        const struct hostlist *cred_nodes, const char *self,
                        arbor_error_t *err)
{
    size_t n = hostlist_count (cred_nodes);
    struct hostlist_index *ix;
    bool *seen;

    if (req->slice_count > n) {
        errno = EPERM;
        return errprintf (err,
                          "slice of %u nodes is larger than the "
                          "credential's %zu",
                          req->slice_count, n);
    }
    if (req->slice_count == 0 || strcmp (req->slice[0], self) != 0) {
        errno = EINVAL;
        return errprintf (err, "slice does not start with this node");
    }
    /* Node zero's slice is every node: an index, not a linear search per
     * node. A leaf's slice is itself: sorting the list would cost more. */
    ix = req->slice_count > SLICE_INDEX_MIN ? hostlist_index_create (cred_nodes)
                                            : NULL;
    if ((req->slice_count > SLICE_INDEX_MIN && !ix)
        || !(seen = calloc (n ? n : 1, sizeof (*seen)))) {
        hostlist_index_destroy (ix);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (uint32_t i = 0; i < req->slice_count; i++) {
        int k = ix ? hostlist_index_find (ix, req->slice[i])
                   : hostlist_find (cred_nodes, req->slice[i]);
        if (k < 0 || seen[k]) {
            hostlist_index_destroy (ix);
            free (seen);
            errno = k < 0 ? EPERM : EINVAL;
            return errprintf (err,
                              k < 0 ? "slice node %.*s is not in the "
                                      "credential"
                                    : "slice lists %.*s twice",
                              LAUNCH_ECHO_MAX, req->slice[i]);
        }
        seen[k] = true;
    }
    hostlist_index_destroy (ix);
    free (seen);
    return 0;
}

/* The step node list must be the credential's, as sealed (compared as
 * text: nothing the launcher sends is expanded), and the per-node lists
 * must have one entry per node. */
static int check_step_nodes (const struct msg_launch *req,
                             const struct msg_cred_claims *claims, size_t n,
                             arbor_error_t *err)
{
    const char *list = req->step_nodelist ? req->step_nodelist : "";

    if (strcmp (list, claims->nodelist) != 0) {
        errno = EPERM;
        return errprintf (err,
                          "step node list %.*s%s is not the "
                          "credential's %s",
                          LAUNCH_ECHO_MAX, list,
                          strlen (list) > LAUNCH_ECHO_MAX ? "..." : "",
                          claims->nodelist);
    }
    if (req->tasks_count != n || req->cpus_count != n) {
        errno = EINVAL;
        return errprintf (err,
                          "%u task counts and %u cpu counts for %zu "
                          "nodes",
                          req->tasks_count, req->cpus_count, n);
    }
    return 0;
}

/* Tasks and cores per node: what the credential granted, node for node.
 * (A credential without a task layout comes from a controller older than
 * protocol minor 3; the controller is upgraded first, so it is refused.) */
static int check_layout (const struct msg_launch *req,
                         const struct msg_cred_claims *claims,
                         const struct hostlist *cred_nodes, size_t n,
                         arbor_error_t *err)
{
    errno = EPERM;
    if (claims->tasks_count != n || claims->cpus_count != n)
        return errprintf (err,
                          "credential has %u task counts and %u cpu "
                          "counts for %zu nodes",
                          claims->tasks_count, claims->cpus_count, n);
    for (size_t i = 0; i < n; i++) {
        if (req->tasks[i] != claims->tasks[i])
            return errprintf (err,
                              "launch asks for %u tasks on %s, the "
                              "credential grants %u",
                              req->tasks[i], hostlist_nth (cred_nodes, i),
                              claims->tasks[i]);
        if (req->cpus[i] != claims->cpus[i])
            return errprintf (err,
                              "launch asks for %u cpus on %s, the "
                              "credential grants %u",
                              req->cpus[i], hostlist_nth (cred_nodes, i),
                              claims->cpus[i]);
    }
    return 0;
}

static int check_sender (const struct launch_policy *p,
                         const struct msg_launch *req, uid_t sender,
                         const struct msg_cred_claims *claims,
                         arbor_error_t *err)
{
    if (sender != 0 && sender != p->arbor_uid && sender != claims->uid) {
        errno = EPERM;
        return errprintf (err, "uid %u may not launch a step of uid %u",
                          (unsigned)sender, (unsigned)claims->uid);
    }
    /* A batch step comes from the controller alone, and only it brings
     * a script and output files to write on the node. */
    if ((claims->step_id == STEP_ID_BATCH || req->script_len > 0) && sender != 0
        && sender != p->arbor_uid) {
        errno = EPERM;
        return errprintf (err, "uid %u may not launch a batch step",
                          (unsigned)sender);
    }
    if ((claims->step_id == STEP_ID_BATCH) != (req->script_len > 0)) {
        errno = EINVAL;
        return errprintf (err, claims->step_id == STEP_ID_BATCH
                                   ? "batch step without a script"
                                   : "script for a step that is not the "
                                     "batch step");
    }
    if (req->job_id != claims->job_id || req->step_id != claims->step_id) {
        errno = EPERM;
        return errprintf (err,
                          "launch of %u.%u with a credential for "
                          "%u.%u",
                          req->job_id, req->step_id, claims->job_id,
                          claims->step_id);
    }
    return 0;
}

int launch_precheck (const struct msg_launch *req, size_t cluster_nodes,
                     arbor_error_t *err)
{
    if (req->slice_count > cluster_nodes) {
        errno = EPERM;
        return errprintf (err,
                          "slice of %u nodes is larger than the "
                          "cluster (%zu nodes)",
                          req->slice_count, cluster_nodes);
    }
    return 0;
}

int launch_check (const struct launch_policy *p, const struct msg_launch *req,
                  uid_t sender, const struct msg_cred_claims *claims,
                  uint32_t *node_id, arbor_error_t *err)
{
    struct hostlist *cred_nodes = NULL;
    size_t n;
    int rc = -1;

    if (check_sender (p, req, sender, claims, err) < 0)
        return -1;
    if (!claims->nodelist
        || !(cred_nodes = hostlist_create (claims->nodelist, NULL))
        || hostlist_find (cred_nodes, p->self) < 0) {
        hostlist_destroy (cred_nodes);
        errno = EPERM;
        return errprintf (err, "credential is not valid on %s", p->self);
    }
    n = hostlist_count (cred_nodes);
    if (check_slice (req, cred_nodes, p->self, err) < 0
        || check_step_nodes (req, claims, n, err) < 0
        || check_layout (req, claims, cred_nodes, n, err) < 0)
        goto out;
    if (req->argv_count == 0) {
        errno = EINVAL;
        errprintf (err, "no command to run");
        goto out;
    }
    if (p->revoked
        && revoke_check (p->revoked, claims->job_id, claims->restarts,
                         claims->step_id, p->now)) {
        errno = EPERM;
        errprintf (err, "step %u.%u has been revoked", claims->job_id,
                   claims->step_id);
        goto out;
    }
    *node_id = (uint32_t)hostlist_find (cred_nodes, p->self);
    rc = 0;
out:
    hostlist_destroy (cred_nodes);
    return rc;
}
