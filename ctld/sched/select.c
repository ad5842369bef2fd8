/* select.c - choosing nodes and cores for a job or a step; see select.h.
 *
 * Everything here is arithmetic over per-node capacities (how many tasks
 * of the request a node can hold), so the cost is O(nodes) whatever the
 * task count, and hostile numbers (4 billion tasks) are just "too many".
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sched/select.h"

#define NOT_AVAIL "Requested node configuration is not available"

int select_normalize (struct select_req *r, size_t nrequired,
                      arbor_error_t *err)
{
    uint64_t per = r->ntasks_per_node ? r->ntasks_per_node : 1;

    if (r->cpus_per_task == 0)
        r->cpus_per_task = 1;
    if (r->overcommit && r->nnodes == 0 && r->ntasks > 0)
        r->nnodes = nrequired > 0 ? (uint32_t)nrequired : 1;
    if (r->nnodes == 0 && r->ntasks == 0)
        r->nnodes = nrequired > 0 ? (uint32_t)nrequired : 1;
    if (r->ntasks == 0) {
        if ((uint64_t)r->nnodes * per > UINT32_MAX) {
            errno = EINVAL;
            return errprintf (err, "too many tasks requested");
        }
        r->ntasks = (uint32_t)(r->nnodes * per);
    }
    if (r->nnodes > r->ntasks) {
        errno = EINVAL;
        return errprintf (err, "cannot run %u task(s) on %u nodes", r->ntasks,
                          r->nnodes);
    }
    if (r->nnodes > 0 && nrequired > r->nnodes) {
        errno = EINVAL;
        return errprintf (err,
                          "node list names %zu nodes but only %u "
                          "requested",
                          nrequired, r->nnodes);
    }
    if (r->nnodes == 0 && nrequired > r->ntasks) {
        errno = EINVAL;
        return errprintf (err,
                          "node list names %zu nodes, more than the "
                          "%u task(s)",
                          nrequired, r->ntasks);
    }
    if (r->nnodes > 0 && r->ntasks_per_node > 0
        && (r->ntasks + (uint64_t)r->nnodes - 1) / r->nnodes
               > r->ntasks_per_node) {
        errno = EINVAL;
        return errprintf (err,
                          "%u tasks on %u nodes exceed "
                          "ntasks-per-node %u",
                          r->ntasks, r->nnodes, r->ntasks_per_node);
    }
    return 0;
}

/* Tasks of 'r' that node 'nd' can hold in 'mode'. */
static uint64_t node_cap (const struct select_node *nd,
                          const struct select_req *r, enum select_mode mode)
{
    uint32_t cpus = mode == SELECT_EVER ? nd->cpus : nd->free_cpus;
    uint64_t mem = mode == SELECT_EVER ? nd->memory : nd->free_memory;
    uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;
    uint64_t cap;

    if (nd->excluded || (mode == SELECT_NOW && !nd->usable))
        return 0;
    if (r->exclusive && cpus < nd->cpus)
        return 0;
    if (r->mem_mb > 0 && mem < r->mem_mb)
        return 0;
    if (cpus < r->mincpus || nd->tmp_mb < r->tmp_mb)
        return 0;
    if (r->mem_per_cpu_mb > 0) {
        uint64_t by_mem = mem / r->mem_per_cpu_mb;
        if (r->exclusive && by_mem < nd->cpus)
            return 0; /* exclusive takes, and pays for, every core */
        if (by_mem < cpus)
            cpus = (uint32_t)by_mem;
    }
    cap = cpus / cpt;
    if (r->overcommit && cap > 0)
        cap = UINT32_MAX; /* tasks share the cores */
    if (r->ntasks_per_node > 0 && cap > r->ntasks_per_node)
        cap = r->ntasks_per_node;
    if (nd->gres_capped && cap > nd->gres_tasks)
        cap = nd->gres_tasks;
    return cap;
}

