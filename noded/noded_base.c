/* noded_base.c - the helpers every module of arbor-noded needs: the
 * request options for the controller and for another noded (common/
 * request.h), from the context (noded_base.h).
 */
#include <string.h>

#include "noded_base.h"
#include "request.h"

void noded_ctld_opts (const struct noded *nd, double timeout,
                      struct request_opts *opts)
{
    memset (opts, 0, sizeof (*opts));
    opts->peers = nd->peers;
    opts->peer_uid = nd->arbor_uid;
    opts->timeout = timeout;
}

void noded_peer_opts (const struct noded *nd, double timeout,
                      struct request_opts *opts)
{
    noded_ctld_opts (nd, timeout, opts);
    opts->peer_uid = nd->noded_uid;
}
