/* rlimits_test.c - propagated resource limits: names, selection, the
 * SLURM_RLIMIT_* values and the lowering to a node's hard limits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rlimits.h"

/* The mask bit of a name. */
static uint32_t bit (const char *name)
{
    for (size_t i = 0; i < RLIMITS_N; i++)
        if (!strcmp (rlimits_name (i), name))
            return 1u << i;
    fail_msg ("no limit %s", name);
    return 0;
}

static void test_parse (void **state)
{
    arbor_error_t err = { "" };
    uint32_t m = 12345;

    assert_int_equal (rlimits_parse ("ALL", &m, &err), 0);
    assert_int_equal (m, RLIMITS_ALL);
    assert_int_equal (rlimits_parse ("none", &m, &err), 0);
    assert_int_equal (m, 0);
    assert_int_equal (rlimits_parse ("nofile,STACK,core", &m, &err), 0);
    assert_int_equal (m, bit ("NOFILE") | bit ("STACK") | bit ("CORE"));
    assert_int_equal (rlimits_parse ("NOFILE,FOO", &m, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "'FOO' is not a resource limit");
    assert_int_equal (rlimits_parse ("NOFILE,", &m, &err), -1);
    assert_int_equal (rlimits_parse ("", &m, &err), -1);
}

static void test_select (void **state)
{
    arbor_error_t err = { "" };
    uint32_t m;

    assert_int_equal (rlimits_select (NULL, NULL, NULL, &m, &err), 0);
    assert_int_equal (m, RLIMITS_ALL); /* Slurm's default */
    assert_int_equal (rlimits_select ("", "NONE", NULL, &m, &err), 0);
    assert_int_equal (m, RLIMITS_ALL); /* --propagate alone: all */
    assert_int_equal (rlimits_select ("CPU", "NONE", NULL, &m, &err), 0);
    assert_int_equal (m, bit ("CPU"));
    assert_int_equal (rlimits_select (NULL, "FSIZE,AS", NULL, &m, &err), 0);
    assert_int_equal (m, bit ("FSIZE") | bit ("AS"));
    assert_int_equal (rlimits_select (NULL, NULL, "MEMLOCK", &m, &err), 0);
    assert_int_equal (m, RLIMITS_ALL & ~bit ("MEMLOCK"));
    assert_int_equal (rlimits_select (NULL, "CPU", "MEMLOCK", &m, &err), -1);
}

static void test_values (void **state)
{
    char buf[24];
    rlim_t v;

    rlimits_format (RLIM_INFINITY, buf, sizeof (buf));
    assert_string_equal (buf, "unlimited");
    rlimits_format (8192, buf, sizeof (buf));
    assert_string_equal (buf, "8192");
    assert_int_equal (rlimits_value ("8192", &v), 0);
    assert_true (v == 8192);
    assert_int_equal (rlimits_value ("unlimited", &v), 0);
    assert_true (v == RLIM_INFINITY);
    assert_int_equal (rlimits_value ("-1", &v), -1);
    assert_int_equal (rlimits_value ("12x", &v), -1);
    assert_int_equal (rlimits_value ("", &v), -1);
}

static void test_from_env (void **state)
{
    char *env[] = { "PATH=/bin",
                    "SLURM_RLIMIT_NOFILE=512",
                    "SLURM_RLIMIT_CORE=unlimited",
                    "SLURM_RLIMIT_STACK=bad",
                    "SLURM_RLIMIT_FOO=1",
                    "SLURM_RLIMIT_NOFILEX=3",
                    NULL };
    struct rlimits_want w;

    rlimits_from_env (env, 100, &w);
    assert_int_equal (w.mask, bit ("NOFILE") | bit ("CORE"));
    for (size_t i = 0; i < RLIMITS_N; i++) {
        if (!strcmp (rlimits_name (i), "NOFILE"))
            assert_true (w.value[i] == 512);
        if (!strcmp (rlimits_name (i), "CORE"))
            assert_true (w.value[i] == RLIM_INFINITY);
    }
    rlimits_from_env (env, 2, &w); /* n bounds the list */
    assert_int_equal (w.mask, bit ("NOFILE"));
}

static void test_clamp (void **state)
{
    struct rlimits_want w = { 0 };
    rlim_t hard[RLIMITS_N];
    char note[256];
    size_t nofile = 0, core = 0, stack = 0;

    for (size_t i = 0; i < RLIMITS_N; i++) {
        hard[i] = RLIM_INFINITY;
        if (!strcmp (rlimits_name (i), "NOFILE"))
            nofile = i;
        if (!strcmp (rlimits_name (i), "CORE"))
            core = i;
        if (!strcmp (rlimits_name (i), "STACK"))
            stack = i;
    }
    hard[nofile] = 4096;
    hard[core] = 0;
    hard[stack] = 1 << 20;
    w.mask = bit ("NOFILE") | bit ("CORE") | bit ("STACK");
    w.value[nofile] = 100000;
    w.value[core] = RLIM_INFINITY;
    w.value[stack] = 8192; /* within: kept */
    assert_int_equal (rlimits_clamp (&w, hard, note, sizeof (note)), 2);
    assert_true (w.value[nofile] == 4096);
    assert_true (w.value[core] == 0);
    assert_true (w.value[stack] == 8192);
    assert_string_equal (note, "RLIMIT_CORE unlimited lowered to this node's "
                               "hard limit 0, RLIMIT_NOFILE 100000 lowered "
                               "to this node's hard limit 4096");
    assert_int_equal (rlimits_clamp (&w, hard, note, sizeof (note)), 0);
    assert_string_equal (note, "");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse),  cmocka_unit_test (test_select),
        cmocka_unit_test (test_values), cmocka_unit_test (test_from_env),
        cmocka_unit_test (test_clamp),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