static int result_alloc (struct select_result *res, size_t n)
{
    memset (res, 0, sizeof (*res));
    res->idx = calloc (n ? n : 1, sizeof (*res->idx));
    res->tasks = calloc (n ? n : 1, sizeof (*res->tasks));
    res->cpus = calloc (n ? n : 1, sizeof (*res->cpus));
    if (!res->idx || !res->tasks || !res->cpus) {
        select_result_clear (res);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void select_result_clear (struct select_result *res)
{
    int saved = errno;

    if (!res)
        return;
    free (res->idx);
    free (res->tasks);
    free (res->cpus);
    free (res->gres_share);
    memset (res, 0, sizeof (*res));
    errno = saved;
}

/* Higher pref first, then array order (qsort_r is not stable). */
static int pref_cmp (const void *a, const void *b, void *arg)
{
    const struct select_node *nodes = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    if (nodes[x].pref != nodes[y].pref)
        return nodes[x].pref > nodes[y].pref ? -1 : 1;
    return x < y ? -1 : x > y;
}

bool select_rank (const struct select_node *nodes, size_t n, size_t *rank)
{
    bool prefs = false;

    for (size_t i = 0; i < n; i++) {
        rank[i] = i;
        prefs |= nodes[i].pref != 0;
    }
    if (prefs)
        qsort_r (rank, n, sizeof (*rank), pref_cmp, (void *)nodes);
    return prefs;
}

/* Candidate order: required nodes first, then the others in 'rank'
 * order (array order when NULL). Writes the order into 'order' and
 * returns its length. */
static size_t candidate_order (const struct select_node *nodes, size_t n,
                               const size_t *rank, size_t *order)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++)
        if (nodes[i].required)
            order[k++] = i;
    for (size_t r = 0; r < n; r++) {
        size_t i = rank ? rank[r] : r;
        if (!nodes[i].required && !nodes[i].excluded)
            order[k++] = i;
    }
    return k;
}

static int fail (enum select_mode mode, arbor_error_t *err, int errnum,
                 const char *fmt, const char *name, uint32_t a, uint32_t b)
{
    if (mode == SELECT_EVER && err) {
        char detail[120];
        if (name)
            snprintf (detail, sizeof (detail), fmt, name, a, b);
        else
            snprintf (detail, sizeof (detail), fmt, a, b);
        errprintf (err, "%s: %s", NOT_AVAIL, detail);
    } else
        errprintf (err, "Resources");
    errno = errnum;
    return -1;
}

/* -n without -N: fill the candidates in order, one task on each required
 * node first. 'pick' receives tasks per node index (0 = not chosen). */
static int select_flexible (const struct select_node *nodes, size_t n,
                            const struct select_req *r, enum select_mode mode,
                            const size_t *order, size_t norder, uint32_t *pick,
                            arbor_error_t *err)
{
    uint64_t left = r->ntasks;
    uint64_t cap;

    for (size_t k = 0; k < norder && nodes[order[k]].required; k++) {
        const struct select_node *nd = &nodes[order[k]];
        if (node_cap (nd, r, mode) < 1 || left == 0)
            return fail (mode, err, ENOSPC,
                         "node %s cannot hold %u task(s) of %u cpu(s)",
                         nd->name, 1, r->cpus_per_task);
        pick[order[k]] = 1;
        left--;
    }
    for (size_t k = 0; k < norder && left > 0; k++) {
        size_t i = order[k];
        cap = node_cap (&nodes[i], r, mode);
        if (cap <= pick[i])
            continue;
        cap -= pick[i];
        if (cap > left)
            cap = left;
        pick[i] += (uint32_t)cap;
        left -= cap;
    }
    if (left > 0)
        return fail (mode, err, ENOSPC,
                     "%u task(s) of %u cpu(s) do not fit on the nodes", NULL,
                     r->ntasks, r->cpus_per_task);
    (void)n;
    return 0;
}

/* -N and -n: exactly nnodes nodes; lo tasks on each, one more on the first
 * ntasks % nnodes of them. A node able to take hi tasks is counted as a
 * "big" one while big ones are still needed (a greedy that succeeds
 * whenever an assignment exists). */
