/* adopt_test.c - pam_arbor_adopt's options and its choice of a job. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "adopt.h"

static void parse_ok (struct adopt_opts *o, int argc, const char **argv)
{
    arbor_error_t err = { "" };

    if (adopt_opts_parse (o, argc, argv, &err) < 0)
        fail_msg ("%s: %s", argc ? argv[0] : "(none)", err.text);
}

/* One bad argument: refused, with 'want' in the error. */
static void parse_bad (const char *arg, const char *want)
{
    struct adopt_opts o;
    arbor_error_t err = { "" };
    const char *argv[] = { "log_level=debug", arg };

    assert_int_equal (adopt_opts_parse (&o, 2, argv, &err), -1);
    if (!strstr (err.text, want))
        fail_msg ("'%s': error '%s' lacks '%s'", arg, err.text, want);
    adopt_opts_free (&o);
}

static void test_defaults (void **state)
{
    struct adopt_opts o;

    (void)state;
    parse_ok (&o, 0, NULL);
    assert_int_equal (o.no_jobs, ACT_DENY);
    assert_int_equal (o.unknown, ACT_NEWEST);
    assert_int_equal (o.adopt_failure, ACT_ALLOW);
    assert_int_equal (o.generic_failure, ACT_DENY);
    assert_int_equal (o.log_level, ALOG_INFO);
    assert_true (o.ignore_root);
    assert_null (o.admin_users);
    assert_null (o.conf_path);
    assert_null (o.nodename);
    assert_int_equal (o.timeout_ms, 5000);
    adopt_opts_free (&o);
}

static void test_every_option (void **state)
{
    struct adopt_opts o;
    const char *argv[] = {
        "action_no_jobs=ignore",
        "action_unknown=deny",
        "action_adopt_failure=deny",
        "action_generic_failure=allow",
        "log_level=quiet",
        "ignore_root=0",
        "admin_users=alice,bob",
        "admin_groups=wheel",
        "conf=/etc/arbor/test.conf",
        "nodename=node3",
        "timeout=2",
        "nodename=node4",
    };

    (void)state;
    parse_ok (&o, sizeof (argv) / sizeof (*argv), argv);
    assert_int_equal (o.no_jobs, ACT_IGNORE);
    assert_int_equal (o.unknown, ACT_DENY);
    assert_int_equal (o.adopt_failure, ACT_DENY);
    assert_int_equal (o.generic_failure, ACT_ALLOW);
    assert_int_equal (o.log_level, ALOG_QUIET);
    assert_false (o.ignore_root);
    assert_string_equal (o.admin_users, "alice,bob");
    assert_string_equal (o.admin_groups, "wheel");
    assert_string_equal (o.conf_path, "/etc/arbor/test.conf");
    assert_string_equal (o.nodename, "node4"); /* the last one wins */
    assert_int_equal (o.timeout_ms, 2000);
    adopt_opts_free (&o);
}

static void test_bad_options (void **state)
{
    (void)state;
    parse_bad ("action_no_jobs=allow", "action_no_jobs=allow: not one of");
    parse_bad ("action_unknown=ignore", "action_unknown=ignore");
    parse_bad ("action_adopt_failure=newest", "action_adopt_failure");
    parse_bad ("action_generic_failure=newest", "action_generic_failure");
    parse_bad ("action_no_jobs=", "action_no_jobs=");
    parse_bad ("log_level=loud", "log_level=loud");
    parse_bad ("ignore_root=maybe", "ignore_root=maybe");
    parse_bad ("timeout=0", "timeout=0");
    parse_bad ("timeout=61", "timeout=61");
    parse_bad ("timeout=5s", "timeout=5s");
    parse_bad ("nodename=", "nodename= is empty");
    parse_bad ("frobnicate=1", "unknown option 'frobnicate'");
    parse_bad ("debug", "'debug' is not KEY=VALUE");
    parse_bad ("=x", "unknown option ''");
}

static void test_list_has (void **state)
{
    (void)state;
    assert_true (adopt_list_has ("alice,bob", "alice"));
    assert_true (adopt_list_has ("alice,bob", "bob"));
    assert_false (adopt_list_has ("alice,bob", "ali"));
    assert_false (adopt_list_has ("alice,bob", "bobby"));
    assert_false (adopt_list_has ("alice,,bob", ""));
    assert_false (adopt_list_has (NULL, "alice"));
}

static void test_parse_job (void **state)
{
    (void)state;
    assert_int_equal (adopt_parse_job ("42"), 42);
    assert_int_equal (adopt_parse_job ("4294967294"), 4294967294u);
    assert_int_equal (adopt_parse_job ("4294967295"), 0);
    assert_int_equal (adopt_parse_job ("0"), 0);
    assert_int_equal (adopt_parse_job ("-3"), 0);
    assert_int_equal (adopt_parse_job ("7x"), 0);
    assert_int_equal (adopt_parse_job (" 7"), 0);
    assert_int_equal (adopt_parse_job (""), 0);
    assert_int_equal (adopt_parse_job (NULL), 0);
}

static void test_pick (void **state)
{
    struct adopt_opts o;
    struct adopt_choice c;
    const uint32_t jobs[] = { 9, 5, 7 }; /* newest first */

    (void)state;
    parse_ok (&o, 0, NULL);
    adopt_pick (&o, jobs, 0, 0, &c); /* none: action_no_jobs */
    assert_int_equal (c.verdict, VERDICT_ACTION);
    assert_true (c.no_jobs);
    assert_int_equal (c.action, ACT_DENY);
    adopt_pick (&o, jobs + 1, 1, 0, &c); /* one: that one */
    assert_int_equal (c.verdict, VERDICT_ADOPT);
    assert_int_equal (c.job, 5);
    adopt_pick (&o, jobs, 3, 0, &c); /* several, newest */
    assert_int_equal (c.verdict, VERDICT_ADOPT);
    assert_int_equal (c.job, 9);
    adopt_pick (&o, jobs, 3, 7, &c); /* named */
    assert_int_equal (c.verdict, VERDICT_ADOPT);
    assert_int_equal (c.job, 7);
    assert_false (c.env_ignored);
    adopt_pick (&o, jobs, 3, 8, &c); /* named, not here: newest */
    assert_int_equal (c.job, 9);
    assert_true (c.env_ignored);
    o.unknown = ACT_DENY;
    adopt_pick (&o, jobs, 3, 0, &c);
    assert_int_equal (c.verdict, VERDICT_ACTION);
    assert_false (c.no_jobs);
    assert_int_equal (c.action, ACT_DENY);
    adopt_pick (&o, jobs, 3, 5, &c); /* named wins over deny */
    assert_int_equal (c.verdict, VERDICT_ADOPT);
    assert_int_equal (c.job, 5);
    adopt_pick (&o, jobs, 1, 0, &c); /* one job is never "unknown" */
    assert_int_equal (c.verdict, VERDICT_ADOPT);
    o.unknown = ACT_ALLOW;
    adopt_pick (&o, jobs, 2, 0, &c);
    assert_int_equal (c.action, ACT_ALLOW);
    adopt_opts_free (&o);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_defaults),
        cmocka_unit_test (test_every_option),
        cmocka_unit_test (test_bad_options),
        cmocka_unit_test (test_list_has),
        cmocka_unit_test (test_parse_job),
        cmocka_unit_test (test_pick),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
