/* loadsel.h - load-aware node selection (SelectLoadParameters).
 *
 * By default a job takes the first nodes of its partition that fit, in
 * configuration order (Slurm's). With SelectLoadParameters set, the
 * nodes that fit are taken best score first, where a node's score
 * weighs the CPU it offers against the memory it has free, as the nodeds
 * last reported them (NODE_REGISTER, noded/load.h):
 *
 *   cpu  = CpuSpeed / fastest CpuSpeed x idle CPUs / CPUs,
 *          idle CPUs = CPUs - load (at least 0);
 *          0 when idle CPUs < min_idle_cpus
 *   ram  = free MB / RealMemory (at most 1);
 *          0 when free MB < min_free_mem
 *   score = (cpu_weight x cpu + ram_weight x ram) / (cpu_weight + ram_weight)
 *
 * SelectLoadParameters=cpu_weight=6,ram_weight=4,min_free_mem=MB,
 * min_idle_cpus=N (defaults 6, 4, 0, 0; at least one weight above 0).
 * A node that has not reported yet counts as idle with all its memory
 * free. Ties keep configuration order. The score only orders candidates:
 * a loaded node still takes work when nothing better fits.
 */
#ifndef ARBOR_CTLD_LOADSEL_H
#define ARBOR_CTLD_LOADSEL_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct ctld;
struct node;

#define LOADSEL_SCALE 10000u /* a score of 1 */

struct loadsel {
    bool on; /* SelectLoadParameters is set */
    uint32_t cpu_weight, ram_weight;
    uint32_t min_free_mem; /* MB */
    uint32_t min_idle_cpus;
    uint32_t fastest; /* the largest CpuSpeed of the nodes */
};

/* Parse SelectLoadParameters ('text' NULL: off). -1 with err naming
 * the word at fault. */
int loadsel_parse (const char *text, struct loadsel *out, arbor_error_t *err);
/* ctx->loadsel from the configuration (after nodes_init). -1 with err. */
int loadsel_configure (struct ctld *ctx, arbor_error_t *err);

/* Node n's score in 1..LOADSEL_SCALE + 1 (select.h's pref: higher goes
 * first), or 0 when load-aware selection is off. */
uint32_t loadsel_pref (const struct loadsel *ls, const struct node *n);

#endif