static int select_fixed (const struct select_node *nodes, size_t n,
                         const struct select_req *r, enum select_mode mode,
                         const size_t *order, size_t norder, uint32_t *pick,
                         arbor_error_t *err)
{
    uint32_t lo = r->ntasks / r->nnodes;
    uint32_t nbig = r->ntasks % r->nnodes;
    uint32_t hi = lo + (nbig ? 1 : 0);
    uint32_t big = 0, small = 0, extra;

    for (size_t k = 0; k < norder && big + small < r->nnodes; k++) {
        size_t i = order[k];
        uint64_t cap = node_cap (&nodes[i], r, mode);
        if (cap >= hi && big < nbig)
            big++;
        else if (cap >= lo && small < r->nnodes - nbig)
            small++;
        else if (nodes[i].required)
            return fail (mode, err, ENOSPC,
                         "node %s cannot hold %u task(s) of %u cpu(s)",
                         nodes[i].name, cap >= lo ? hi : lo, r->cpus_per_task);
        else
            continue;
        pick[i] = cap >= hi ? hi : lo; /* remembers who can be big */
    }
    if (big + small < r->nnodes)
        return fail (mode, err, ENOSPC,
                     "%u node(s) with room for %u task(s) each are needed",
                     NULL, r->nnodes, hi);
    /* Final layout in node order: the first nbig able ones get hi. */
    extra = nbig;
    for (size_t i = 0; i < n; i++) {
        if (pick[i] == 0)
            continue;
        if (extra > 0 && pick[i] == hi) {
            extra--;
            continue;
        }
        pick[i] = lo;
    }
    return 0;
}

/* Choose N nodes of 'order' for select_block, one task each, their room
 * (tasks they can hold) added up into *room: the number chosen. A
 * required node without room fails the choice (-1). */
static int block_choose (const struct select_node *nodes,
                         const struct select_req *r, enum select_mode mode,
                         const size_t *order, size_t norder, uint32_t *pick,
                         uint64_t *room, arbor_error_t *err)
{
    uint32_t got = 0;

    *room = 0;
    for (size_t k = 0; k < norder && got < r->nnodes; k++) {
        size_t i = order[k];
        uint64_t cap = node_cap (&nodes[i], r, mode);
        if (cap == 0 && nodes[i].required)
            return fail (mode, err, ENOSPC,
                         "node %s cannot hold %u task(s) of %u cpu(s)",
                         nodes[i].name, 1, r->cpus_per_task);
        if (cap == 0)
            continue;
        pick[i] = 1;
        *room += cap;
        got++;
    }
    return (int)got;
}

struct block_rank {
    const struct select_node *nodes;
    const uint64_t *cap;
};

/* Required nodes first, then the most room, then array order. */
static int block_cmp (const void *a, const void *b, void *arg)
{
    const struct block_rank *br = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    if (br->nodes[x].required != br->nodes[y].required)
        return br->nodes[x].required ? -1 : 1;
    if (br->cap[x] != br->cap[y])
        return br->cap[x] > br->cap[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* 'order' by block_cmp, for when the first N nodes have too little room.
 * -1 with errno ENOMEM. */
static int block_rank_by_room (const struct select_node *nodes, size_t n,
                               const struct select_req *r,
                               enum select_mode mode, size_t *order,
                               size_t norder)
{
    uint64_t *cap = calloc (n ? n : 1, sizeof (*cap));
    struct block_rank br = { nodes, cap };

    if (!cap)
        return -1;
    for (size_t i = 0; i < n; i++)
        cap[i] = node_cap (&nodes[i], r, mode);
    qsort_r (order, norder, sizeof (*order), block_cmp, &br);
    free (cap);
    return 0;
}

/* Tasks the chosen nodes hold when each takes at most 'level'. */
static uint64_t block_at_level (const struct select_node *nodes, size_t n,
                                const struct select_req *r,
                                enum select_mode mode, const uint32_t *pick,
                                uint64_t level)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t cap = pick[i] ? node_cap (&nodes[i], r, mode) : 0;
        sum += cap < level ? cap : level;
    }
    return sum;
}

/* The chosen nodes' task counts, as Slurm's step layout counts them (its
 * default, a cyclic count over the nodes, then the ranks numbered by -m):
 * round after round each node with room takes one more task, the last
 * round in node order. In closed form: each takes min(room, L), for the
 * highest L that does not exceed the tasks, and the first nodes with
 * room left take one more each until all are placed. */
