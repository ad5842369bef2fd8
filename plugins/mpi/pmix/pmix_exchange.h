/* pmix_exchange.h - what crosses nodes: PMIx's events on the loop
 * thread, fences and direct modex requests (pmix_exchange.c). Not installed.
 */
#ifndef ARBOR_MPI_PMIX_EXCHANGE_H
#define ARBOR_MPI_PMIX_EXCHANGE_H

#include "pmix_ctx.h"

/* The mpi_ops callbacks that cross nodes (progress:
 * PMIx's events on the loop thread; recv: another node's plugin sent
 * us something; gathered: a fence's all-gather is done), and the waits
 * of fences and modex requests freed at the end. */
void pmix_progress (void *arg);
void pmix_recv (void *arg, uint32_t from, const void *data, size_t len);
void pmix_gathered (void *arg, int64_t seq, const void *data, size_t len,
                    int errnum);
void pmix_waits_free (struct pmix_ctx *ctx);

#endif
