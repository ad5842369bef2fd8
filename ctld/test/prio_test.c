/* prio_test.c - priorities (prio.c) and the order the scheduler takes
 * pending jobs in (sched.c): priority/basic is first come first served;
 * priority/multifactor weighs age, job size (or small jobs first) and the
 * partition's factor, less --nice (negative only for root); a higher
 * PriorityTier partition goes first; a blocked job holds back only its
 * own partition. */
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

#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/job.h"
#include "sched/prio.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"

static const char multifactor[] =
    "ClusterName=t\n"
    "NodedPort=1\n"
    "PriorityType=priority/multifactor\n"
    "PriorityWeightAge=1000\n"
    "PriorityWeightJobSize=800\n"
    "PriorityWeightPartition=400\n"
    "PriorityMaxAge=1:00:00\n"
    "NodeName=n[1-4] NodeAddr=127.0.0.[1-4] CPUs=4 RealMemory=1000\n"
    "PartitionName=low Nodes=n[1-4] Default=YES PriorityJobFactor=1\n"
    "PartitionName=high Nodes=n[1-4] PriorityJobFactor=4\n"
    "PartitionName=urgent Nodes=n1 PriorityTier=5\n"
    "PartitionName=other Nodes=n4\n";

static struct outbox outbox;

static struct ctld *ctx_of (const char *text)
{
    struct ctld *ctx = fixture_ctld (text, &outbox);

    assert_non_null (ctx);
    return ctx;
}

static void done (struct ctld *ctx)
{
    fixture_free (ctx);
    outbox_clear (&outbox);
}

static struct job *submit (struct ctld *ctx, struct msg_job_alloc *req)
{
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, req, getuid (), &err);

    assert_non_null (j);
    return j;
}

static struct prio prio_now (struct ctld *ctx, const struct job *j, time_t now)
{
    struct prio_pass pp;
    struct prio p;

    prio_pass_begin (ctx, now, &pp);
    prio_job (ctx, &pp, j, &p);
    return p;
}

static void test_factors (void **state)
{
    struct ctld *ctx = ctx_of (multifactor);
    struct msg_job_alloc hold_all = { .nnodes = 4, .exclusive = true };
    struct msg_job_alloc eight = { .ntasks = 8,
                                   .partition = "high",
                                   .nice = 50 };
    struct job *blocker = submit (ctx, &hold_all);
    struct job *j = submit (ctx, &eight);
    struct prio p;

    assert_int_equal (blocker->state, JOB_RUNNING);
    assert_int_equal (j->state, JOB_PENDING);
    /* 30 minutes eligible of a 60 minute PriorityMaxAge: half the weight;
     * 8 of 16 CPUs: half; the largest factor: all; less nice 50 */
    p = prio_now (ctx, j, j->eligible_time + 30 * 60);
    assert_int_equal (p.age, 500);
    assert_int_equal (p.job_size, 400);
    assert_int_equal (p.part, 400);
    assert_int_equal (p.nice, 50);
    assert_int_equal (p.priority, 500 + 400 + 400 - 50);
    p = prio_now (ctx, j, j->eligible_time + 5 * 3600); /* capped */
    assert_int_equal (p.age, 1000);
    done (ctx);
}

/* A job that started keeps the priority it started with: its age stops
 * at its start, however long it then runs. A held job's priority is 0.
 * (The job's state is set by hand: only prio.c is under test.) */
static void test_started_and_held (void **state)
{
    struct ctld *ctx = ctx_of (multifactor);
    struct msg_job_alloc hold_all = { .nnodes = 4, .exclusive = true };
    struct msg_job_alloc eight = { .ntasks = 8, .partition = "high" };
    struct job *blocker = submit (ctx, &hold_all);
    struct job *j = submit (ctx, &eight);
    time_t started = j->eligible_time + 30 * 60;

    assert_int_equal (blocker->state, JOB_RUNNING);
    assert_int_equal (prio_now (ctx, j, started).priority, 500 + 400 + 400);
    j->held = true;
    assert_int_equal (prio_now (ctx, j, started).priority, 0);
    j->held = false;
    j->state = JOB_RUNNING;
    j->start_time = started;
    assert_int_equal (prio_now (ctx, j, started + 5 * 3600).age, 500);
    assert_int_equal (prio_now (ctx, j, started + 5 * 3600).priority,
                      500 + 400 + 400);
    j->state = JOB_PENDING; /* as it was, for the teardown */
    j->start_time = 0;
    done (ctx);
}

