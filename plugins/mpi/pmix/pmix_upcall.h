/* pmix_upcall.h - the PMIx server module, on PMIx's thread
 * (pmix_upcall.c), and its queue of events for the loop thread. Not installed.
 */
#ifndef ARBOR_MPI_PMIX_UPCALL_H
#define ARBOR_MPI_PMIX_UPCALL_H

#include "pmix_ctx.h"

/* The server module given to PMIx_server_init, bound to
 * 'ctx' (one PMIx server per process: the module's functions carry no
 * pointer of ours, so they find it through the binding). */
extern pmix_server_module_t pmix_arbor_module;
void pmix_upcall_bind (struct pmix_ctx *ctx);
/* Queue ev (taken) for the loop thread and wake it. */
void pmix_ev_post (struct pmix_ctx *ctx, struct pmix_ev *ev);
/* Take every queued event (a list; caller frees each). */
struct pmix_ev *pmix_ev_take (struct pmix_ctx *ctx);
void pmix_ev_free (struct pmix_ev *ev);

#endif
