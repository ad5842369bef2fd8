/* bind.h - task binding for TaskPlugin=affinity: parsing the step's core
 * list ("0-1,4") into a cpu_set_t, deciding when binding must be skipped
 * because the node's CPUs are not this host's (emulated nodes), and which
 * cores each local task gets under srun's --cpu-bind (common/spec/cpubind.h:
 * none binds nothing, even with TaskPlugin=affinity; cores, the default,
 * gives each task its block of the step's cores; map_cpu gives local
 * task i the i-th CPU of its list, which must be the step's), and the
 * SLURM_CPU_BIND* variables that say so. No I/O, no globals, no logging:
 * callers pass the host's facts in. Unit-tested in stepd/test/bind_test.c.
 */
#ifndef ARBOR_STEPD_BIND_H
#define ARBOR_STEPD_BIND_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpubind.h"
#include "env.h"
#include "error.h"

/* Parse a core list ("0-1,4", "3", "") into 'set' (cleared first).
 * Returns the number of cores (0 for ""), or -1 with errno EINVAL and err
 * for malformed text, a reversed range or an id >= CPU_SETSIZE. */
int cores_parse (const char *s, cpu_set_t *set, arbor_error_t *err);

/* Does TaskPlugin (Slurm-style list: "affinity", "task/affinity",
 * "task/affinity,task/cgroup") ask for binding? */
bool task_plugin_binds (const char *task_plugin);

/* What the host looks like, for bind_plan(). */
struct bind_host {
    long online_cpus;         /* sysconf(_SC_NPROCESSORS_ONLN) */
    const cpu_set_t *allowed; /* the stepd's own affinity, NULL: all */
};

/* Decide whether to bind this node's tasks to 'cores'. Returns 1 with the
 * cores in *set; 0 when binding is skipped, with why->text saying so:
 * no cores given, the node claims more CPUs than the host has online
 * ("not binding: node3 claims 8 CPUs, host has 2"), or a core the host
 * does not have or does not allow this process; -1 with errno EINVAL and
 * why for a malformed core list. */
int bind_plan (const char *node, const char *cores, uint32_t node_cpus,
               const struct bind_host *host, cpu_set_t *set,
               arbor_error_t *why);

/* The cores of local task 'local' (of 'ntasks' on this node) within the
 * step's cores: with at least one core per task, task i gets the i-th
 * block of count / ntasks cores in ascending order (block distribution,
 * what Slurm's task/affinity does by default; leftover cores go to no
 * task); with fewer cores than tasks, every task gets all of them.
 * Returns the number of cores in *out (0 if 'step' is empty). */
int bind_task_set (const cpu_set_t *step, uint32_t local, uint32_t ntasks,
                   cpu_set_t *out);

/* map_cpu: every CPU of b's list must be one of the step's cores here
 * ('cores', as STEPD_INIT gives them), or, when the credential names no
 * cores, below node_cpus. 0 (and for other types), or -1 with errno EINVAL
 * and err: "--cpu-bind=map_cpu: CPU 5 is not one of the step's cores on
 * node1 (0-1)". */
int bind_map_check (const struct cpubind *b, const char *cores,
                    uint32_t node_cpus, const char *node, arbor_error_t *err);

/* The CPUs of local task 'local' (of ntasks) under b: map_cpu's entry
 * local % length; else bind_task_set's share of 'step'. Returns the
 * number of CPUs in *out. */
int bind_task_cpus (const struct cpubind *b, const cpu_set_t *step,
                    uint32_t local, uint32_t ntasks, cpu_set_t *out);

/* A set as Slurm prints masks: "0x" and hex digits, no leading zeros
 * ("0x5" for CPUs 0 and 2; "0x0" for none). Truncated to len. */
void bind_mask_hex (const cpu_set_t *set, char *buf, size_t len);

/* The masks of the ntasks local tasks, comma-separated ("0x1,0x2"), for
 * SLURM_CPU_BIND_LIST when they are bound to the step's cores. Caller
 * frees; NULL with errno ENOMEM. */
char *bind_masks_text (const struct cpubind *b, const cpu_set_t *step,
                       uint32_t ntasks);

/* SLURM_CPU_BIND, SLURM_CPU_BIND_TYPE, SLURM_CPU_BIND_LIST and
 * SLURM_CPU_BIND_VERBOSE into e, as Slurm's task/affinity leaves them:
 * tasks bound to their share of the step's cores (cores, or the default)
 * read "quiet,mask_cpu:MASKS", "mask_cpu:", MASKS ('masks',
 * bind_masks_text); map_cpu "quiet,map_cpu:LIST", "map_cpu:", LIST; none
 * "quiet,none", "none", ""; cores when nothing could be bound (bind_plan
 * skipped it) "quiet,cores", "cores", "". The
 * first word is "verbose" under verbose. Nothing is set when --cpu-bind
 * was not given and nothing is bound. 0, or -1 with errno ENOMEM. */
int bind_env_set (struct env *e, const struct cpubind *b, bool bound,
                  const char *masks);

#endif
