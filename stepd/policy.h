/* policy.h - the stepd's pure decisions, unit-tested without a cluster.
 *
 * Naming a step ("5.0", "5.batch") and the banner a cancelled step prints;
 * whether the step's container nests under node_<name> (emulated nodes
 * sharing one host); and task binding for TaskPlugin=affinity: parsing
 * the step's core list ("0-1,4") into a cpu_set_t and deciding when
 * binding must be skipped because the node's CPUs are not this host's.
 * No I/O, no globals, no logging: callers pass the host's facts in.
 */
#ifndef ARBOR_STEPD_POLICY_H
#define ARBOR_STEPD_POLICY_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* cpu_set_t */
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "conf.h"
#include "error.h"

/* "5.0", or "5.batch" / "5.extern" / "5.interactive" for the special step
 * ids, into buf (32 bytes are always enough). Returns buf. */
const char *step_name (char *buf, size_t size, uint32_t job, uint32_t step);

/* The line a terminated step prints on its first task's stderr, as
 * Slurm's slurmstepd does, with a trailing newline:
 *   "arbor-stepd: error: *** STEP 5.0 ON node1 CANCELLED AT
 *    2026-11-22T03:00:00 ***\n"
 * 'reason' is the STEPD_TERMINATE reason word (NULL or "": CANCELLED);
 * the time is local, to the second. Returns the length (truncated to
 * size - 1), or -1 with errno EINVAL. */
int term_banner (char *buf, size_t size, uint32_t job, uint32_t step,
                 const char *node, const char *reason, time_t when);

/* The emulation rule: true when 'node' is configured with a loopback
 * NodeAddr (127.0.0.0/8, ::1 or "localhost"; NodeAddr defaults to the
 * node's name). Such nodes are arbor local's emulated nodes, several per
 * host, so each needs its own node_<name> cgroup level. Real nodes never
 * listen on loopback addresses. Unknown node: false. */
bool contain_nests (const struct conf *c, const char *node);

/* Parse a core list ("0-1,4", "3", "") into 'set' (cleared first).
 * Returns the number of cores (0 for ""), or -1 with errno EINVAL and err
 * for malformed text, a reversed range or an id >= CPU_SETSIZE. */
int cores_parse (const char *s, cpu_set_t *set, arbor_error_t *err);

/* Does TaskPlugin (Slurm-style list: "affinity", "task/affinity",
 * "task/affinity,task/cgroup") ask for binding? */
bool task_plugin_binds (const char *task_plugin);

/* What the host looks like, for bind_plan(). */
struct bind_host {
    long online_cpus;           /* sysconf(_SC_NPROCESSORS_ONLN) */
    const cpu_set_t *allowed;   /* the stepd's own affinity, NULL: all */
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
