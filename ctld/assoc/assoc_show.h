/* assoc_show.h - sacctmgr show: the site policy's entities as columns
 * (by sacctmgr's format= names) and rows, chosen by the request's names
 * and where conditions (issue 36). Anyone may ask.
 *
 *   cluster      Cluster ControlHost ControlPort RPC
 *   account      Account Descr Org ParentName Coordinators
 *   user         User DefaultAccount AdminLevel Accounts Coordinators
 *                QOS DefaultQOS
 *   account      (also) QOS DefaultQOS
 *   qos          Name Priority GraceTime Preempt PreemptMode Flags
 *                UsageFactor MaxWall Descr
 *   association  Cluster Account User Partition Share ParentName
 * Associations come in tree order: each account, then its users, then
 * its sub-accounts.
 */
#ifndef ARBOR_CTLD_ASSOC_SHOW_H
#define ARBOR_CTLD_ASSOC_SHOW_H

#include "assoc/assoc.h"

/* What the cluster rows say of the controller. */
struct assoc_here {
    const char *host, *port, *rpc;
};

/* Fill out (zeroed first; proto_clear frees it) with what req asks to
 * see. 0, or -1 with errno EINVAL (an unknown entity or key) or ENOMEM,
 * and err. */
int assoc_show (const struct assoc *a, const struct assoc_here *here,
                const struct msg_assoc_req *req, struct msg_assoc_reply *out,
                arbor_error_t *err);

#endif
