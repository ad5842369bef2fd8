/* contain.h - the step's proctrack container (contain.c).
 * Not installed; see stepd.h for the step daemon's records. */
#ifndef ARBOR_STEPD_CONTAIN_H
#define ARBOR_STEPD_CONTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct stepd;

/* Its private state (no container yet). 0, or -1 with errno ENOMEM. */
int contain_init (struct stepd *sd);
/* Is there a container now (created, not yet removed)? */
bool contain_exists (const struct stepd *sd);
/* Free the private state (after contain_destroy); the plugin stays
 * mapped until the stepd exits. NULL-safe. */
void contain_free (struct stepd *sd);
/* Load ProctrackType and init it, before any step is known (in the
 * spawner, once for every stepd it forks). A failure is kept and becomes
 * contain_create's: the launch fails with the plugin's reason. */
void contain_preload (struct stepd *sd);
/* Create the step's container (nested
 * under node_<NODE> by the emulation rule). -1 with err when containment
 * is configured but unusable (launch fails). */
int contain_create (struct stepd *sd, arbor_error_t *err);
/* ConstrainDevices: deny the container's processes the devices whose
 * files are deny_files[0..n) (the node's generic resources not given to
 * the step). Call it after contain_create and before any task is added
 * (stepd.c's launch chain, right after contain_create). Each file must be
 * a character or block device; one that does not exist is skipped (a
 * debug line says so). 0, or -1 with errno and err: EINVAL naming a file
 * that is not a device, stat's errno naming a file it cannot read,
 * ENOTSUP when the plugin cannot constrain devices (proctrack/pgid), or
 * the plugin's own (no devices controller, bpf refused): the launch
 * must then fail rather than run the step unconstrained. */
int contain_devices (struct stepd *sd, char *const *deny_files, size_t n,
                     arbor_error_t *err);
/* Put a freshly forked (still waiting) task in the container. */
int contain_add (struct stepd *sd, pid_t pid);
/* Move a running process (a login's, pam_arbor_adopt) into the container.
 * -1 with errno and err: ENOTSUP when the plugin cannot adopt (pgid). */
int contain_adopt (struct stepd *sd, pid_t pid, arbor_error_t *err);
/* Does the plugin let a task add itself (add_self)? Then the child calls
 * contain_add_self before it execs, and the parent does not add it. */
bool contain_adds_self (struct stepd *sd);
int contain_add_self (struct stepd *sd);
/* Signal the container. -1 with errno if there is none or it failed. */
int contain_signal (struct stepd *sd, int sig);
/* 1 empty (or no container), 0 not empty, -1 error. */
int contain_is_empty (struct stepd *sd);
/* The live pids of the container (caller frees; none without one). 0,
 * or -1 with errno. */
int contain_pids (struct stepd *sd, pid_t **pids, size_t *n);
/* The live pids as "123 456" (at most 'size' bytes). */
void contain_pids_text (struct stepd *sd, char *buf, size_t size);
/* OOM kills since the container was made; 0 if not counted. */
uint64_t contain_oom_kills (struct stepd *sd);
/* A task died by SIGKILL: true (once per OOM kill) if the OOM killer did
 * it. */
bool contain_claim_oom (struct stepd *sd);
/* Remove the container (it must be empty) and unload the plugin. */
void contain_destroy (struct stepd *sd);

#endif
