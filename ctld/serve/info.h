/* info.h - the NODE_INFO and STEP_INFO answers, and giving memory back
 * (JOB_INFO's: job_info.h).
 */
#ifndef ARBOR_CTLD_INFO_H
#define ARBOR_CTLD_INFO_H

#include <stddef.h>

#include "error.h"
#include "proto.h"

struct ctld;

#define CTLD_TRIM_MIN                                     \
    (1u << 20) /* bytes of answer after which the heap is \
                  trimmed (malloc_trim) */

/* The NODE_INFO answer. 0, or -1 with errno (EINVAL, ENOMEM) and err.
 * Clear 'out' with proto_clear. */
int node_info_build (const struct ctld *ctx, const struct msg_node_info *m,
                     struct msg_node_info_reply *out, arbor_error_t *err);
/* STEP_INFO: the running steps of the active jobs the filters pass (a
 * job id also names every task of an array job). */
int step_info_build (const struct ctld *ctx, const struct msg_step_info *m,
                     struct msg_step_info_reply *out, arbor_error_t *err);
/* Give freed heap back to the system after a big answer or purge
 * ('bytes': about how much was freed; small amounts are not worth it). */
void ctld_trim (size_t bytes);
/* Keep big buffers out of the heap (a fixed mmap threshold: glibc's
 * grows with every big free, then keeps that much heap). Once, at start. */
void ctld_mem_init (void);

#endif
