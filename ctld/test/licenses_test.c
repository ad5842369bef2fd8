/* licenses_test.c - licenses as the scheduler counts them (licenses.c)
 * and as backfill plans them (licenses_plan.c): a job waits for its
 * licenses (reason "Licenses") without holding back the jobs behind it
 * that want none, holds them until it is done completing, takes the
 * first free choice of an any-of list, and is refused at submission when
 * it names an unknown license or more than the cluster has. */
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

#include "ctld.h"
#include "fixture.h"
#include "job/job.h"
#include "sched/licenses.h"
#include "sched/licenses_plan.h"
#include "sched/profile.h"
#include "proto.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"

static struct outbox outbox;

static struct ctld *cluster (const char *licenses, const char *extra)
{
    char text[1024];
    struct ctld *ctx;

    snprintf (text, sizeof (text),
              "ClusterName=t\nNodedPort=1\nLicenses=%s\n%s"
              "NodeName=n1 NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000\n"
              "PartitionName=p Nodes=n1 Default=YES\n",
              licenses, extra);
    assert_non_null (ctx = fixture_ctld (text, &outbox));
    return ctx;
}

static struct job *submit (struct ctld *ctx, const char *lic, uint32_t cpus,
                           uint32_t minutes)
{
    struct msg_job_alloc r = { .ntasks = cpus,
                               .time_limit = minutes,
                               .licenses = (char *)lic };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    if (!j)
        fail_msg ("-L %s: %s", lic, err.text);
    return j;
}

static uint64_t used (struct ctld *ctx, const char *name)
{
    long x = licenses_find (ctx->licenses, name);

    assert_true (x >= 0);
    return ctx->licenses->v[x].used;
}

static void finish (struct ctld *ctx, struct job *j)
{
    job_end (ctx, j, JOB_COMPLETED, NULL);
    fixture_epilogs (ctx, j);
    sched_flush (ctx);
}

