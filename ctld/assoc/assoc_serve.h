/* assoc_serve.h - ASSOC_REQ (sacctmgr): show, or change the site's
 * policy (assoc_req.h) and write what changed to the accounting database
 * (policy.h). A change is made on a copy and put in place whole; a dry
 * run says what it would change and drops the copy.
 */
#ifndef ARBOR_CTLD_ASSOC_SERVE_H
#define ARBOR_CTLD_ASSOC_SERVE_H

struct conn;
struct frame;

/* rpc.h's handler: arg is the ctld, msg the ASSOC_REQ. */
void assoc_rpc_cb (struct conn *c, const struct frame *f, void *msg, void *arg);

#endif