static void block_count (const struct select_node *nodes, size_t n,
                         const struct select_req *r, enum select_mode mode,
                         uint32_t *pick)
{
    uint64_t lo = 1, hi = UINT32_MAX, extra;

    while (lo < hi) { /* the highest level L placing at most ntasks */
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (block_at_level (nodes, n, r, mode, pick, mid) <= r->ntasks)
            lo = mid;
        else
            hi = mid - 1;
    }
    extra = r->ntasks - block_at_level (nodes, n, r, mode, pick, lo);
    for (size_t i = 0; i < n; i++) {
        uint64_t cap = pick[i] ? node_cap (&nodes[i], r, mode) : 0;
        if (!pick[i])
            continue;
        pick[i] = (uint32_t)(cap < lo ? cap : lo);
        if (extra > 0 && cap > lo) {
            pick[i]++;
            extra--;
        }
    }
}

/* A step's -N and -n over what its job holds, as Slurm lays out a step:
 * N nodes, and on them counts that never exceed a node's room
 * (block_count): 5 tasks where the job holds 4 and 1 cores are 4+1,
 * where the even spread of a job's selection (3+2) cannot fit; 5 where
 * it holds 4 and 4 are still 3+2. The nodes are the first N with room,
 * or, when those have too little room in all, the N with the most. */
