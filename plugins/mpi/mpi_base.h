/* mpi_base.h - what the MPI plugins (mpi/pmi2, mpi/pmix) share: the step
 * and host every ctx keeps, the ops' setup, and the tasks' variables.
 *
 * Each plugin's ctx begins with a struct mpi_base. init allocates the ctx
 * with mpi_base_create, prepare first records the step and the host with
 * mpi_base_prepare, and task_env builds the task's "KEY=VALUE" list with
 * mpi_env_add (freed by mpi_env_free on failure). mpi_base.c is linked
 * into each plugin module (not into the daemons: a plugin sees only the
 * plugin API).
 */
#ifndef ARBOR_MPI_BASE_H
#define ARBOR_MPI_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "mpi.h"

/* The step as a plugin keeps it (copied from struct mpi_step), and the
 * services it was given. */
struct mpi_base {
    const struct plugin_env *env; /* borrowed until fini */
    const struct mpi_host *host;  /* borrowed from prepare until fini */
    uint32_t job_id, step_id, node_id, nnodes, ntasks, nlocal;
};

/* A zeroed ctx of 'size' bytes whose first member is a struct mpi_base,
 * with its env set (the init op's common half). NULL with errno ENOMEM
 * and err. */
void *mpi_base_create (size_t size, const struct plugin_env *env,
                       arbor_error_t *err);

/* Record the step's numbers of 's' and 'host' (the prepare op's first
 * step). */
void mpi_base_prepare (struct mpi_base *b, const struct mpi_step *s,
                       const struct mpi_host *host);

/* The stepd's services (struct mpi_host) for b's step, on the loop
 * thread only: an all-gather round (its sequence number, or -1 with
 * errno), a message to node's plugin (0 or -1 with errno), and the end
 * of the step on every node for 'rank' (code, and why). */
int64_t mpi_host_allgather (const struct mpi_base *b, const void *data,
                            size_t len);
int mpi_host_send (const struct mpi_base *b, uint32_t node, const void *data,
                   size_t len);
void mpi_host_abort (const struct mpi_base *b, uint32_t rank, int code,
                     const char *text);

/* The task_env op's outputs before anything is known: no variables, no
 * descriptor to keep. */
void mpi_task_env_clear (char ***vars, int *keep_fd);

/* Append "KEY=VALUE" (the value formatted) to the NULL-terminated,
 * malloc'd array *env (NULL: an empty one). 0, or -1 with errno ENOMEM
 * (*env unchanged). */
int mpi_env_add (char ***env, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Free a NULL-terminated array of malloc'd strings. NULL accepted. */
void mpi_env_free (char **env);

#endif
