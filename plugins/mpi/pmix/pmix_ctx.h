/* pmix_ctx.h - mpi/pmix's state, shared by its files (not installed).
 *
 * pmix_plugin.c is the plugin (ops table, the loop thread's side);
 * pmix_upcall.c is the PMIx server module, whose functions PMIx calls on
 * its own progress thread: they only queue an event and wake the loop
 * (eventfd), never touch the rest of the state; pmix_nspace.c builds the
 * namespace's information (job, nodes, procs) that clients read;
 * pmix_topo.c loads the node's hardware topology for both. This header
 * holds the records they share; each file's functions are in its own
 * header (pmix_upcall.h, pmix_nspace.h, pmix_topo.h, pmix_exchange.h).
 */
#ifndef ARBOR_MPI_PMIX_CTX_H
#define ARBOR_MPI_PMIX_CTX_H

#include <hwloc.h>
#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi.h"
#include "mpi_base.h"

/* Seconds the loop thread waits for PMIx's thread: to register the step
 * (a failed launch past it), and at the step's end (past it, the server
 * is left to the stepd's exit). See pmix_nspace.c. */
#define PMIX_REGISTER_TIMEOUT 10
#define PMIX_FINISH_TIMEOUT 3
#define PMIX_STR2(x) #x
#define PMIX_STR(x) PMIX_STR2 (x)

/* Something PMIx's thread asked of the loop thread. */
enum pmix_ev_kind {
    PEV_FENCE,     /* fence_nb: data, cbfunc */
    PEV_DMODEX,    /* direct_modex: a remote rank's data for a client */
    PEV_DMDX_DONE, /* PMIx_server_dmodex_request answered: data to send */
    PEV_ABORT,     /* abort: rank, status, msg */
};

struct pmix_ev {
    struct pmix_ev *next;
    enum pmix_ev_kind kind;
    uint32_t rank;
    int status;
    char *data; /* owned */
    size_t len;
    char *msg;         /* owned */
    uint32_t node, id; /* PEV_DMDX_DONE: who asked, their request id */
    pmix_modex_cbfunc_t modex_cb;
    pmix_op_cbfunc_t op_cb;
    void *cbdata;
};

/* A fence or a direct modex waiting for the other nodes. */
struct pmix_wait {
    struct pmix_wait *next;
    int64_t key; /* fence: round; dmodex: request id */
    pmix_modex_cbfunc_t cb;
    void *cbdata;
};

/* Per local task: what its client did (set on PMIx's thread). */
struct pmix_task {
    bool connected;
    bool finalized;
};

struct pmix_ctx {
    struct mpi_base base; /* first: env, host, the step's numbers */
    uid_t uid;
    gid_t gid;
    char **nodes;         /* names by node index */
    uint32_t *tasks;      /* tasks per node */
    uint32_t *ranks;      /* ntasks: each node's ranks, node by node */
    uint32_t *node_of;    /* ntasks: the node of each rank */
    uint32_t *local_of;   /* ntasks: its index among its node's ranks */
    uint32_t local_first; /* this node's ranks: ranks[local_first...] */
    char *tmpdir;         /* the user's: the clients' PMIX_TMPDIR, PMIX_NSDIR */
    char *srvdir;         /* root's: the server's own files */
    const char *psec;     /* the clients' authentication: "munge", "native" */
    bool shared_host;
    char nspace[PMIX_MAX_NSLEN + 1];
    bool server_up, nspace_up;
    bool stuck; /* PMIx's thread did not answer in time: never wait on it
                 * again (its server ends with the stepd) */
    hwloc_topology_t topo; /* pmix_topo.c: the node's, PMIx's until
                            * finalize */
    char *topo_xml;        /* ... and its XML, for the clients */

    int efd; /* eventfd: PMIx's thread has queued events */
    pthread_mutex_t lock;
    struct pmix_ev *evs, **evs_tail; /* under lock */
    struct pmix_task *local;         /* nlocal; under lock */

    struct pmix_wait *fences; /* loop thread only */
    struct pmix_wait *dmodex;
    uint32_t next_dmodex;
};

#endif
