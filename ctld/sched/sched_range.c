/* sched_range.c - a job that asked -N MIN-MAX gets as many nodes of its
 * range as it can have now, as Slurm documents it ("as many nodes as
 * possible within the range specified and without delaying the
 * initiation of the job").
 *
 * The largest count is tried first, then the smallest (if even that does
 * not fit, the job waits as any other), then a binary search between
 * them: O(log nodes) selections of O(nodes) each, whatever range was
 * asked. A job without -n runs one task per node (or --ntasks-per-node),
 * so its task count follows the node count it gets.
 */
#include <errno.h>

#include "job/job.h"
#include "sched/sched_range.h"
#include "sched/select.h"

/* Select exactly k nodes for j. */
static int range_try (const struct select_node *v, size_t n,
                      const struct job *j, uint32_t k,
                      struct select_result *res, arbor_error_t *err)
{
    struct select_req r = j->req;

    r.nnodes = k;
    if (j->range.per_node_tasks)
        r.ntasks = k * (r.ntasks_per_node ? r.ntasks_per_node : 1);
    return select_run (v, n, &r, SELECT_NOW, res, err);
}

/* The largest count worth trying: no more than the partition's nodes,
 * nor than the tasks when -n fixed them. */
static uint32_t range_top (const struct job *j, size_t n)
{
    uint32_t hi = j->range.max;

    if (hi > n)
        hi = (uint32_t)n;
    if (!j->range.per_node_tasks && !j->req.overcommit && hi > j->req.ntasks)
        hi = j->req.ntasks;
    return hi < j->range.min ? j->range.min : hi;
}

int sched_range_select (const struct select_node *v, size_t n,
                        const struct job *j, struct select_result *res,
                        arbor_error_t *err)
{
    uint32_t lo = j->range.min, hi = range_top (j, n);
    struct select_result mid_res;

    if (range_try (v, n, j, hi, res, err) == 0)
        return 0;
    if (hi == lo || range_try (v, n, j, lo, res, err) < 0)
        return -1; /* errno and err of the smallest: it waits */
    while (lo + 1 < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        arbor_error_t ignored;
        if (range_try (v, n, j, mid, &mid_res, &ignored) == 0) {
            select_result_clear (res);
            *res = mid_res;
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 0;
}

void sched_range_reset (struct job *j)
{
    j->req.nnodes = j->range.min;
    if (j->range.per_node_tasks)
        j->req.ntasks = j->range.min
                        * (j->req.ntasks_per_node ? j->req.ntasks_per_node : 1);
}

void sched_range_got (struct job *j, const struct select_result *res)
{
    j->req.nnodes = (uint32_t)res->nnodes;
    if (j->range.per_node_tasks)
        j->req.ntasks = res->ntasks;
}
