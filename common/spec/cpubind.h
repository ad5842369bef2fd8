/* cpubind.h - srun --cpu-bind values (and SLURM_CPU_BIND), parsed once by
 * the launcher, to refuse a typo before anything is allocated, and again
 * by each stepd, which binds the tasks (stepd/bind.c).
 *
 *     [{quiet|verbose},]{none|cores|map_cpu:LIST}
 *
 * as Slurm spells them: "q[uiet]", "v[erbose]", "no[ne]" may be
 * abbreviated, and "verbose" or "quiet" alone keep the default binding.
 * LIST is comma-separated CPU ids, decimal or hexadecimal with "0x", each
 * optionally followed by "*N" for N repetitions ("0*4,3*4"); local task i
 * of every node gets CPU LIST[i % length]. Whether those CPUs are the
 * step's is only known on the node (stepd/bind.c checks it there).
 * Pure functions: no I/O, no globals.
 */
#ifndef ARBOR_CPUBIND_H
#define ARBOR_CPUBIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

/* Longest expanded map_cpu list, and the largest CPU id in it. */
#define CPUBIND_MAX_MAP 65536u
#define CPUBIND_MAX_CPU 65535u

enum cpubind_type {
    CPUBIND_DEFAULT = 0, /* not given: TaskPlugin decides (cores) */
    CPUBIND_NONE,
    CPUBIND_CORES,
    CPUBIND_MAP,
};

struct cpubind {
    enum cpubind_type type;
    bool verbose;
    uint32_t *map; /* CPUBIND_MAP: CPU ids, repetitions expanded */
    size_t nmap;
    char *list; /* CPUBIND_MAP: LIST as given (SLURM_CPU_BIND_LIST) */
};

/* Parse s ("" or NULL: CPUBIND_DEFAULT) into *b, which the caller clears
 * with cpubind_clear. Returns 0, or -1 with errno EINVAL and err
 * ("invalid --cpu-bind 'x' (none, cores or map_cpu:LIST, optionally after
 * verbose,)") or ENOMEM; on failure *b is left empty. */
int cpubind_parse (const char *s, struct cpubind *b, arbor_error_t *err);

/* Free what *b holds and empty it. NULL-safe; keeps errno. */
void cpubind_clear (struct cpubind *b);

/* The canonical text of *b ("verbose,map_cpu:0,1", "none", "" for the
 * default), as sent on the wire. Caller frees; NULL with errno ENOMEM. */
char *cpubind_text (const struct cpubind *b);

#endif