static int select_block (const struct select_node *nodes, size_t n,
                         const struct select_req *r, enum select_mode mode,
                         size_t *order, size_t norder, uint32_t *pick,
                         arbor_error_t *err)
{
    uint64_t room;
    int got = block_choose (nodes, r, mode, order, norder, pick, &room, err);

    if (got == (int)r->nnodes && room < r->ntasks) {
        memset (pick, 0, n * sizeof (*pick));
        if (block_rank_by_room (nodes, n, r, mode, order, norder) < 0) {
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
        got = block_choose (nodes, r, mode, order, norder, pick, &room, err);
    }
    if (got < 0)
        return -1;
    if (got < (int)r->nnodes)
        return fail (mode, err, ENOSPC,
                     "%u node(s) with room for %u task(s) each are needed",
                     NULL, r->nnodes, 1);
    if (room < r->ntasks)
        return fail (mode, err, ENOSPC,
                     "%u task(s) of %u cpu(s) do not fit on the nodes", NULL,
                     r->ntasks, r->cpus_per_task);
    block_count (nodes, n, r, mode, pick);
    return 0;
}

/* The per-job units (--gpus) over the chosen nodes, in node order, each
 * giving what it can: -1 (ENOSPC) when they give too few. */
static int share_units (const struct select_node *nodes, size_t n,
                        const struct select_req *r, const uint32_t *pick,
                        struct select_result *res, enum select_mode mode,
                        arbor_error_t *err)
{
    uint64_t left = r->gres_job;

    if (!left)
        return 0;
    if (!(res->gres_share = calloc (res->nnodes ? res->nnodes : 1,
                                    sizeof (*res->gres_share)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (size_t k = 0, i = 0; i < n && left; i++) {
        if (!pick[i])
            continue;
        uint32_t give =
            nodes[i].gres_units < left ? nodes[i].gres_units : (uint32_t)left;
        res->gres_share[k++] = give;
        left -= give;
    }
    if (left)
        return fail (mode, err, ENOSPC,
                     "%u GPU(s) are needed on the %u chosen node(s)", NULL,
                     r->gres_job, (uint32_t)res->nnodes);
    return 0;
}

static int fill_result (const struct select_node *nodes, size_t n,
                        const struct select_req *r, const uint32_t *pick,
                        struct select_result *res)
{
    size_t count = 0;
    uint32_t cpt = r->cpus_per_task ? r->cpus_per_task : 1;

    for (size_t i = 0; i < n; i++)
        if (pick[i] > 0)
            count++;
    if (result_alloc (res, count) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (pick[i] == 0)
            continue;
        res->idx[res->nnodes] = i;
        res->tasks[res->nnodes] = pick[i];
        res->cpus[res->nnodes] = r->exclusive    ? nodes[i].cpus
                                 : r->overcommit ? cpt
                                                 : pick[i] * cpt;
        if (res->cpus[res->nnodes] < r->mincpus)
            res->cpus[res->nnodes] = r->mincpus; /* node_cap checked it */
        res->ntasks += pick[i];
        res->nnodes++;
    }
    return 0;
}

int select_run (const struct select_node *nodes, size_t n,
                const struct select_req *r, enum select_mode mode,
                struct select_result *res, arbor_error_t *err)
{
    size_t *rank = NULL;
    size_t i = 0;
    int rc;

    /* Without prefs (the usual case, and every step) nothing is ranked */
    while (i < n && nodes[i].pref == 0)
        i++;
    if (i < n) {
        if (!(rank = malloc (n * sizeof (*rank)))) {
            memset (res, 0, sizeof (*res));
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
        (void)select_rank (nodes, n, rank);
    }
    rc = select_run_ranked (nodes, n, rank, r, mode, res, err);
    free (rank);
    return rc;
}

int select_run_ranked (const struct select_node *nodes, size_t n,
                       const size_t *rank, const struct select_req *r,
                       enum select_mode mode, struct select_result *res,
                       arbor_error_t *err)
{
    size_t *order = calloc (n ? n : 1, sizeof (*order));
    uint32_t *pick = calloc (n ? n : 1, sizeof (*pick));
    size_t norder;
    int rc = -1;

    memset (res, 0, sizeof (*res));
    if (!order || !pick) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    if (r->ntasks == 0 || (uint64_t)r->cpus_per_task * r->ntasks == 0) {
        errno = EINVAL;
        errprintf (err, "request not normalized");
        goto out;
    }
    norder = candidate_order (nodes, n, rank, order);
    if (r->nnodes > 0 && r->step_layout && !r->overcommit)
        rc = select_block (nodes, n, r, mode, order, norder, pick, err);
    else if (r->nnodes > 0)
        rc = select_fixed (nodes, n, r, mode, order, norder, pick, err);
    else
        rc = select_flexible (nodes, n, r, mode, order, norder, pick, err);
    if (rc == 0 && (rc = fill_result (nodes, n, r, pick, res)) < 0)
        errprintf (err, "out of memory");
    if (rc == 0 && (rc = share_units (nodes, n, r, pick, res, mode, err)) < 0)
        select_result_clear (res);
out:
    free (order);
    free (pick);
    return rc;
}

int select_nodes (const struct select_node *nodes, size_t n,
                  const struct select_req *r, struct select_result *res,
                  arbor_error_t *err)
{
    struct select_result tmp;

    if (select_run (nodes, n, r, SELECT_NOW, res, err) == 0)
        return 0;
    if (errno != ENOSPC)
        return -1;
    if (select_run (nodes, n, r, SELECT_EVER, &tmp, err) == 0) {
        select_result_clear (&tmp);
        errprintf (err, "Resources");
        errno = EBUSY;
        return -1;
    }
    if (errno == ENOSPC)
        errno = EINVAL;
    return -1;
}

bool select_req_same (const struct select_req *a, const struct select_req *b)
{
    return a->nnodes == b->nnodes && a->ntasks == b->ntasks
           && a->cpus_per_task == b->cpus_per_task
           && a->ntasks_per_node == b->ntasks_per_node && a->mem_mb == b->mem_mb
           && a->mem_per_cpu_mb == b->mem_per_cpu_mb
           && a->exclusive == b->exclusive && a->overcommit == b->overcommit
           && a->step_layout == b->step_layout && a->mincpus == b->mincpus
           && a->gres_job == b->gres_job && a->tmp_mb == b->tmp_mb;
}

uint64_t select_req_cpus (const struct select_req *r)
{
    return (uint64_t)(r->ntasks ? r->ntasks : 1)
           * (r->cpus_per_task ? r->cpus_per_task : 1);
}

uint64_t select_node_mem (const struct select_req *r, uint32_t cpus)
{
    return r->mem_mb ? r->mem_mb : r->mem_per_cpu_mb * cpus;
}
