/* hostlist_test.c - unit tests for hostlist expansion and ranged form. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hostlist.h"

/* Expand 'expr' and compare with the space-separated 'want'. */
static void check_expand (const char *expr, const char *want)
{
    arbor_error_t err = { "" };
    struct hostlist *hl = hostlist_create (expr, &err);
    char *copy = strdup (want), *save = NULL, *tok;
    size_t i = 0;

    if (!hl)
        fail_msg ("'%s': %s", expr, err.text);
    for (tok = strtok_r (copy, " ", &save); tok;
         tok = strtok_r (NULL, " ", &save), i++) {
        assert_non_null (hostlist_nth (hl, i));
        assert_string_equal (hostlist_nth (hl, i), tok);
    }
    assert_int_equal (hostlist_count (hl), i);
    assert_null (hostlist_nth (hl, i));
    free (copy);
    hostlist_destroy (hl);
}

/* hostlist_ranged of 'expr' must be 'want', and expand back to the same. */
static void check_ranged (const char *expr, const char *want)
{
    struct hostlist *hl = hostlist_create (expr, NULL);
    char *r;

    assert_non_null (hl);
    r = hostlist_ranged (hl);
    assert_non_null (r);
    assert_string_equal (r, want);
    struct hostlist *back = hostlist_create (r, NULL);
    assert_non_null (back);
    assert_int_equal (hostlist_count (back), hostlist_count (hl));
    for (size_t i = 0; i < hostlist_count (hl); i++)
        assert_string_equal (hostlist_nth (back, i), hostlist_nth (hl, i));
    hostlist_destroy (back);
    hostlist_destroy (hl);
    free (r);
}

static void check_bad (const char *expr, const char *want_text)
{
    arbor_error_t err = { "" };

    errno = 0;
    assert_null (hostlist_create (expr, &err));
    assert_int_equal (errno, EINVAL);
    if (!strstr (err.text, want_text))
        fail_msg ("'%s': error '%s' lacks '%s'", expr, err.text, want_text);
    /* The text quotes the expression. */
    assert_non_null (strstr (err.text, expr));
}

static void test_empty (void **state)
{
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char *r;

    assert_non_null (hl);
    assert_int_equal (hostlist_count (hl), 0);
    r = hostlist_ranged (hl);
    assert_string_equal (r, "");
    free (r);
    hostlist_destroy (hl);
    check_expand ("", "");
    check_expand (" , ", "");
    hostlist_destroy (NULL);
}

static void test_plain (void **state)
{
    check_expand ("n1", "n1");
    check_expand ("login,n1,n2", "login n1 n2");
    check_expand ("a b\tc", "a b c");
    check_expand ("n1,n1", "n1 n1"); /* duplicates kept */
}

static void test_ranges (void **state)
{
    check_expand ("n[1-3]", "n1 n2 n3");
    check_expand ("n[1-3,7,10-11]", "n1 n2 n3 n7 n10 n11");
    check_expand ("n[3]", "n3");
    check_expand ("n[8-10]", "n8 n9 n10");
    check_expand ("n[1-2]x", "n1x n2x");
    check_expand ("[1-2]", "1 2");
    check_expand ("n[1-2],login,m[5-6]", "n1 n2 login m5 m6");
    check_expand ("127.0.1.[1-3]", "127.0.1.1 127.0.1.2 127.0.1.3");
}

static void test_padding (void **state)
{
    check_expand ("n[001-003,010]", "n001 n002 n003 n010");
    check_expand ("n[08-10]", "n08 n09 n10");
    check_expand ("n[098-101]", "n098 n099 n100 n101");
    check_expand ("n[0-2]", "n0 n1 n2");
    check_expand ("n[00-02]", "n00 n01 n02");
    check_expand ("n[010-012]", "n010 n011 n012");
}

static void test_cross_product (void **state)
{
    check_expand ("r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2");
    check_expand ("r[1-2]-n[01-03]",
                  "r1-n01 r1-n02 r1-n03 r2-n01 r2-n02 r2-n03");
    check_expand ("a[1,3]b[5]c[7-8]", "a1b5c7 a1b5c8 a3b5c7 a3b5c8");
    check_expand ("a[1-2,5]b[7,09-10]",
                  "a1b7 a1b09 a1b10 a2b7 a2b09 a2b10 a5b7 a5b09 a5b10");
}

