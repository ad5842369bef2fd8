/* policy_test.c - arbor-stepd's pure decisions: step names, the cancel
 * banner, the emulation nesting rule, core lists and when binding is
 * skipped. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "policy.h"
#include "proto.h"

static void test_step_name (void **state)
{
    char buf[32];

    assert_string_equal (step_name (buf, sizeof (buf), 5, 0), "5.0");
    assert_string_equal (step_name (buf, sizeof (buf), 7, 12), "7.12");
    assert_string_equal (step_name (buf, sizeof (buf), 5, STEP_ID_BATCH),
                         "5.batch");
    assert_string_equal (step_name (buf, sizeof (buf), 5, STEP_ID_EXTERN),
                         "5.extern");
}

static void test_banner (void **state)
{
    struct tm tm = { .tm_year = 126, .tm_mon = 10, .tm_mday = 22,
                     .tm_hour = 3, .tm_isdst = -1 };
    time_t when = mktime (&tm);   /* local time, as the banner prints */
    char buf[256], tiny[16];
    int n = term_banner (buf, sizeof (buf), 5, 0, "node1", "CANCELLED",
                         when);

    assert_int_equal (n, (int)strlen (buf));
    assert_string_equal (buf, "arbor-stepd: error: *** STEP 5.0 ON node1 "
                         "CANCELLED AT 2026-11-22T03:00:00 ***\n");
    term_banner (buf, sizeof (buf), 9, 2, "n3", "TIMEOUT", when);
    assert_string_equal (buf, "arbor-stepd: error: *** STEP 9.2 ON n3 "
                         "TIMEOUT AT 2026-11-22T03:00:00 ***\n");
    term_banner (buf, sizeof (buf), 9, 2, "n3", "", when);
    assert_non_null (strstr (buf, " CANCELLED AT "));
    term_banner (buf, sizeof (buf), 9, 2, "n3", NULL, when);
    assert_non_null (strstr (buf, " CANCELLED AT "));
    assert_int_equal (term_banner (tiny, sizeof (tiny), 9, 2, "n3", NULL,
                                   when), 15);
    assert_int_equal (term_banner (buf, sizeof (buf), 9, 2, NULL, NULL,
                                   when), -1);
    assert_int_equal (errno, EINVAL);
}

static const char conf_text[] =
    "NodeName=node[1-2] NodeAddr=127.0.1.[1-2] CPUs=8\n"
    "NodeName=lo NodeAddr=localhost\n"
    "NodeName=six NodeAddr=::1\n"
    "NodeName=real NodeAddr=10.1.2.3 CPUs=2\n"
    "NodeName=named CPUs=2\n"
    "NodeName=127.5.5.5\n"
    "NodeName=near NodeAddr=128.0.0.1\n"
    "PartitionName=p Nodes=ALL Default=YES\n";

static void test_nesting (void **state)
{
    arbor_error_t err = { "" };
    struct conf *c = conf_parse (conf_text, "test.conf", &err);

    if (!c)
        fail_msg ("%s", err.text);
    assert_true (contain_nests (c, "node1"));
    assert_true (contain_nests (c, "node2"));
    assert_true (contain_nests (c, "lo"));
    assert_true (contain_nests (c, "six"));
    assert_true (contain_nests (c, "127.5.5.5")); /* addr defaults to name */
    assert_false (contain_nests (c, "real"));
    assert_false (contain_nests (c, "named"));
    assert_false (contain_nests (c, "near"));
    assert_false (contain_nests (c, "nosuchnode"));
    assert_false (contain_nests (c, NULL));
    assert_false (contain_nests (NULL, "node1"));
    conf_destroy (c);
}

static void test_cores_parse (void **state)
{
    arbor_error_t err = { "" };
    cpu_set_t set;
    const char *bad[] = { "a", "1-", "-1", "1,", ",1", "1,,2", "3-1",
                          "1 2", "0-99999", "1-2-3" };

    assert_int_equal (cores_parse ("0-1,4", &set, &err), 3);
    assert_true (CPU_ISSET (0, &set) && CPU_ISSET (1, &set)
                 && CPU_ISSET (4, &set));
    assert_false (CPU_ISSET (2, &set) || CPU_ISSET (3, &set));
    assert_int_equal (CPU_COUNT (&set), 3);
    assert_int_equal (cores_parse ("3", &set, &err), 1);
    assert_true (CPU_ISSET (3, &set));
    assert_int_equal (CPU_COUNT (&set), 1);
    assert_int_equal (cores_parse ("1,1,0-1", &set, &err), 2);
    assert_int_equal (cores_parse ("", &set, &err), 0);
    assert_int_equal (CPU_COUNT (&set), 0);
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        if (cores_parse (bad[i], &set, &err) != -1 || errno != EINVAL)
            fail_msg ("'%s' accepted", bad[i]);
        assert_non_null (strstr (err.text, "core list"));
    }
}

