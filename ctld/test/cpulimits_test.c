/* cpulimits_test.c - CPU-hour limits (cpulimits.c, when.c): the file
 * read (users over groups over the default; bad files refused with the
 * line), a job past its user's limit kept pending (CPUHoursLimit) and
 * started by itself once the user's usage falls, and a reload. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sched/cpulimits.h"
#include "ctld.h"
#include "reconfigure.h"
#include "fixture.h"
#include "job/job.h"
#include "sched/sched.h"
#include "states.h"
#include "job/term.h"

static struct outbox outbox;
static char path[] = "/tmp/arbor-limits-XXXXXX";

static void write_limits (const char *text)
{
    FILE *f = fopen (path, "w");

    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

static int setup (void **state)
{
    int fd = mkstemp (path);

    if (fd < 0)
        return -1;
    close (fd);
    return 0;
}

static int teardown (void **state)
{
    unlink (path);
    return 0;
}

static void test_file (void **state)
{
    char text[512];
    struct limits *l;
    arbor_error_t err;
    double h;
    const struct group *root_group = getgrgid (0);

    assert_non_null (root_group);
    snprintf (text, sizeof (text),
              "default = 10.5;\nusers = { root = 100; };\n"
              "groups = { %s = 50; };\n",
              root_group->gr_name);
    write_limits (text);
    assert_non_null (l = cpulimits_load (path, &err));
    assert_true (cpulimits_for (l, 0, 0, &h));
    assert_true (h == 100.0); /* the user's entry wins */
    assert_true (cpulimits_for (l, 4242, 0, &h));
    assert_true (h == 50.0); /* then the group's */
    assert_true (cpulimits_for (l, 4242, 4242, &h));
    assert_true (h == 10.5); /* then the default */
    cpulimits_free (l);

    write_limits ("users = { nosuchuser_xyz = 1; };\n");
    assert_null (cpulimits_load (path, &err));
    assert_non_null (
        strstr (err.text, "line 1: no such user 'nosuchuser_xyz'"));
    write_limits ("default = \"lots\";\n");
    assert_null (cpulimits_load (path, &err));
    assert_non_null (strstr (err.text, "a number of CPU-hours"));
    write_limits ("default = -1;\n");
    assert_null (cpulimits_load (path, &err));
    write_limits ("defualt = 1;\n");
    assert_null (cpulimits_load (path, &err));
    assert_non_null (strstr (err.text, "unknown setting 'defualt'"));
    write_limits ("default = 1\nusers = {\n");
    assert_null (cpulimits_load (path, &err));
    assert_non_null (strstr (err.text, "CpuHoursLimitsFile"));
    write_limits ("users = { root = 1; };\n"); /* no default: others free */
    assert_non_null (l = cpulimits_load (path, &err));
    assert_false (cpulimits_for (l, 4242, 4242, &h));
    cpulimits_free (l);
}

static struct job *submit (struct ctld *ctx, uint32_t cpus, uint32_t minutes)
{
    struct msg_job_alloc r = { .ntasks = cpus, .time_limit = minutes };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    return j;
}

static void test_pending_until_usage_falls (void **state)
{
    char conf[512];
    struct ctld *ctx;
    struct job *a, *b, *c;
    arbor_error_t err;

    write_limits ("default = 2.0;\n");
    snprintf (conf, sizeof (conf),
              "ClusterName=t\nNodedPort=1\nCpuHoursLimitsFile=%s\n"
              "NodeName=n1 NodeAddr=127.0.0.1 CPUs=8\n"
              "PartitionName=p Nodes=n1 Default=YES\n",
              path);
    assert_non_null (ctx = fixture_ctld (conf, &outbox));
    a = submit (ctx, 2, 60);  /* 2 CPU-hours: the whole limit */
    b = submit (ctx, 1, 30);  /* half an hour more: too much */
    c = submit (ctx, 4, 600); /* 40: never while the limit stays */
    assert_int_equal (a->state, JOB_RUNNING);
    assert_int_equal (b->state, JOB_PENDING);
    assert_string_equal (b->reason, "CPUHoursLimit");
    assert_string_equal (c->reason, "CPUHoursLimit");
    job_end (ctx, a, JOB_COMPLETED, NULL);
    fixture_epilogs (ctx, a);
    sched_flush (ctx);
    assert_int_equal (b->state, JOB_RUNNING); /* usage fell */
    assert_int_equal (c->state, JOB_PENDING);
    /* a raised limit, read again */
    write_limits ("default = 100;\n");
    assert_int_equal (ctld_reconfigure (ctx, &err), 0);
    sched_flush (ctx);
    assert_int_equal (c->state, JOB_RUNNING);
    /* a broken file keeps the limits in force */
    write_limits ("default = ;\n");
    assert_int_equal (ctld_reconfigure (ctx, &err), -1);
    assert_non_null (ctx->limits);
    fixture_free (ctx);
    outbox_clear (&outbox);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_file),
        cmocka_unit_test (test_pending_until_usage_falls),
    };

    return cmocka_run_group_tests (tests, setup, teardown);
}
