/* backfill_test.c - the availability profile (profile.c) and the
 * backfill pass (backfill.c) on small hand-made cases: conservative
 * never lets a lower priority job delay any reserved one; EASY protects
 * only the head of each partition; cores and memory both bound; and
 * SchedulerParameters are checked. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "sched/backfill.h"
#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/job.h"
#include "sched/profile.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"

static struct outbox outbox;

/* ---- the profile ----------------------------------------------------------
 */

static void test_profile (void **state)
{
    uint32_t cpus[2] = { 1, 4 }, c[2];
    uint32_t mem[2] = { 100, 400 }, m[2];
    struct profile p;

    assert_int_equal (profile_init (&p, 2, 1000, cpus, mem), 0);
    /* node 0's job ends at 1600; node 1 reserved 3 cores [1300, 1900) */
    assert_int_equal (profile_release (&p, 1600, 0, 3, 300), 0);
    assert_int_equal (profile_reserve (&p, 1300, 1900, 1, 3, 200), 0);
    assert_int_equal (p.nsegs, 4); /* 1000 1300 1600 1900 */
    assert_int_equal (profile_window (&p, 0, 1300, c, m), 5);
    assert_int_equal (c[0], 1);
    assert_int_equal (c[1], 4);
    assert_int_equal (profile_window (&p, 0, 1700, c, m), 2);
    assert_int_equal (c[0], 1);
    assert_int_equal (c[1], 1);
    assert_int_equal (m[1], 200);
    assert_int_equal (profile_window (&p, 2, PROFILE_FOREVER, c, m), 5);
    assert_int_equal (c[0], 4);
    assert_int_equal (c[1], 1);
    assert_int_equal (profile_window_total (&p, 3, PROFILE_FOREVER), 8);
    profile_free (&p);
}

/* Blocks (profile_blocks) change how a window is read, never what it
 * says: the same random releases and reservations on a profile with
 * blocks and one without give the same window from every segment, for
 * ends inside blocks, on their edges and past the last one. */
static void test_profile_blocks (void **state)
{
    enum { N = 5 };
    uint32_t cpus[N], mem[N], c1[N], m1[N], c2[N], m2[N];
    struct profile a, b;
    unsigned seed = 7;

    (void)state;
    for (size_t k = 0; k < N; k++) {
        cpus[k] = 8;
        mem[k] = 800;
    }
    assert_int_equal (profile_init (&a, N, 0, cpus, mem), 0);
    assert_int_equal (profile_init (&b, N, 0, cpus, mem), 0);
    assert_int_equal (profile_blocks (&b, 40, 400), 0);
    for (int op = 0; op < 300; op++) {
        time_t t0 = 10 * (rand_r (&seed) % 50);
        time_t t1 = t0 + 10 * (1 + rand_r (&seed) % 30);
        size_t node = (size_t)rand_r (&seed) % N;
        uint32_t n = (uint32_t)rand_r (&seed) % 4;
        if (op % 3 == 0) {
            assert_int_equal (profile_release (&a, t0, node, n, 10 * n), 0);
            assert_int_equal (profile_release (&b, t0, node, n, 10 * n), 0);
        } else {
            assert_int_equal (profile_reserve (&a, t0, t1, node, n, 10 * n), 0);
            assert_int_equal (profile_reserve (&b, t0, t1, node, n, 10 * n), 0);
        }
    }
    for (size_t i = 0; i < a.nsegs; i++) {
        size_t j = profile_seg_at (&b, a.segs[i].start);
        assert_int_equal (b.segs[j].start, a.segs[i].start);
        for (time_t len = 10; len <= 700; len += 10) {
            time_t t1 = a.segs[i].start + len;
            assert_int_equal (profile_window (&a, i, t1, c1, m1),
                              profile_window (&b, j, t1, c2, m2));
            assert_memory_equal (c1, c2, sizeof (c1));
            assert_memory_equal (m1, m2, sizeof (m1));
        }
    }
    profile_free (&a);
    profile_free (&b);
}

/* ---- SchedulerParameters --------------------------------------------------
 */

static void test_params (void **state)
{
    struct bf_params bp;
    arbor_error_t err;

    assert_int_equal (bf_params_parse (NULL, &bp, &err), 0);
    assert_int_equal (bp.mode, BF_CONSERVATIVE);
    assert_int_equal (bp.interval, 30);
    assert_int_equal (bf_params_parse ("bf_mode=easy,bf_window=60,"
                                       "bf_continue,bf_max_job_user=2",
                                       &bp, &err),
                      0);
    assert_int_equal (bp.mode, BF_EASY);
    assert_int_equal (bp.window, 60);
    assert_true (bp.keep_going);
    assert_int_equal (bp.max_job_user, 2);
    assert_int_equal (bf_params_parse ("bf_window=0", &bp, &err), -1);
    assert_non_null (strstr (err.text, "bf_window=0"));
    assert_int_equal (bf_params_parse ("bf_mode=greedy", &bp, &err), -1);
    assert_int_equal (bf_params_parse ("bf_bogus=1", &bp, &err), -1);
    assert_non_null (strstr (err.text, "bf_bogus"));
}

/* ---- the pass -------------------------------------------------------------
 */

static struct ctld *cluster_with (const char *mode, const char *extra)
{
    char text[1024];
    struct ctld *ctx;

    snprintf (text, sizeof (text),
              "ClusterName=t\nNodedPort=1\n"
              "SchedulerType=sched/backfill\n"
              "SchedulerParameters=bf_mode=%s\n%s"
              "NodeName=n1 NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000\n"
              "PartitionName=p Nodes=n1 Default=YES\n",
              mode, extra);
    assert_non_null (ctx = fixture_ctld (text, &outbox));
    return ctx;
}

