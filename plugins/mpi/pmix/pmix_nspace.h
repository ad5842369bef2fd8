/* pmix_nspace.h - the step's namespace and its clients, as
 * PMIx's clients read them (pmix_nspace.c). Not installed.
 */
#ifndef ARBOR_MPI_PMIX_NSPACE_H
#define ARBOR_MPI_PMIX_NSPACE_H

#include "pmix_ctx.h"

/* Register the step's namespace with every process of
 * the step and this node's. 0, or -1 with err. */
int pmix_nspace_register (struct pmix_ctx *ctx, arbor_error_t *err);

/* Deregister the namespace (its clients, collectives in progress),
 * waiting until PMIx has, PMIX_FINISH_TIMEOUT s at most. 0, or -1 (and
 * ctx->stuck) when it did not answer in time or memory ran out. */
int pmix_nspace_deregister (struct pmix_ctx *ctx);

/* Register the local task of 'rank' as a client (the job's uid and
 * gid), waiting until PMIx has (PMIX_REGISTER_TIMEOUT s at most, then
 * ctx->stuck). 0, or -1 with err. */
int pmix_client_register (struct pmix_ctx *ctx, uint32_t rank,
                          arbor_error_t *err);

/* Node index of a rank (nnodes if it is none of the step's). */
uint32_t pmix_rank_node (const struct pmix_ctx *ctx, uint32_t rank);
/* The local index of 'rank' if it runs on this node, else -1. */
int64_t pmix_rank_local (const struct pmix_ctx *ctx, uint32_t rank);

#endif
