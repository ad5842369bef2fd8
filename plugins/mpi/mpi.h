/* mpi.h - MPI plugins: what a step's tasks need to start MPI directly.
 *
 * An MPI plugin runs in each stepd of a step launched with --mpi=TYPE (or
 * MpiDefault): before the tasks start it sets up what their MPI library
 * talks to (a PMIx server for mpi/pmix, the PMI-1/PMI-2 wire protocol on
 * PMI_FD for mpi/pmi2), gives each task its variables, and serves the
 * tasks' requests while they run. What crosses nodes (a fence's data, a
 * direct modex, an abort) goes through services of the stepd (struct
 * mpi_host): an all-gather over a tree of the step's stepds, and messages
 * to the plugin of another node, both on the stepds' authenticated
 * transport (stepd/mesh.c, stepd/coll.c). See docs/mpi.md.
 *
 * One ctx serves one step on one node. The stepd calls, on its loop
 * thread: init, prepare, task_env for each local task before it starts,
 * then, as events come, progress (poll_fd readable), gathered, recv and
 * task_exited, and at the end finish and fini. A plugin that has threads
 * of its own (PMIx's progress thread) hands their events to the loop
 * thread through poll_fd and progress, and calls the host only from
 * there. All ops return 0 on success, -1 with errno (and err when given)
 * on failure, unless stated otherwise.
 */
#ifndef ARBOR_MPI_H
#define ARBOR_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include "error.h"
#include "plugin.h"

#define MPI_PLUGIN_TYPE "mpi"
/* 2: struct mpi_step gives every node's ranks (srun -m), not a block
 * layout's first rank. 3: and srvdir, root's. */
#define MPI_OPS_VERSION 3

/* The step as one node's plugin sees it. Borrowed for prepare only: copy
 * what must live on. Node i runs tasks[i] ranks, which srun -m chose
 * (block, cyclic, plane, arbitrary): ranks[] lists them node by node,
 * node i's (ascending) starting at tasks[0] + ... + tasks[i-1]. */
struct mpi_step {
    uint32_t job_id;
    uint32_t step_id;
    uid_t uid; /* the tasks' identity */
    gid_t gid;
    uint32_t node_id;            /* this node's index in the step */
    uint32_t nnodes;             /* nodes of the step */
    const char *const *nodes;    /* their names, by index */
    const uint32_t *tasks;       /* tasks on each node, by index */
    uint32_t ntasks;             /* tasks of the whole step */
    uint32_t nlocal;             /* tasks on this node */
    const uint32_t *ranks;       /* ntasks: every node's ranks, node by node */
    const uint32_t *local_ranks; /* nlocal: this node's, within ranks */
    /* A directory for the files of the tasks (their MPI library's
     * session directory), made for this step, owned by the job's user,
     * mode 0700, removed with everything in it when the step ends. The
     * plugin, which runs as root, must create, open or remove nothing in
     * it: the user can put links there. */
    const char *tmpdir;
    /* A directory for the plugin's own files (the PMIx server's), made
     * for this step, root's, mode 0700 during prepare; then the stepd
     * makes every directory in it root's and 0755 (the tasks may read,
     * never write), and removes it with everything in it at the end. */
    const char *srvdir;
    /* Other nodes share this host (emulated nodes, arbor local): files an
     * MPI library names after the host, not the node, must be kept
     * apart, in tmpdir. */
    bool shared_host;
};

/* The stepd's services, borrowed until fini. Call them on the loop
 * thread only (from an op). */
struct mpi_host {
    void *arg; /* passed back to every call */
    /* Contribute 'data' (copied) to the step's next all-gather. Every
     * node calls it the same number of times in the same order; the
     * plugin's gathered op then gets every node's data for that round.
     * Returns the round's sequence number (0, 1, 2...), or -1 with errno
     * (ENOMEM, EMSGSIZE when the data is too big to carry). */
    int64_t (*allgather) (void *arg, const void *data, size_t len);
    /* Send 'data' (copied) to the plugin of the step on node 'node': its
     * recv op gets it. Delivery is retried while that node's stepd is not
     * there yet; a node that cannot be reached ends the step (the host
     * says why). 0 or -1 with errno. */
    int (*send) (void *arg, uint32_t node, const void *data, size_t len);
    /* End the step on every node: 'rank' asked for it (MPI_Abort) with
     * exit code 'code', or broke the MPI job (died outside MPI_Init ...
     * MPI_Finalize). 'text' says why; the launcher prints it and exits
     * with 'code'. */
    void (*abort) (void *arg, uint32_t rank, int code, const char *text);
};