static void test_favor_small_and_nice_rules (void **state)
{
    char text[1024];
    struct ctld *ctx;
    struct msg_job_alloc one = { .ntasks = 1, .partition = "other" };
    struct msg_job_alloc raised = { .ntasks = 1, .nice = -10 };
    arbor_error_t err;
    struct prio p;
    struct job *j;

    snprintf (text, sizeof (text), "%sPriorityFavorSmall=YES\n", multifactor);
    ctx = ctx_of (text);
    j = submit (ctx, &one);
    p = prio_now (ctx, j, time (NULL));
    assert_int_equal (p.job_size, 800); /* one CPU: the whole weight */
    assert_int_equal (p.part, 100);     /* factor 1 of 4 */
    /* a negative nice is for root and ArborUser only */
    if (getuid () != 0) {
        assert_null (fixture_submit (ctx, &raised, getuid (), &err));
        assert_int_equal (errno, EPERM);
        assert_non_null (strstr (err.text, "--nice=-10"));
    }
    assert_non_null (j = fixture_submit (ctx, &raised, 0, &err));
    assert_int_equal (prio_now (ctx, j, time (NULL)).nice, -10);
    raised.nice = -2147483646;
    assert_null (fixture_submit (ctx, &raised, 0, &err));
    assert_non_null (strstr (err.text, "out of range"));
    done (ctx);
}

/* The scheduler: the higher priority first, the higher tier before it,
 * and a blocked job holds back its partition only. */
static void test_order (void **state)
{
    struct ctld *ctx = ctx_of (multifactor);
    struct msg_job_alloc most = { .ntasks = 13 };
    struct msg_job_alloc low4 = { .ntasks = 4 };
    struct msg_job_alloc high2 = { .ntasks = 2, .partition = "high" };
    struct msg_job_alloc urgent = { .ntasks = 1, .partition = "urgent" };
    struct msg_job_alloc other = { .ntasks = 1, .partition = "other" };
    struct job *a = submit (ctx, &most);
    struct job *b, *c, *d, *e;

    assert_int_equal (a->state, JOB_RUNNING); /* 3 CPUs left, all on n4 */
    b = submit (ctx, &low4);
    assert_int_equal (b->state, JOB_PENDING);
    assert_string_equal (b->reason, "Resources");
    c = submit (ctx, &high2); /* fits, and ranks above b (partition) */
    assert_int_equal (c->state, JOB_RUNNING);
    d = submit (ctx, &urgent);
    assert_int_equal (d->state, JOB_PENDING); /* n1 is full */
    e = submit (ctx, &other);
    assert_int_equal (e->state, JOB_RUNNING); /* 'other' is not blocked */
    job_end (ctx, a, JOB_COMPLETED, NULL);
    fixture_epilogs (ctx, a);
    sched_flush (ctx);
    /* the urgent tier goes first, then b */
    assert_int_equal (d->state, JOB_RUNNING);
    assert_int_equal (b->state, JOB_RUNNING);
    done (ctx);
}

static void test_basic_is_fifo (void **state)
{
    struct ctld *ctx = ctx_of ("ClusterName=t\nNodedPort=1\n"
                               "NodeName=n1 NodeAddr=127.0.0.1 CPUs=2\n"
                               "PartitionName=p Nodes=n1 Default=YES\n");
    struct msg_job_alloc two = { .ntasks = 2 };
    struct msg_job_alloc one = { .ntasks = 1, .nice = 1000 };
    struct job *a = submit (ctx, &two);
    struct job *b = submit (ctx, &two);
    struct job *c = submit (ctx, &one);
    arbor_error_t err;

    assert_int_equal (a->state, JOB_RUNNING);
    assert_string_equal (c->reason, "Priority");
    assert_true (prio_now (ctx, b, time (NULL)).priority
                 > prio_now (ctx, c, time (NULL)).priority);
    assert_int_equal (prio_configure (ctx, &err), 0);
    done (ctx);
    assert_null (fixture_ctld ("ClusterName=t\nNodedPort=1\n"
                               "PriorityType=priority/fancy\n"
                               "NodeName=n1 NodeAddr=127.0.0.1 CPUs=2\n"
                               "PartitionName=p Nodes=n1 Default=YES\n",
                               &outbox));
}

static const char wait_conf[] =
    "ClusterName=t\n"
    "NodedPort=1\n"
    "PriorityType=priority/wait\n"
    "PriorityPresets=default:8,root:10,daemon:15\n"
    "PriorityWaitWeight=1\n"
    "%s"
    "NodeName=n[1-4] NodeAddr=127.0.0.[1-4] CPUs=4\n"
    "PartitionName=p Nodes=n[1-4] Default=YES\n";

