/* bcast_cred.c - may this request write or read files of this job here?
 *
 * A chain of checks (bcast_cred.h); each refusal says which failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_cred.h"
#include "hostlist.h"
#include "revoke.h"

#define ECHO_MAX 64 /* bytes of an unverified name echoed back */

static int check_claims (const struct bcast_policy *p,
                         const struct msg_cred_claims *cl, uint32_t job_id,
                         uid_t sender, arbor_error_t *err)
{
    errno = EPERM;
    if (cl->step_id != STEP_ID_ALL || cl->tasks_count != 0)
        return errprintf (err, "not a file broadcast credential");
    if (cl->job_id != job_id)
        return errprintf (err, "credential of job %u used for job %u",
                          cl->job_id, job_id);
    if (sender != 0 && sender != p->arbor_uid && sender != p->noded_uid
        && sender != cl->uid)
        return errprintf (err, "uid %u may not use a credential of uid %u",
                          (unsigned)sender, (unsigned)cl->uid);
    if (p->revoked
        && revoke_check (p->revoked, cl->job_id, cl->restarts, STEP_ID_ALL,
                         p->now))
        return errprintf (err, "job %u has ended on this node", cl->job_id);
    return 0;
}

int bcast_cred_check (const struct bcast_policy *p, const char *cred,
                      uint32_t job_id, uid_t sender,
                      struct msg_cred_claims *claims, arbor_error_t *err)
{
    arbor_error_t why;

    if (!p->key) {
        errno = EAGAIN;
        return errprintf (err, "this node has no credential key yet");
    }
    if (cred_open (p->key, cred ? cred : "", p->cluster, p->self, p->now,
                   claims, &why)
        < 0) {
        int e = errno;
        errprintf (err, "credential refused: %s", why.text);
        errno = e;
        return -1;
    }
    if (check_claims (p, claims, job_id, sender, err) < 0) {
        proto_clear (MSG_CRED_CLAIMS, claims);
        errno = EPERM;
        return -1;
    }
    return 0;
}

int bcast_slice_check (const struct msg_cred_claims *claims, char *const *slice,
                       uint32_t count, const char *self, arbor_error_t *err)
{
    struct hostlist *hl = hostlist_create (claims->nodelist, NULL);
    struct hostlist_index *ix = hl ? hostlist_index_create (hl) : NULL;
    bool *seen = hl ? calloc (hostlist_count (hl) + 1, sizeof (*seen)) : NULL;
    int rc = -1;

    if (!hl || !ix || !seen) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    errno = EPERM;
    if (count > hostlist_count (hl)) {
        errprintf (err, "slice of %u nodes is larger than the credential's",
                   count);
        goto out;
    }
    if (count == 0 || strcmp (slice[0], self) != 0) {
        errno = EINVAL;
        errprintf (err, "slice does not start with this node");
        goto out;
    }
    for (uint32_t i = 0; i < count; i++) {
        int k = hostlist_index_find (ix, slice[i]);
        if (k < 0 || seen[k]) {
            errno = k < 0 ? EPERM : EINVAL;
            errprintf (err,
                       k < 0 ? "node %.*s is not in the credential"
                             : "slice lists %.*s twice",
                       ECHO_MAX, slice[i]);
            goto out;
        }
        seen[k] = true;
    }
    rc = 0;
out:
    free (seen);
    hostlist_index_destroy (ix);
    hostlist_destroy (hl);
    return rc;
}
