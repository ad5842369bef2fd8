/* gresalloc_test.c - what a job or step holds on a node (gresalloc.c):
 * the text a credential carries, parsed and written back; damaged texts
 * refused naming why. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gresalloc.h"

/* s parsed and written back, or "ERR: ..." */
static const char *round_trip (const char *s)
{
    static char buf[GRESALLOC_TEXT_MAX];
    struct gresalloc a;
    arbor_error_t err = { "" };

    if (gresalloc_parse (s, &a, &err) < 0) {
        assert_int_equal (errno, EINVAL);
        assert_int_equal (a.n, 0);
        snprintf (buf, sizeof (buf), "ERR: %s", err.text);
        return buf;
    }
    return gresalloc_text (&a, buf, sizeof (buf));
}

static void test_valid (void **state)
{
    (void)state;
    assert_string_equal (round_trip (""), "");
    assert_string_equal (round_trip (NULL), "");
    assert_string_equal (round_trip ("gpu=0"), "gpu=0");
    assert_string_equal (round_trip ("gpu=3,0-1"), "gpu=0-1,3");
    assert_string_equal (round_trip ("gpu=0-1,1-2;nic=0;mps*100"),
                         "gpu=0-2;nic=0;mps*100");
    assert_string_equal (round_trip ("gpu=1023"), "gpu=1023");
}

static void test_invalid (void **state)
{
    (void)state;
    assert_string_equal (round_trip ("gpu"),
                         "ERR: invalid resources \"gpu\": NAME=INDICES or "
                         "NAME*COUNT expected");
    assert_string_equal (round_trip ("gpu="),
                         "ERR: invalid resources \"gpu=\": bad indices");
    assert_string_equal (round_trip ("gpu=1024"),
                         "ERR: invalid resources \"gpu=1024\": bad indices");
    assert_string_equal (round_trip ("gpu=2-1"),
                         "ERR: invalid resources \"gpu=2-1\": bad indices");
    assert_string_equal (round_trip ("gpu=0,"),
                         "ERR: invalid resources \"gpu=0,\": bad indices");
    assert_string_equal (round_trip ("gpu=0;"),
                         "ERR: invalid resources \"gpu=0;\": a trailing ';'");
    assert_string_equal (round_trip ("gpu=0;gpu=1"),
                         "ERR: invalid resources \"gpu=0;gpu=1\": a resource "
                         "named twice");
    assert_string_equal (round_trip ("mps*0"),
                         "ERR: invalid resources \"mps*0\": bad count");
    assert_string_equal (round_trip ("g-pu=0"),
                         "ERR: invalid resources \"g-pu=0\": a bad resource "
                         "name");
}

/* Hostile: many items, huge numbers, a long text. */
static void test_hostile (void **state)
{
    char big[GRESALLOC_TEXT_MAX + 64];
    size_t at = 0;

    (void)state;
    for (int i = 0; i < 17; i++)
        at += (size_t)snprintf (big + at, sizeof (big) - at, "%sr%d=0",
                                i ? ";" : "", i);
    assert_string_equal (round_trip (big),
                         "ERR: invalid resources: too many resources");
    assert_string_equal (round_trip ("mps*99999999999999999999999"),
                         "ERR: invalid resources \"mps*99999999999999999999999"
                         "\": bad count");
    memset (big, '0', sizeof (big) - 1);
    big[sizeof (big) - 1] = '\0';
    assert_string_equal (round_trip (big), "ERR: invalid resources: too long");
}

static void test_helpers (void **state)
{
    struct gresalloc a = { 0 };
    struct gresalloc_item *it;
    char buf[64];

    (void)state;
    assert_non_null (it = gresalloc_get (&a, "gpu", true));
    gresalloc_set (it, 5);
    gresalloc_set (it, 5);
    gresalloc_set (it, 7);
    gresalloc_set (it, 9999); /* out of range: ignored */
    assert_int_equal (it->count, 2);
    assert_true (gresalloc_has (it, 7) && !gresalloc_has (it, 6));
    assert_ptr_equal (gresalloc_get (&a, "gpu", true), it);
    assert_string_equal (gresalloc_indices (it, buf, sizeof (buf)), "5,7");
    assert_null (gresalloc_find (&a, "nic"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_valid),
        cmocka_unit_test (test_invalid),
        cmocka_unit_test (test_hostile),
        cmocka_unit_test (test_helpers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
