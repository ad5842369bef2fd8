/* cpubind_test.c - srun --cpu-bind values: types, flags, map_cpu lists. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpubind.h"

static void check (const char *s, enum cpubind_type type, bool verbose,
                   const char *text)
{
    arbor_error_t err = { "" };
    struct cpubind b;
    char *t;

    if (cpubind_parse (s, &b, &err) < 0)
        fail_msg ("'%s': %s", s, err.text);
    assert_int_equal (b.type, type);
    assert_int_equal (b.verbose, verbose);
    t = cpubind_text (&b);
    assert_non_null (t);
    assert_string_equal (t, text);
    free (t);
    cpubind_clear (&b);
}

static void test_types (void **state)
{
    check (NULL, CPUBIND_DEFAULT, false, "");
    check ("", CPUBIND_DEFAULT, false, "");
    check ("none", CPUBIND_NONE, false, "none");
    check ("no", CPUBIND_NONE, false, "none");
    check ("cores", CPUBIND_CORES, false, "cores");
    check ("CORES", CPUBIND_CORES, false, "cores");
    check ("verbose", CPUBIND_DEFAULT, true, "verbose");
    check ("v,none", CPUBIND_NONE, true, "verbose,none");
    check ("cores,verbose", CPUBIND_CORES, true, "verbose,cores");
    check ("quiet,cores", CPUBIND_CORES, false, "cores");
    check ("verbose,quiet,none", CPUBIND_NONE, false, "none");
    check ("map_cpu:1,0", CPUBIND_MAP, false, "map_cpu:1,0");
    check ("verbose,map_cpu:0x3,2", CPUBIND_MAP, true, "verbose,map_cpu:0x3,2");
}

static void test_map (void **state)
{
    arbor_error_t err = { "" };
    struct cpubind b;
    static const uint32_t want[] = { 1, 3, 3, 3, 16, 0 };

    assert_int_equal (cpubind_parse ("v,map_cpu:1,3*3,0x10,0", &b, &err), 0);
    assert_int_equal (b.nmap, 6);
    assert_memory_equal (b.map, want, sizeof (want));
    assert_string_equal (b.list, "1,3*3,0x10,0");
    cpubind_clear (&b);
    assert_null (b.map);
}

static void check_bad (const char *s)
{
    arbor_error_t err = { "" };
    struct cpubind b;

    errno = 0;
    if (cpubind_parse (s, &b, &err) == 0)
        fail_msg ("'%s' parsed as type %d", s, b.type);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "invalid --cpu-bind"));
    assert_null (b.map);
    assert_null (b.list);
}

static void test_bad (void **state)
{
    check_bad ("sockets");
    check_bad ("n");
    check_bad ("none,cores");
    check_bad ("cores,");
    check_bad (",cores");
    check_bad ("map_cpu:");
    check_bad ("map_cpu:1,");
    check_bad ("map_cpu:a");
    check_bad ("map_cpu:0x");
    check_bad ("map_cpu:1*0");
    check_bad ("map_cpu:1*");
    check_bad ("map_cpu:70000");
    check_bad ("map_cpu:0*70000");
    check_bad ("none,map_cpu:1");
    check_bad ("xmap_cpu:1");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_types),
        cmocka_unit_test (test_map),
        cmocka_unit_test (test_bad),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
