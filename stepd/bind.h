/* bind.h - task binding for TaskPlugin=affinity: parsing the step's core
 * list ("0-1,4") into a cpu_set_t, deciding when binding must be skipped
 * because the node's CPUs are not this host's (emulated nodes), and which
 * cores each local task gets. No I/O, no globals, no logging: callers pass
 * the host's facts in. Unit-tested in stepd/test/bind_test.c.
 */
#ifndef ARBOR_STEPD_BIND_H
#define ARBOR_STEPD_BIND_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

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

#endif