static void test_malformed (void **state)
{
    check_bad ("n[3-1]", "range 3-1 is decreasing");
    check_bad ("n[1-", "missing ']'");
    check_bad ("n[1-]", "bad range");
    check_bad ("n[a]", "bad range");
    check_bad ("n[]", "bad range");
    check_bad ("n[1,,2]", "bad range");
    check_bad ("n[1-2-3]", "bad range");
    check_bad ("n1]", "unbalanced ']'");
    check_bad ("n[1[2]]", "nested '['");
    check_bad ("n[1]]", "unbalanced ']'");
    check_bad ("n[-1]", "bad range");
}

static void test_cap (void **state)
{
    arbor_error_t err = { "" };
    struct hostlist *hl;

    errno = 0;
    assert_null (hostlist_create ("n[1-1000001]", &err));
    assert_int_equal (errno, E2BIG);
    assert_non_null (strstr (err.text, "more than 1000000 hosts"));
    /* The cap applies to the product too. */
    assert_null (hostlist_create ("a[1-1000]b[1-1001]", &err));
    assert_int_equal (errno, E2BIG);
    assert_null (hostlist_create ("n[1-999999999999999999]", &err));
    hl = hostlist_create ("n[1-1000000]", &err);
    assert_non_null (hl);
    assert_int_equal (hostlist_count (hl), 1000000);
    assert_string_equal (hostlist_nth (hl, 999999), "n1000000");
    assert_int_equal (hostlist_append (hl, "x"), -1);
    assert_int_equal (hostlist_append_expr (hl, "x", &err), -1);
    assert_int_equal (hostlist_count (hl), 1000000);
    hostlist_destroy (hl);
}

