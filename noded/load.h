/* load.h - this node's CPU load and free memory, for NODE_REGISTER.
 *
 * The controller's load-aware selection (ctld/sched/loadsel.h) and `arbor info`
 * / `arbor control show node` (CPULoad, FreeMem) use them. A real node
 * reports the host's 1-minute load average (/proc/loadavg) and
 * MemAvailable (/proc/meminfo). Emulated nodes share one host, whose load
 * says nothing about any one of them, so an emulated node reports the
 * load of its own work instead: its stepds' descendants that are running
 * or runnable (state R), and its configured RealMemory less their
 * resident memory.
 */
#ifndef ARBOR_NODED_LOAD_H
#define ARBOR_NODED_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct noded;

#define LOAD_UNKNOWN UINT32_MAX /* not measured: the ctld shows N/A */

/* CPU load in hundredths (1.5 -> 150) and free memory in MB. */
void load_measure (const struct noded *nd, uint32_t *cpu_load,
                   uint32_t *free_mem);

/* ---- pure parts, for the unit tests ---------------------------------- */

/* The first field of /proc/loadavg in hundredths, or LOAD_UNKNOWN. */
uint32_t load_parse_loadavg (const char *text);
/* MemAvailable of /proc/meminfo in MB, or LOAD_UNKNOWN. */
uint32_t load_parse_meminfo (const char *text);

struct load_proc {
    pid_t pid, ppid;
    char state; /* as in /proc/PID/stat: R, S, D, Z... */
    uint64_t rss_kb;
};

/* Parse /proc/PID/stat into 'p'. -1 when malformed. */
int load_parse_stat (const char *text, long page_kb, struct load_proc *p);

/* Over 'procs' (sorted by pid, as load_sort makes them): how many
 * descendants of the 'roots' are in state R, and their resident KB. The
 * roots themselves are not counted. */
void load_tree (const struct load_proc *procs, size_t n, const pid_t *roots,
                size_t nroots, uint32_t *running, uint64_t *rss_kb);
void load_sort (struct load_proc *procs, size_t n);

/* Walk the process trees under 'roots' through /proc's children files:
 * how many descendants there are ('count'), how many are in state R, and
 * their resident KB; the roots themselves are not counted. 0, or -1 with
 * errno ENOENT (the kernel has no /proc/PID/task/TID/children) or ENOMEM. */
int load_descendants (const pid_t *roots, size_t nroots, uint32_t *running,
                      uint64_t *rss_kb, size_t *count);

#endif
