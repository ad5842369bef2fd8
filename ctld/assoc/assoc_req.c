/* assoc_req.c - sacctmgr's changes: each verb to its file (add:
 * assoc_add.c; modify, delete: assoc_change.c). See assoc_req.h. */
#include <errno.h>
#include <string.h>

#include "assoc/assoc_private.h"

/* ---- the verbs --------------------------------------------------------------
 */

int assoc_apply (struct assoc *a, const struct assoc_actor *who,
                 const struct msg_assoc_req *req, FILE *said,
                 struct assoc_touched *t, arbor_error_t *err)
{
    if (!strcmp (req->entity, "qos") && strcmp (req->verb, "show"))
        return assoc_qos_req (a, who, req, said, t, err);
    if (!strcmp (req->verb, "add"))
        return assoc_add_req (a, who, req, said, t, err);
    if (!strcmp (req->verb, "modify"))
        return assoc_modify_req (a, who, req, said, t, err);
    if (!strcmp (req->verb, "delete"))
        return assoc_delete_req (a, who, req, said, t, err);
    errno = EINVAL;
    return errprintf (err, "unknown verb '%s' (add, modify, delete, show)",
                      req->verb);
}