static void test_wait_and_hold (void **state)
{
    struct ctld *ctx = cluster ("fluent:3", "");
    struct job *a = submit (ctx, "fluent:2", 1, 10);
    struct job *b = submit (ctx, "fluent:2", 1, 10);
    struct job *c = submit (ctx, "", 1, 10);
    struct job *d = submit (ctx, "fluent", 1, 10);

    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (used (ctx, "fluent"), 2);
    assert_int_equal (b->state, JOB_PENDING);
    assert_string_equal (b->reason, "Licenses");
    assert_int_equal (c->state, JOB_RUNNING); /* wants none: not held back */
    /* one is free, but b, before it, waits for fluent: d may not take it */
    assert_int_equal (d->state, JOB_PENDING);
    assert_string_equal (d->reason, "Licenses");

    job_end (ctx, a, JOB_COMPLETED, NULL);
    sched_flush (ctx);
    assert_int_equal (b->state, JOB_PENDING); /* a completes: still held */
    assert_int_equal (used (ctx, "fluent"), 2);
    fixture_epilogs (ctx, a);
    sched_flush (ctx);
    assert_int_equal (b->state, JOB_RUNNING);
    assert_int_equal (d->state, JOB_RUNNING);
    assert_int_equal (used (ctx, "fluent"), 3);
    finish (ctx, b);
    finish (ctx, c);
    finish (ctx, d);
    assert_int_equal (used (ctx, "fluent"), 0);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

static void test_refused (void **state)
{
    static const struct {
        const char *lic, *why;
    } bad[] = {
        { "matlab", "license 'matlab' is not configured" },
        { "fluent:4", "4 of license 'fluent' asked, the cluster has 3" },
        { "fluent|matlab", "'matlab' is not configured" },
        { "fluent,ansys|x", "cannot be mixed" },
        { "fluent:0", "count must be" },
    };
    struct ctld *ctx = cluster ("fluent:3,ansys", "");
    arbor_error_t err;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct msg_job_alloc r = { .ntasks = 1,
                                   .licenses = (char *)bad[i].lic };
        assert_null (fixture_submit (ctx, &r, getuid (), &err));
        assert_int_equal (errno, EINVAL);
        assert_non_null (strstr (err.text, "Invalid license specification"));
        if (!strstr (err.text, bad[i].why))
            fail_msg ("-L %s: '%s'", bad[i].lic, err.text);
    }
    assert_int_equal (ctx->njobs, 0);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

static void test_any_of (void **state)
{
    struct ctld *ctx = cluster ("a:1,b:1", "");
    struct job *x = submit (ctx, "a", 1, 10);
    struct job *y = submit (ctx, "a|b", 1, 10);
    struct job *z = submit (ctx, "a|b", 1, 10);
    char *text;

    assert_int_equal (y->state, JOB_RUNNING);
    assert_non_null (text = licenses_shown (y));
    assert_string_equal (text, "b:1"); /* a was taken: the next choice */
    free (text);
    assert_int_equal (z->state, JOB_PENDING);
    assert_string_equal (z->reason, "Licenses");
    assert_non_null (text = licenses_shown (z));
    assert_string_equal (text, "a:1|b:1"); /* pending: what it asks */
    free (text);
    finish (ctx, x);
    assert_int_equal (z->state, JOB_RUNNING);
    assert_int_equal (used (ctx, "a"), 1);
    finish (ctx, y);
    finish (ctx, z);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

/* A holds both lics until +10; B (the head) needs both for 10 min, and
 * gets them planned at +10; C wants one for an hour, which would delay B:
 * it is planned after B; D wants none: it starts at once. */
static void test_backfill (void **state)
{
    struct ctld *ctx = cluster ("lic:2", "SchedulerType=sched/backfill\n");
    struct job *a = submit (ctx, "lic:2", 1, 10);
    struct job *b = submit (ctx, "lic:2", 1, 10);
    struct job *c = submit (ctx, "lic", 1, 60);
    struct job *d = submit (ctx, "", 1, 60);

    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (d->state, JOB_RUNNING);
    sched_backfill (ctx);
    assert_int_equal (b->state, JOB_PENDING);
    assert_true (b->expected_start >= a->start_time + 600);
    assert_int_equal (c->state, JOB_PENDING);
    assert_true (c->expected_start >= b->expected_start + 600);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

/* The plan's lines alone: releases, reservations, choices in order. */
static void test_plan_lines (void **state)
{
    int64_t free_now[2] = { 0, 1 };
    struct lic_use uses[] = { { 0, 2 }, { 1, 1 } };
    struct lic_rel rel = { .end = 1600, .use = { 0, 2 } };
    struct lic_snap s = {
        .nlic = 2, .free = free_now, .uses = uses, .nuses = 2
    };
    struct lic_need both = { .first = 0, .n = 2 };
    struct lic_need any = { .first = 0, .n = 2, .any = true };
    struct lic_need l0 = { .first = 0, .n = 1 };
    struct licplan p;

    assert_int_equal (licplan_init (&p, &s, 1000), 0);
    assert_int_equal (licplan_release (&p, &rel, 1600), 0);
    assert_false (licplan_fits (&p, &both, 1000, 1300));
    assert_true (licplan_fits (&p, &both, 1600, PROFILE_FOREVER));
    assert_true (licplan_fits (&p, &any, 1000, 1300));
    assert_int_equal (p.choice, 1); /* 0 is not free before 1600 */
    assert_int_equal (licplan_reserve (&p, &any, 1000, 1700), 0);
    assert_false (licplan_fits (&p, &any, 1000, 1601)); /* 1 is taken */
    assert_true (licplan_fits (&p, &any, 1600, 1700));
    assert_int_equal (p.choice, 0);
    assert_int_equal (licplan_reserve (&p, &l0, 1600, 2000), 0);
    assert_false (licplan_fits (&p, &l0, 1900, 2100));
    assert_true (licplan_fits (&p, &l0, 2000, PROFILE_FOREVER));
    licplan_free (&p);
}

static void test_info (void **state)
{
    struct ctld *ctx = cluster ("zeta:2,alpha:5", "");
    struct msg_lic_info all = { .name = "" }, one = { .name = "zeta" };
    struct msg_lic_info none = { .name = "nope" };
    struct msg_lic_info_reply r;
    arbor_error_t err;

    submit (ctx, "zeta", 1, 10);
    assert_int_equal (licenses_info (ctx, &all, &r, &err), 0);
    assert_int_equal (r.names_count, 2);
    assert_string_equal (r.names[0], "alpha"); /* by name */
    assert_int_equal (r.totals[1], 2);
    assert_int_equal (r.used[1], 1);
    proto_clear (MSG_LIC_INFO_REPLY, &r);
    assert_int_equal (licenses_info (ctx, &one, &r, &err), 0);
    assert_int_equal (r.names_count, 1);
    proto_clear (MSG_LIC_INFO_REPLY, &r);
    assert_int_equal (licenses_info (ctx, &none, &r, &err), -1);
    assert_int_equal (errno, ENOENT);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_wait_and_hold), cmocka_unit_test (test_refused),
        cmocka_unit_test (test_any_of),        cmocka_unit_test (test_backfill),
        cmocka_unit_test (test_plan_lines),    cmocka_unit_test (test_info),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