struct mpi_ops {
    /* Read config through env (borrowed until fini) and allocate a ctx. */
    int (*init) (const struct plugin_env *env, void **ctx, arbor_error_t *err);
    /* Free ctx (after finish). NULL ctx is accepted. */
    void (*fini) (void *ctx);
    /* Set up for the step before any task starts. 's' is borrowed for
     * the call; 'host' until fini. A failure fails the launch. */
    int (*prepare) (void *ctx, const struct mpi_step *s,
                    const struct mpi_host *host, arbor_error_t *err);
    /* The variables of the task of rank 'rank' (one of this node's), as
     * a NULL-terminated array of "KEY=VALUE" in *vars (malloc'd strings
     * and array, the caller's; *vars NULL when there are none). If the
     * task must inherit a descriptor of the stepd (PMI_FD), *keep_fd is
     * that descriptor (it stays the plugin's; the task gets it at the
     * same number), else -1. */
    int (*task_env) (void *ctx, uint32_t rank, char ***vars, int *keep_fd,
                     arbor_error_t *err);
    /* Optional. The task of 'rank' started as 'pid' (or failed to start:
     * pid 0), and the stepd's end of any keep_fd may be closed now. */
    void (*task_started) (void *ctx, uint32_t rank, pid_t pid);
    /* A descriptor the stepd watches for reading, calling progress when
     * it is readable; -1 if the plugin has none. Fixed after prepare. */
    int (*poll_fd) (void *ctx);
    void (*progress) (void *ctx);
    /* Round 'seq' of allgather is complete: the concatenation of every
     * node's data, in node order, borrowed for the call. errnum != 0:
     * it cannot complete (a node could not be reached); data NULL. */
    void (*gathered) (void *ctx, int64_t seq, const void *data, size_t len,
                      int errnum);
    /* Data sent by the plugin of node 'from' (host send), borrowed. */
    void (*recv) (void *ctx, uint32_t from, const void *data, size_t len);
    /* The local task of 'rank' ended with wait 'status'. Returns true if
     * that breaks the MPI job (it died after it joined and before it
     * finalized, or failed before it joined), with a sentence in 'why'
     * (the stepd then ends the step); false if the job may go on. */
    bool (*task_exited) (void *ctx, uint32_t rank, int status, char *why,
                         size_t whylen);
    /* The step is over on this node (its tasks are gone): stop serving,
     * release the step's state. The stepd removes tmpdir afterwards. */
    void (*finish) (void *ctx);
};

/* The rule every plugin's task_exited applies, given what the task's
 * client did: its end breaks the MPI job if it joined (connected) and did
 * not finalize, or never joined and failed (non-zero, or a signal); then
 * true, with "task 3 exited with code 5 before MPI_Init" in why. */
static inline bool mpi_task_breaks_job (uint32_t rank, int status,
                                        bool connected, bool finalized,
                                        char *why, size_t whylen)
{
    bool failed = !WIFEXITED (status) || WEXITSTATUS (status) != 0;
    const char *when = connected ? "before MPI_Finalize" : "before MPI_Init";

    if (finalized || (!connected && !failed))
        return false; /* done with MPI, or never an MPI program */
    if (WIFSIGNALED (status))
        snprintf (why, whylen, "task %u was killed by signal %d %s", rank,
                  WTERMSIG (status), when);
    else
        snprintf (why, whylen, "task %u exited with code %d %s", rank,
                  WEXITSTATUS (status), when);
    return true;
}

/* Descriptor initializer for an MPI plugin named 'name_' with ops 'ops_':
 *   ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
 *       MPI_PLUGIN ("pmix", mpi_pmix_ops);
 */
#define MPI_PLUGIN(name_, ops_)                                              \
    {                                                                        \
        .abi = ARBOR_PLUGIN_ABI, .type = MPI_PLUGIN_TYPE, .name = (name_),   \
        .ops_version = MPI_OPS_VERSION, .ops_size = sizeof (struct mpi_ops), \
        .ops = &(ops_),                                                      \
    }

/* plugin_check_f for mpi: every op but task_started is required. */
int mpi_ops_check (const void *ops, arbor_error_t *err);

/* Load the plugin of canonical type 'name' (conf_mpi_type: "pmix",
 * "pmi2"; not "none", which has no plugin) from dir (NULL:
 * plugin_default_dir()). NULL with errno and err. Free with plugin_unload(). */
struct plugin *mpi_load (const char *dir, const char *name, arbor_error_t *err);

/* The types that can be used here: "none" and each mpi_<name>.so found
 * in dir (NULL: plugin_default_dir()), sorted, as a NULL-terminated
 * array (caller frees each and the array), or NULL with errno. */
char **mpi_list (const char *dir);

#endif
