/* coll_test.c - all-gathers over the tree of coll.c, on fake stepds.
 *
 * N struct stepd share one libev loop; mesh_send (faked here) queues the
 * frames, and the test delivers them in a shuffled order, some twice (as
 * mesh.c's resends may), until none is left. Every node must get, for
 * every round, every node's data in node order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "coll.h"
#include "mesh.h"
#include "stepd.h"

#define MAXN 40

struct frame_q {
    uint32_t src, dst, kind;
    uint64_t seq;
    char *data;
    size_t len;
};

static struct stepd nodes[MAXN];
static struct frame_q q[4096];
static size_t nq;
static char got[MAXN][8][512]; /* per node, per round: delivered data */
static int ndone[MAXN];

int mesh_send (struct stepd *sd, uint32_t dst, uint32_t kind, uint64_t seq,
               const void *data, size_t len)
{
    assert_true (nq < sizeof (q) / sizeof (q[0]));
    q[nq] = (struct frame_q){ (uint32_t)(sd - nodes), dst, kind, seq,
                              malloc (len + 1),       len };
    memcpy (q[nq].data, data, len);
    nq++;
    return 0;
}

static void done_cb (struct stepd *sd, int64_t seq, const void *data,
                     size_t len, int errnum)
{
    int n = (int)(sd - nodes);

    assert_int_equal (errnum, 0);
    assert_true (seq < 8 && len < sizeof (got[0][0]));
    memcpy (got[n][seq], data, len);
    got[n][seq][len] = '\0';
    ndone[n]++;
}

/* Deliver the queue in a shuffled order, every third frame twice. */
static void deliver_all (struct ev_loop *loop, unsigned *rnd)
{
    while (nq > 0) {
        size_t i = rand_r (rnd) % nq;
        struct frame_q f = q[i];
        q[i] = q[--nq];
        coll_recv (&nodes[f.dst], f.src, f.kind, f.seq, f.data, f.len);
        if (rand_r (rnd) % 3 == 0)
            coll_recv (&nodes[f.dst], f.src, f.kind, f.seq, f.data, f.len);
        free (f.data);
        ev_run (loop, EVRUN_NOWAIT);
    }
    ev_run (loop, EVRUN_NOWAIT);
}

static void run_rounds (uint32_t n, uint32_t width, int rounds, unsigned rnd)
{
    struct ev_loop *loop = ev_default_loop (0);
    char want[512], mine[32];

    memset (nodes, 0, sizeof (nodes));
    memset (got, 0, sizeof (got));
    memset (ndone, 0, sizeof (ndone));
    for (uint32_t i = 0; i < n; i++) {
        nodes[i].loop = loop;
        assert_int_equal (coll_init (&nodes[i], i, n, width, done_cb), 0);
    }
    for (int r = 0; r < rounds; r++) {
        want[0] = '\0';
        /* nodes join the round in a shuffled order, delivering between */
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = (k * 7 + (uint32_t)r) % n;
            snprintf (mine, sizeof (mine), "[%u.%d]", i, r);
            assert_int_equal (coll_allgather (&nodes[i], mine, strlen (mine)),
                              r);
            if (rand_r (&rnd) % 2)
                deliver_all (loop, &rnd);
        }
        deliver_all (loop, &rnd);
        for (uint32_t i = 0; i < n; i++) {
            snprintf (mine, sizeof (mine), "[%u.%d]", i, r);
            strcat (want, mine);
        }
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal (ndone[i], r + 1);
            assert_string_equal (got[i][r], want);
        }
    }
    for (uint32_t i = 0; i < n; i++)
        coll_fini (&nodes[i]);
}

static void test_one_node (void **state)
{
    run_rounds (1, 16, 3, 1);
}

/* A fence without data gives NULL and 0 (UBSan: memcpy from NULL). */
static void test_empty_data (void **state)
{
    struct ev_loop *loop = ev_default_loop (0);
    unsigned rnd = 9;

    memset (nodes, 0, sizeof (nodes));
    memset (got, 0, sizeof (got));
    memset (ndone, 0, sizeof (ndone));
    for (uint32_t i = 0; i < 3; i++) {
        nodes[i].loop = loop;
        coll_init (&nodes[i], i, 3, 2, done_cb);
    }
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal (coll_allgather (&nodes[i], NULL, 0), 0);
    deliver_all (loop, &rnd);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal (ndone[i], 1);
        assert_string_equal (got[i][0], "");
        coll_fini (&nodes[i]);
    }
}

static void test_binary_tree (void **state)
{
    run_rounds (13, 2, 4, 2);
}

static void test_wide_and_deep (void **state)
{
    run_rounds (MAXN, 3, 5, 3);
    run_rounds (MAXN, 16, 5, 4);
    run_rounds (2, 1, 5, 5);
}

/* A GATHER from a node that is not a child, a BCAST from one that is not
 * the parent: ignored. */
static void test_strangers_ignored (void **state)
{
    struct ev_loop *loop = ev_default_loop (0);

    memset (nodes, 0, sizeof (nodes));
    memset (ndone, 0, sizeof (ndone));
    for (uint32_t i = 0; i < 3; i++) {
        nodes[i].loop = loop;
        coll_init (&nodes[i], i, 3, 2, done_cb);
    }
    coll_recv (&nodes[1], 2, MESH_GATHER, 0, "x", 1);
    coll_recv (&nodes[1], 2, MESH_BCAST, 0, "x", 1);
    coll_recv (&nodes[0], 1, MESH_BCAST, 0, "x", 1);
    ev_run (loop, EVRUN_NOWAIT);
    assert_int_equal (nq, 0);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal (ndone[i], 0);
        coll_fini (&nodes[i]);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_one_node),
        cmocka_unit_test (test_empty_data),
        cmocka_unit_test (test_binary_tree),
        cmocka_unit_test (test_wide_and_deep),
        cmocka_unit_test (test_strangers_ignored),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
