/* pmix_topo.h - this node's hardware topology for the server
 * and its clients (pmix_topo.c). Not installed.
 */
#ifndef ARBOR_MPI_PMIX_TOPO_H
#define ARBOR_MPI_PMIX_TOPO_H

#include "pmix_ctx.h"

/* Load this node's topology into ctx->topo and
 * ctx->topo_xml (from the spool's cache when it is fresh). 0, or -1 with
 * err. pmix_topo_free releases them (after PMIx_server_finalize). */
int pmix_topo_load (struct pmix_ctx *ctx, arbor_error_t *err);
void pmix_topo_free (struct pmix_ctx *ctx);

#endif