static void test_task_plugin (void **state)
{
    assert_true (task_plugin_binds ("affinity"));
    assert_true (task_plugin_binds ("task/affinity"));
    assert_true (task_plugin_binds ("task/cgroup,task/affinity"));
    assert_true (task_plugin_binds ("Task/Affinity"));
    assert_false (task_plugin_binds ("none"));
    assert_false (task_plugin_binds ("task/none"));
    assert_false (task_plugin_binds ("task/affinityx"));
    assert_false (task_plugin_binds (NULL));
}

static void test_bind_plan (void **state)
{
    arbor_error_t why = { "" };
    cpu_set_t set, allowed;
    struct bind_host host2 = { 2, NULL };
    struct bind_host host4_restricted = { 4, &allowed };

    assert_int_equal (bind_plan ("n1", "1", 2, &host2, &set, &why), 1);
    assert_true (CPU_ISSET (1, &set));
    assert_int_equal (CPU_COUNT (&set), 1);
    assert_int_equal (bind_plan ("n1", "0-1", 2, &host2, &set, &why), 1);
    /* emulated node claiming more CPUs than the host has */
    assert_int_equal (bind_plan ("node3", "0-1", 8, &host2, &set, &why), 0);
    assert_string_equal (why.text, "not binding: node3 claims 8 CPUs, host "
                         "has 2");
    /* a core the host does not have */
    assert_int_equal (bind_plan ("n1", "2", 2, &host2, &set, &why), 0);
    assert_non_null (strstr (why.text, "core 2 of n1"));
    /* a core the stepd may not use (cpuset) */
    CPU_ZERO (&allowed);
    CPU_SET (0, &allowed);
    CPU_SET (1, &allowed);
    assert_int_equal (bind_plan ("n1", "1", 4, &host4_restricted, &set,
                                 &why), 1);
    assert_int_equal (bind_plan ("n1", "3", 4, &host4_restricted, &set,
                                 &why), 0);
    assert_non_null (strstr (why.text, "core 3"));
    /* nothing to bind to */
    assert_int_equal (bind_plan ("n1", "", 2, &host2, &set, &why), 0);
    assert_int_equal (bind_plan ("n1", NULL, 2, &host2, &set, &why), 0);
    assert_non_null (strstr (why.text, "no cores"));
    /* malformed */
    errno = 0;
    assert_int_equal (bind_plan ("n1", "x", 2, &host2, &set, &why), -1);
    assert_int_equal (errno, EINVAL);
}

static void test_bind_task_set (void **state)
{
    arbor_error_t err = { "" };
    cpu_set_t step, out;

    cores_parse ("2-3,6-7", &step, &err);
    assert_int_equal (bind_task_set (&step, 0, 2, &out), 2);
    assert_true (CPU_ISSET (2, &out) && CPU_ISSET (3, &out));
    assert_int_equal (CPU_COUNT (&out), 2);
    assert_int_equal (bind_task_set (&step, 1, 2, &out), 2);
    assert_true (CPU_ISSET (6, &out) && CPU_ISSET (7, &out));
    assert_int_equal (CPU_COUNT (&out), 2);
    assert_int_equal (bind_task_set (&step, 3, 4, &out), 1);
    assert_true (CPU_ISSET (7, &out));
    assert_int_equal (CPU_COUNT (&out), 1);
    /* 4 cores, 3 tasks: one core each, core 7 unused */
    assert_int_equal (bind_task_set (&step, 2, 3, &out), 1);
    assert_true (CPU_ISSET (6, &out));
    /* fewer cores than tasks: all of them */
    assert_int_equal (bind_task_set (&step, 4, 5, &out), 4);
    assert_true (CPU_EQUAL (&out, &step));
    assert_int_equal (bind_task_set (&step, 0, 1, &out), 4);
    assert_true (CPU_EQUAL (&out, &step));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_step_name),
        cmocka_unit_test (test_banner),
        cmocka_unit_test (test_nesting),
        cmocka_unit_test (test_cores_parse),
        cmocka_unit_test (test_task_plugin),
        cmocka_unit_test (test_bind_plan),
        cmocka_unit_test (test_bind_task_set),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
