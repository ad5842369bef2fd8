/* pmi2_ctx.h - mpi/pmi2's state, shared by its files (not installed).
 *
 * pmi2_plugin.c is the plugin: the ops, each local task's connection
 * (PMI_FD, a socketpair whose stepd end is watched by the plugin's epoll
 * descriptor) and the fences; pmi2_cmds.c answers the commands of both
 * protocols; pmi2_wire.c frames, parses and formats them; pmi2_kvs.c is
 * the key-value space. Everything runs on the stepd's loop thread. This
 * header holds the records and pmi2_plugin.c's functions; pmi2_cmds.h
 * has pmi2_cmds.c's.
 */
#ifndef ARBOR_MPI_PMI2_CTX_H
#define ARBOR_MPI_PMI2_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mpi.h"
#include "mpi_base.h"
#include "pmi2_kvs.h"
#include "pmi2_wire.h"

/* Answers a task does not read are buffered up to this; past it the
 * connection is closed. */
#define PMI2_OUT_MAX (1024 * 1024)
/* Pairs one node may put between two fences, and the KVS's size. */
#define PMI2_BATCH_MAX (4 * 1024 * 1024)
#define PMI2_KVS_MAX (256 * 1024 * 1024)
#define PMI2_NODEATTR_MAX (1024 * 1024)
/* Malformed or unknown commands answered with an error before the
 * connection is closed. */
#define PMI2_BAD_MAX 32

/* One local task and its connection. */
struct pmi2_task {
    uint32_t rank;
    int fd;      /* the stepd's end, nonblocking; -1 once closed */
    int task_fd; /* the task's end, until task_started; else -1 */
    enum pmi_proto proto;
    bool connected; /* sent init */
    bool finalized; /* sent finalize */
    bool aborted;   /* sent abort */
    bool in_fence;  /* waits for barrier_out / kvs-fence-response */
    bool epollout;  /* watching for room to write */
    unsigned nbad;  /* commands answered with an error */
    /* a PMI-2 info-getnodeattr wait=TRUE not yet answered */
    bool wait_attr;
    char attr_key[PMI_MAX_KEYLEN + 1];
    size_t inlen;
    char in[PMI_WIRE_MAX_CMD]; /* a partial command */
    char *out;                 /* unsent answers */
    size_t outlen, outcap;
};

struct pmi2_ctx {
    struct mpi_base base; /* first: env, host, the step's numbers */
    char jobid[32];       /* "<job>.<step>": PMI_JOBID and the KVS's name */
    char *mapping;        /* PMI_process_mapping, NULL if too long */
    int epfd;             /* poll_fd: the tasks' connections */
    bool prepared;
    struct pmi2_task *local; /* nlocal, by local index (rank order) */
    struct pmi_kvs *kvs;     /* what fences have made visible */
    struct pmi_kvs *attrs;   /* PMI-2 node attributes (this node) */
    struct pmi_batch batch;  /* puts since the last fence */
    uint32_t nfence;         /* local tasks in the current fence */
    bool fence_sent;         /* contributed; waiting for gathered */
    int64_t fence_seq;
};

/* pmi2_plugin.c (what pmi2_cmds.c calls back): format r (pmi_resp_end) and
 * queue it on t's connection; a failure is logged and may close the connection.
 */
void pmi2_send (struct pmi2_ctx *ctx, struct pmi2_task *t, struct pmi_resp *r);

/* Close t's connection (the task sees EOF on PMI_FD). */
void pmi2_task_close (struct pmi2_ctx *ctx, struct pmi2_task *t);

/* t enters the current fence (barrier_in, kvs-fence). When every local
 * task has, this node's batch goes to the all-gather. */
void pmi2_fence_enter (struct pmi2_ctx *ctx, struct pmi2_task *t);

#endif
