/* bind_test.c - core lists, TaskPlugin, when binding is skipped, which
 * cores each task gets (--cpu-bind cores and map_cpu), masks and the
 * SLURM_CPU_BIND* variables. */
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

#include "bind.h"

static void test_cores_parse (void **state)
{
    arbor_error_t err = { "" };
    cpu_set_t set;
    const char *bad[] = { "a",    "1-",  "-1",  "1,",      ",1",
                          "1,,2", "3-1", "1 2", "0-99999", "1-2-3" };

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
    assert_int_equal (bind_plan ("n1", "1", 4, &host4_restricted, &set, &why),
                      1);
    assert_int_equal (bind_plan ("n1", "3", 4, &host4_restricted, &set, &why),
                      0);
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

static void test_map_cpu (void **state)
{
    arbor_error_t err = { "" };
    struct cpubind b;
    cpu_set_t step, out;
    char *masks;

    cores_parse ("2-3", &step, &err);
    assert_int_equal (cpubind_parse ("map_cpu:3,2,3", &b, &err), 0);
    assert_int_equal (bind_map_check (&b, "2-3", 4, "node1", &err), 0);
    assert_int_equal (bind_map_check (&b, "", 4, "node1", &err), 0);
    assert_int_equal (bind_map_check (&b, "", 3, "node1", &err), -1);
    assert_non_null (strstr (err.text, "CPU 3 is not one of the 3 CPUs"));
    assert_int_equal (bind_map_check (&b, "0-2", 4, "node1", &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "--cpu-bind=map_cpu: CPU 3 is not one of "
                                   "the step's cores on node1 (0-2)");
    /* local task i gets entry i % 3 */
    assert_int_equal (bind_task_cpus (&b, &step, 1, 5, &out), 1);
    assert_true (CPU_ISSET (2, &out));
    assert_int_equal (bind_task_cpus (&b, &step, 4, 5, &out), 1);
    assert_true (CPU_ISSET (2, &out));
    masks = bind_masks_text (&b, &step, 4);
    assert_string_equal (masks, "0x8,0x4,0x8,0x8");
    free (masks);
    cpubind_clear (&b);
    /* cores: the block of bind_task_set */
    assert_int_equal (cpubind_parse ("cores", &b, &err), 0);
    assert_int_equal (bind_map_check (&b, "0", 1, "node1", &err), 0);
    masks = bind_masks_text (&b, &step, 2);
    assert_string_equal (masks, "0x4,0x8");
    free (masks);
    cpubind_clear (&b);
}

static void test_mask_hex (void **state)
{
    char buf[80];
    cpu_set_t set;

    CPU_ZERO (&set);
    bind_mask_hex (&set, buf, sizeof (buf));
    assert_string_equal (buf, "0x0");
    CPU_SET (0, &set);
    CPU_SET (2, &set);
    bind_mask_hex (&set, buf, sizeof (buf));
    assert_string_equal (buf, "0x5");
    CPU_SET (65, &set);
    bind_mask_hex (&set, buf, sizeof (buf));
    assert_string_equal (buf, "0x20000000000000005");
    bind_mask_hex (&set, buf, 6);
    assert_string_equal (buf, "0x200");
}

static void expect_env (const char *spec, bool bound, const char *masks,
                        const char *want_bind, const char *want_type,
                        const char *want_list)
{
    arbor_error_t err = { "" };
    struct env *e = env_create (NULL, 0);
    struct cpubind b;

    assert_int_equal (cpubind_parse (spec, &b, &err), 0);
    assert_int_equal (bind_env_set (e, &b, bound, masks), 0);
    if (!want_bind) {
        assert_int_equal (env_count (e), 0);
    } else {
        assert_string_equal (env_get (e, "SLURM_CPU_BIND"), want_bind);
        assert_string_equal (env_get (e, "SLURM_CPU_BIND_TYPE"), want_type);
        assert_string_equal (env_get (e, "SLURM_CPU_BIND_LIST"), want_list);
        assert_string_equal (env_get (e, "SLURM_CPU_BIND_VERBOSE"),
                             b.verbose ? "verbose" : "quiet");
    }
    cpubind_clear (&b);
    env_destroy (e);
}

static void test_bind_env (void **state)
{
    expect_env ("", false, NULL, NULL, NULL, NULL);
    expect_env ("", true, "0x1,0x2", "quiet,mask_cpu:0x1,0x2",
                "mask_cpu:", "0x1,0x2");
    expect_env ("cores", true, "0x3", "quiet,mask_cpu:0x3", "mask_cpu:", "0x3");
    expect_env ("cores", false, NULL, "quiet,cores", "cores", "");
    expect_env ("v,none", false, NULL, "verbose,none", "none", "");
    expect_env ("map_cpu:1,0", false, NULL, "quiet,map_cpu:1,0",
                "map_cpu:", "1,0");
    expect_env ("verbose,map_cpu:0x1*2", true, "0x2,0x2",
                "verbose,map_cpu:0x1*2", "map_cpu:", "0x1*2");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_cores_parse),
        cmocka_unit_test (test_task_plugin),
        cmocka_unit_test (test_bind_plan),
        cmocka_unit_test (test_bind_task_set),
        cmocka_unit_test (test_map_cpu),
        cmocka_unit_test (test_mask_hex),
        cmocka_unit_test (test_bind_env),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
