/* step_mpi.h - the step's MPI plugin, seen from the stepd (mpi.c;
 * plugins/mpi/mpi.h is the plugins' own interface).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_STEP_MPI_H
#define ARBOR_STEPD_STEP_MPI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct env;
struct stepd;
struct task;

/* The step's MPI plugin. mpi_prepare loads it and sets it up
 * (nothing for --mpi=none); -1 with err fails the launch. */
int mpi_prepare (struct stepd *sd, arbor_error_t *err);
/* SLURM_MPI_TYPE and the plugin's variables for the task of 'rank' into
 * env; *keep_fd: a descriptor the task inherits, or -1. */
int mpi_task_env (struct stepd *sd, uint32_t rank, struct env *env,
                  int *keep_fd, arbor_error_t *err);
void mpi_task_started (struct stepd *sd, uint32_t rank, pid_t pid);
/* A task ended: abort the step if that breaks the MPI job. */
void mpi_task_exited (struct stepd *sd, const struct task *t);
/* The tasks are over: stop serving, remove the step's MPI directory. */
void mpi_finish (struct stepd *sd);
/* Messages to other stepds still on their way. */
bool mpi_busy (const struct stepd *sd);
void mpi_free (struct stepd *sd);
/* In the spawner: load the plugin of MPI type 'type' ("pmix", "pmi2")
 * once, before forking, so that stepds find it loaded (a failure is
 * only logged: the stepd then loads it, and says why it cannot). */
void mpi_preload (struct stepd *sd, const char *type);

#endif
