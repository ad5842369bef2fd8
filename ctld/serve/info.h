/* info.h - the NODE_INFO and JOB_INFO answers, and giving memory back.
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

/* Bytes of job fields after which a JOB_INFO answer ends its page (the
 * frame limit is 16 MiB): however much one user keeps, every listing
 * comes in pages the protocol can carry. */
#define JOB_INFO_PAGE_BYTES (4u << 20)

/* The NODE_INFO and JOB_INFO answers (filters, bounds). JOB_INFO answers
 * one page, in job id order, from after m->after_job_id; out->more_after
 * names where the next starts, 0 when none. 0, or -1 with errno (ENOENT,
 * EINVAL, ENOMEM) and err. Clear 'out' with proto_clear. */
int node_info_build (const struct ctld *ctx, const struct msg_node_info *m,
                     struct msg_node_info_reply *out, arbor_error_t *err);
int job_info_build (const struct ctld *ctx, const struct msg_job_info *m,
                    struct msg_job_info_reply *out, arbor_error_t *err);
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