static void test_append_find (void **state)
{
    arbor_error_t err;
    struct hostlist *hl = hostlist_create ("n[1-3]", NULL);

    assert_int_equal (hostlist_find (hl, "n2"), 1);
    assert_int_equal (hostlist_find (hl, "n4"), -1);
    assert_int_equal (hostlist_append (hl, "n4"), 0);
    assert_int_equal (hostlist_find (hl, "n4"), 3);
    errno = 0;
    assert_int_equal (hostlist_append (hl, "n[5]"), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (hostlist_append (hl, ""), -1);
    assert_int_equal (hostlist_append (hl, "a,b"), -1);
    assert_int_equal (hostlist_append_expr (hl, "m[1-2]", &err), 0);
    assert_int_equal (hostlist_count (hl), 6);
    assert_string_equal (hostlist_nth (hl, 5), "m2");
    /* A failed append leaves the list as it was. */
    assert_int_equal (hostlist_append_expr (hl, "x1,x[2-3],y[", &err), -1);
    assert_int_equal (hostlist_count (hl), 6);
    assert_int_equal (hostlist_find (hl, "x1"), -1);
    hostlist_destroy (hl);
}

/* The index answers as hostlist_find does: the first of duplicates, -1
 * for a stranger, on a list with several groups and multi-range
 * brackets. */
static void test_index (void **state)
{
    struct hostlist *hl =
        hostlist_create ("n[1-300,500],x,r[1-2]c[01-3],n7,a", NULL);
    struct hostlist_index *ix;
    const char *strangers[] = { "n0", "n301", "", "r1c1", "zz", "A" };

    (void)state;
    assert_non_null (hl);
    assert_int_equal (hostlist_count (hl), 301 + 1 + 6 + 2);
    assert_non_null (ix = hostlist_index_create (hl));
    for (size_t i = 0; i < hostlist_count (hl); i++) {
        const char *h = hostlist_nth (hl, i);
        assert_int_equal (hostlist_index_find (ix, h), hostlist_find (hl, h));
    }
    assert_int_equal (hostlist_index_find (ix, "n7"), 6); /* not 308 */
    for (size_t i = 0; i < sizeof (strangers) / sizeof (strangers[0]); i++)
        assert_int_equal (hostlist_index_find (ix, strangers[i]), -1);
    assert_int_equal (hostlist_index_find (NULL, "n1"), -1);
    hostlist_index_destroy (ix);
    hostlist_destroy (hl);
    hl = hostlist_create (NULL, NULL); /* empty */
    assert_non_null (ix = hostlist_index_create (hl));
    assert_int_equal (hostlist_index_find (ix, "n1"), -1);
    hostlist_index_destroy (ix);
    hostlist_destroy (hl);
}

static void test_ranged (void **state)
{
    check_ranged ("n1,n2,n3,x,n5", "n[1-3],x,n5");
    check_ranged ("n5", "n5");
    check_ranged ("n1,n2,n3,n5", "n[1-3,5]");
    check_ranged ("n3,n2,n1", "n[3,2,1]");
    check_ranged ("n[001-003,010]", "n[001-003,010]");
    check_ranged ("n[08-10]", "n[08-10]");
    check_ranged ("n[8-10]", "n[8-10]");
    check_ranged ("n1,n01", "n1,n01");
    check_ranged ("n01,n1", "n01,n1");
    check_ranged ("login,login", "login,login");
    check_ranged ("rack1-n2,rack1-n3,rack2-n1", "rack1-n[2-3],rack2-n1");
    check_ranged ("n1a,n2a", "n1a,n2a");
    check_ranged ("r[1-2]n[1-2]", "r1n[1-2],r2n[1-2]");
    check_ranged ("n1,n1,n2", "n[1,1-2]");
    check_ranged ("127.0.1.[1-4]", "127.0.1.[1-4]");
    check_ranged ("1,2,3", "[1-3]");
    check_ranged ("n0,n1", "n[0-1]");
    check_ranged ("n099,n100,n1000", "n[099-100,1000]");
}

/* Random lists from a few prefixes, paddings and numbers must survive
 * hostlist_create (hostlist_ranged (h)) unchanged. */
static void test_ranged_random (void **state)
{
    static const char *const prefixes[] = { "n", "rack1-n", "x", "", "a0b" };
    static const char *const plain[] = { "login", "n1a", "head-", "gw" };
    unsigned seed = 12345;

    for (int round = 0; round < 500; round++) {
        struct hostlist *hl = hostlist_create (NULL, NULL);
        int n = rand_r (&seed) % 40;
        for (int i = 0; i < n; i++) {
            char name[64];
            int r = rand_r (&seed) % 10;
            if (r == 0) {
                snprintf (name, sizeof (name), "%s", plain[rand_r (&seed) % 4]);
            } else {
                int base = (i * 3 + rand_r (&seed) % 3) % 120;
                snprintf (name, sizeof (name), "%s%0*d",
                          prefixes[rand_r (&seed) % 5], rand_r (&seed) % 4,
                          r < 7 ? i : base);
            }
            assert_int_equal (hostlist_append (hl, name), 0);
        }
        char *s = hostlist_ranged (hl);
        arbor_error_t err = { "" };
        struct hostlist *back = hostlist_create (s, &err);
        if (!back)
            fail_msg ("'%s': %s", s, err.text);
        assert_int_equal (hostlist_count (back), hostlist_count (hl));
        for (size_t i = 0; i < hostlist_count (hl); i++) {
            if (strcmp (hostlist_nth (back, i), hostlist_nth (hl, i)))
                fail_msg ("round %d: '%s' gave %s for %s", round, s,
                          hostlist_nth (back, i), hostlist_nth (hl, i));
        }
        free (s);
        hostlist_destroy (back);
        hostlist_destroy (hl);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_empty),
        cmocka_unit_test (test_plain),
        cmocka_unit_test (test_ranges),
        cmocka_unit_test (test_padding),
        cmocka_unit_test (test_cross_product),
        cmocka_unit_test (test_malformed),
        cmocka_unit_test (test_cap),
        cmocka_unit_test (test_append_find),
        cmocka_unit_test (test_index),
        cmocka_unit_test (test_ranged),
        cmocka_unit_test (test_ranged_random),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
