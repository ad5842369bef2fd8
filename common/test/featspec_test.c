/* featspec_test.c - -C/--constraint expressions (featspec.c): what
 * parses, what is refused and why, the text back, and which nodes can
 * be a job's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "featspec.h"

/* Parse s and give its text back ("ERR: ..." when refused). */
static char *parsed (const char *s)
{
    static char buf[512];
    struct featspec f;
    arbor_error_t err = { "" };
    char *t;

    if (featspec_parse (s, &f, &err) < 0) {
        assert_int_equal (errno, EINVAL);
        snprintf (buf, sizeof (buf), "ERR: %s", err.text);
        return buf;
    }
    assert_non_null (t = featspec_text (&f));
    snprintf (buf, sizeof (buf), "%s", t);
    free (t);
    featspec_clear (&f);
    return buf;
}

static void test_syntax (void **state)
{
    (void)state;
    assert_string_equal (parsed ("a100"), "a100");
    assert_string_equal (parsed ("a&b|c"), "a&b|c");
    assert_string_equal (parsed ("(a|b)&c"), "(a|b)&c");
    assert_string_equal (parsed ("((a))"), "a");
    assert_string_equal (parsed ("[rack1|rack2]"), "[rack1|rack2]");
    assert_string_equal (parsed ("[rack1*2&rack2*4]"), "[rack1*2&rack2*4]");
    assert_string_equal (parsed ("graphics*4"), "graphics*4");
    assert_string_equal (parsed ("ib&[rack1|rack2]"), "ib&[rack1|rack2]");
    assert_string_equal (parsed ("cpu_xeon.v2:x-1"), "cpu_xeon.v2:x-1");
    assert_string_equal (parsed (""), "");
}

static void test_refused (void **state)
{
    (void)state;
    assert_string_equal (parsed ("a&&b"),
                         "ERR: invalid constraint \"a&&b\": a feature name "
                         "expected at position 3");
    assert_string_equal (parsed ("(a|b"), "ERR: invalid constraint \"(a|b\": "
                                          "')' expected at position 5");
    assert_string_equal (parsed ("a b"), "ERR: invalid constraint \"a b\": '&' "
                                         "or '|' expected at position 2");
    assert_string_equal (parsed ("a*0"), "ERR: invalid constraint \"a*0\": a "
                                         "node count (1 to 100000) expected at "
                                         "position 3");
    assert_non_null (strstr (parsed ("[a&b]"), "brackets hold a matching OR"));
    assert_non_null (strstr (parsed ("[a*2|b*1]"), "brackets hold"));
    assert_non_null (strstr (parsed ("[a|[b|c]]"), "inside brackets"));
    assert_non_null (strstr (parsed ("[(a|b)]"), "inside brackets"));
}

static void test_bounds (void **state)
{
    char deep[64], many[1024], long_name[80];

    (void)state;
    memset (deep, '(', 20);
    strcpy (deep + 20, "a");
    memset (deep + 21, ')', 20);
    deep[41] = '\0';
    assert_non_null (strstr (parsed (deep), "nested too deep"));
    many[0] = '\0';
    for (int i = 0; i < 70; i++)
        strcat (many, i ? "&f" : "f");
    assert_non_null (strstr (parsed (many), "too many features"));
    memset (long_name, 'x', 70);
    long_name[70] = '\0';
    assert_non_null (strstr (parsed (long_name), "feature name too long"));
}

static bool ok (const char *spec, const char *feats)
{
    struct featspec f;
    const char *v[8];
    char copy[128], *save = NULL;
    size_t n = 0;
    bool r;

    assert_int_equal (featspec_parse (spec, &f, NULL), 0);
    snprintf (copy, sizeof (copy), "%s", feats);
    for (char *t = strtok_r (copy, ",", &save); t && n < 8;
         t = strtok_r (NULL, ",", &save))
        v[n++] = t;
    r = featspec_node_ok (&f, v, n);
    featspec_clear (&f);
    return r;
}

static void test_nodes (void **state)
{
    (void)state;
    assert_true (ok ("a100", "a100,ib"));
    assert_false (ok ("a100", "v100,ib"));
    assert_true (ok ("a100&ib", "a100,ib"));
    assert_false (ok ("a100&ib", "a100"));
    assert_true (ok ("a100|v100", "v100"));
    assert_true (ok ("(a|b)&c", "b,c"));
    assert_false (ok ("(a|b)&c", "a"));
    /* a bracket or a count: what the node may bring to the job */
    assert_true (ok ("[rack1|rack2]", "rack2"));
    assert_false (ok ("[rack1|rack2]", "rack3"));
    assert_true (ok ("[rack1*2&rack2*4]", "rack2"));
    assert_false (ok ("[rack1*2&rack2*4]", "rack3"));
    assert_true (ok ("graphics*4", "none")); /* the other nodes: anything */
    assert_true (ok ("", ""));               /* no constraint */
}

/* A node's feature list (Features=, AvailableFeatures=). */
static void test_list (void **state)
{
    char many[70 * 3] = "";
    arbor_error_t err;
    size_t n = 0;

    (void)state;
    assert_int_equal (featspec_list_check ("a100,ib", &n, &err), 0);
    assert_int_equal (n, 2);
    assert_int_equal (featspec_list_check ("a,,b", &n, &err), -1);
    assert_string_equal (err.text, "'a,,b': an empty feature name");
    assert_int_equal (featspec_list_check ("a/b", NULL, &err), -1);
    assert_string_equal (err.text, "'a/b': '/' cannot be in a feature name");
    for (int i = 0; i < 65; i++)
        strcat (many, i ? ",f" : "f");
    assert_int_equal (featspec_list_check (many, NULL, &err), -1);
    assert_string_equal (err.text, "more than 64 features");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_syntax), cmocka_unit_test (test_refused),
        cmocka_unit_test (test_bounds), cmocka_unit_test (test_nodes),
        cmocka_unit_test (test_list),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