static struct ctld *cluster (const char *mode)
{
    return cluster_with (mode, "");
}

static struct job *submit (struct ctld *ctx, uint32_t cpus, uint32_t minutes,
                           uint64_t mem)
{
    struct msg_job_alloc r = { .ntasks = cpus,
                               .time_limit = minutes,
                               .mem_mb = mem };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    return j;
}

/* A runs 6 of 8 cores until +10 min; B, the head, needs 7 cores for 10
 * min (at +10); C needs all 8 for 30 min (at +20); D wants one core for
 * an hour: it fits now and delays B not at all, but C under conservative. */
static void run_case (const char *mode, struct job **out)
{
    struct ctld *ctx = cluster (mode);
    struct job *a = submit (ctx, 6, 10, 0);
    struct job *b = submit (ctx, 7, 10, 0);
    struct job *c = submit (ctx, 8, 30, 0);
    struct job *d = submit (ctx, 1, 60, 0);
    struct job *e = submit (ctx, 1, 5, 0);

    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (b->state, JOB_PENDING);
    assert_string_equal (d->reason, "Priority"); /* the strict pass */
    sched_backfill (ctx);
    assert_int_equal (b->state, JOB_PENDING);
    assert_true (b->expected_start >= a->start_time + 600);
    assert_int_equal (e->state, JOB_RUNNING); /* ends before B: backfilled */
    out[0] = c;
    out[1] = d;
    out[2] = e;
    out[3] = (struct job *)ctx;
}

static void test_conservative (void **state)
{
    struct job *j[4];

    run_case ("conservative", j);
    assert_int_equal (j[1]->state, JOB_PENDING); /* D would delay C */
    assert_true (j[0]->expected_start > 0);      /* C is reserved */
    assert_true (j[1]->expected_start >= j[0]->expected_start + 1800);
    fixture_free ((struct ctld *)j[3]);
    outbox_clear (&outbox);
}

static void test_easy (void **state)
{
    struct job *j[4];

    run_case ("easy", j);
    assert_int_equal (j[0]->expected_start, 0);  /* only the head is held */
    assert_int_equal (j[1]->state, JOB_RUNNING); /* D delays only C */
    fixture_free ((struct ctld *)j[3]);
    outbox_clear (&outbox);
}

/* Memory, not cores, is what is short: A holds 800 of 1000 MB. */
static void test_memory_bound (void **state)
{
    struct ctld *ctx = cluster ("conservative");
    struct job *a = submit (ctx, 2, 10, 800);
    struct job *b = submit (ctx, 1, 10, 500);
    struct job *c = submit (ctx, 1, 5, 100);
    struct job *d = submit (ctx, 1, 5, 300);

    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (b->state, JOB_PENDING);
    sched_backfill (ctx);
    assert_int_equal (c->state, JOB_RUNNING); /* 100 of the 200 MB free */
    assert_int_equal (d->state, JOB_PENDING); /* 300 MB: not before +10 */
    assert_true (b->expected_start > 0);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

/* priority/wait: only a job whose P reached P_th holds a reservation;
 * the others only backfill. The case of run_case: B has waited an hour
 * (P capped at 15), C only now (P = 10): D may delay C, not B. Once C
 * has waited long enough too, it is protected as under conservative. */
static void test_wait_threshold_reserves (void **state)
{
    for (int c_waited = 0; c_waited <= 1; c_waited++) {
        struct ctld *ctx =
            cluster_with ("conservative", "PriorityType=priority/wait\n"
                                          "PriorityPresets=default:10\n"
                                          "PriorityThreshold=15\n");
        time_t now = time (NULL);
        struct job *a = submit (ctx, 6, 10, 0);
        struct job *b = submit (ctx, 7, 10, 0);
        struct job *c = submit (ctx, 8, 30, 0);
        struct job *d = submit (ctx, 1, 60, 0);

        assert_int_equal (a->state, JOB_RUNNING);
        b->eligible_time = now - 3600;
        if (c_waited)
            c->eligible_time = now - 3600;
        sched_backfill (ctx);
        assert_int_equal (b->state, JOB_PENDING);
        assert_true (b->expected_start >= a->start_time + 600);
        if (c_waited) {
            assert_true (c->expected_start > 0);
            assert_int_equal (d->state, JOB_PENDING);
        } else {
            assert_int_equal (c->expected_start, 0);
            assert_int_equal (d->state, JOB_RUNNING);
        }
        fixture_free (ctx);
        outbox_clear (&outbox);
    }
}

static void test_bad_scheduler_conf (void **state)
{
    assert_null (fixture_ctld ("ClusterName=t\nNodedPort=1\n"
                               "SchedulerType=sched/wiki\n"
                               "NodeName=n1 NodeAddr=127.0.0.1 CPUs=2\n"
                               "PartitionName=p Nodes=n1 Default=YES\n",
                               &outbox));
    assert_null (fixture_ctld ("ClusterName=t\nNodedPort=1\n"
                               "SchedulerType=sched/backfill\n"
                               "SchedulerParameters=bf_window=x\n"
                               "NodeName=n1 NodeAddr=127.0.0.1 CPUs=2\n"
                               "PartitionName=p Nodes=n1 Default=YES\n",
                               &outbox));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_profile),
        cmocka_unit_test (test_profile_blocks),
        cmocka_unit_test (test_params),
        cmocka_unit_test (test_conservative),
        cmocka_unit_test (test_easy),
        cmocka_unit_test (test_memory_bound),
        cmocka_unit_test (test_wait_threshold_reserves),
        cmocka_unit_test (test_bad_scheduler_conf),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