/* Three pending jobs of 4 CPUs on 16 (E = 1.25), of users root (Y 10),
 * daemon (Y 15) and bin (the default, 8), eligible 120, 100 and 238 s
 * before 'now'. */
static void wait_jobs (struct ctld *ctx, time_t now, struct job **v)
{
    struct msg_job_alloc hold_all = { .nnodes = 4, .exclusive = true };
    struct msg_job_alloc four = { .ntasks = 4 };
    arbor_error_t err;
    uid_t uids[3] = { 0, 1, 2 };
    time_t waits[3] = { 120, 100, 238 };

    assert_int_equal (submit (ctx, &hold_all)->state, JOB_RUNNING);
    for (int i = 0; i < 3; i++) {
        v[i] = fixture_submit (ctx, &four, uids[i], &err);
        assert_non_null (v[i]);
        assert_int_equal (v[i]->state, JOB_PENDING);
        v[i]->eligible_time = now - waits[i];
    }
}

/* The published worked example: presets 10, 15, 8, k = 1, waits 120 s,
 * 100 s and 238 s, E = 1.25 give 12.500, 17.083 and 12.958. */
static void test_wait_worked_example (void **state)
{
    char text[1024];
    struct ctld *ctx;
    struct job *v[3];
    time_t now = time (NULL);
    const uint32_t want[3] = { 12500, 17083, 12958 };
    const uint32_t preset[3] = { 10000, 15000, 8000 };

    snprintf (text, sizeof (text), wait_conf, "");
    ctx = ctx_of (text);
    wait_jobs (ctx, now, v);
    for (int i = 0; i < 3; i++) {
        struct prio p = prio_now (ctx, v[i], now);
        assert_int_equal (p.priority, want[i]);
        assert_int_equal (p.preset, preset[i]);
        assert_int_equal (p.wait, want[i] - preset[i]);
        assert_false (p.under_threshold); /* no P_th: all may reserve */
    }
    /* the wait keeps adding: a minute later root's job gains k x 1.25 */
    assert_int_equal (prio_now (ctx, v[0], now + 60).priority, 13750);
    done (ctx);
}

/* P is capped at P_th = 17; only a job that reached it may reserve. */
static void test_wait_threshold (void **state)
{
    char text[1024];
    struct ctld *ctx;
    struct job *v[3];
    time_t now = time (NULL);
    struct prio p;

    snprintf (text, sizeof (text), wait_conf, "PriorityThreshold=17\n");
    ctx = ctx_of (text);
    wait_jobs (ctx, now, v);
    p = prio_now (ctx, v[0], now);
    assert_int_equal (p.priority, 12500);
    assert_true (p.under_threshold);
    p = prio_now (ctx, v[1], now);
    assert_int_equal (p.priority, 17000);
    assert_int_equal (p.wait, 2000);
    assert_false (p.under_threshold);
    p = prio_now (ctx, v[2], now);
    assert_int_equal (p.priority, 12958);
    assert_true (p.under_threshold);
    /* 300 s later bin's job has reached the cap too */
    p = prio_now (ctx, v[2], now + 300);
    assert_int_equal (p.priority, 17000);
    assert_false (p.under_threshold);
    done (ctx);
}

static void test_wait_bad_presets (void **state)
{
    const char *bad[] = {
        "PriorityPresets=nosuchuser_arbor:3\n",
        "PriorityPresets=root\n",
        "PriorityPresets=root:x\n",
        "PriorityPresets=root:-1\n",
        "PriorityThreshold=-2\n",
        "PriorityWaitWeight=abc\n",
    };
    char text[1024];

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        snprintf (text, sizeof (text),
                  "ClusterName=t\nNodedPort=1\nPriorityType=priority/wait\n"
                  "%sNodeName=n1 NodeAddr=127.0.0.1 CPUs=2\n"
                  "PartitionName=p Nodes=n1 Default=YES\n",
                  bad[i]);
        assert_null (fixture_ctld (text, &outbox));
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_factors),
        cmocka_unit_test (test_started_and_held),
        cmocka_unit_test (test_favor_small_and_nice_rules),
        cmocka_unit_test (test_order),
        cmocka_unit_test (test_basic_is_fifo),
        cmocka_unit_test (test_wait_worked_example),
        cmocka_unit_test (test_wait_threshold),
        cmocka_unit_test (test_wait_bad_presets),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
