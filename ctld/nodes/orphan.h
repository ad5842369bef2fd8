/* orphan.h - jobs a noded runs that the controller does not expect there.
 */
#ifndef ARBOR_CTLD_ORPHAN_H
#define ARBOR_CTLD_ORPHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct ctld;
struct node;

/* Node 'node' registered running 'ids': each job not expected there
 * (unknown, ended, or not on that node any more) is ended there with
 * JOB_TERMINATE and holds the node until its EPILOG_COMPLETE. */
void orphans_register (struct ctld *ctx, size_t node, const uint32_t *ids,
                       size_t n, time_t now);
/* JOB_TERMINATE of an orphan was answered (errnum 0) or failed. */
void orphan_answer (struct ctld *ctx, uint32_t job, size_t node, int errnum);
/* EPILOG_COMPLETE for 'job' from 'node': true when it ended an orphan. */
bool orphan_epilog_complete (struct ctld *ctx, size_t node, uint32_t job);
/* Every second: resend unanswered JOB_TERMINATEs; a node not responding
 * forgets its orphans (it reports them again when it registers). Returns
 * true when a node was freed. */
bool orphans_tick (struct ctld *ctx, time_t now);
/* Forget n's orphans, their JOB_TERMINATEs in flight cancelled (a node
 * no longer responding). */
void orphans_clear (struct ctld *ctx, struct node *n);

#endif
