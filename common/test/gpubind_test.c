/* gpubind_test.c - --gpu-bind values (gpubind.c): what parses and into
 * what, what is refused and where, hostile input, and the text back.
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

#include "gpubind.h"

/* Parse s and give its text back ("ERR: ..." when refused), checking
 * that the text parses again to the same binding and text. */
static char *parsed (const char *s)
{
    static char buf[1024];
    struct gpubind b, again;
    arbor_error_t err = { "" };
    char *t, *t2;

    errno = 0;
    if (gpubind_parse (s, &b, &err) < 0) {
        assert_int_equal (errno, EINVAL);
        assert_null (b.list);
        assert_int_equal (b.mode, GPUBIND_DEFAULT);
        snprintf (buf, sizeof (buf), "ERR: %s", err.text);
        return buf;
    }
    assert_non_null (t = gpubind_text (&b));
    assert_int_equal (gpubind_parse (t, &again, &err), 0);
    assert_non_null (t2 = gpubind_text (&again));
    assert_string_equal (t, t2);
    assert_int_equal (again.mode, b.mode);
    assert_int_equal (again.verbose, b.verbose);
    assert_int_equal (again.n, b.n);
    assert_int_equal (again.nlist, b.nlist);
    if (b.nlist)
        assert_memory_equal (again.list, b.list, b.nlist * sizeof (*b.list));
    snprintf (buf, sizeof (buf), "%s", t);
    free (t);
    free (t2);
    gpubind_clear (&again);
    gpubind_clear (&b);
    return buf;
}

static void test_types (void **state)
{
    struct gpubind b;

    (void)state;
    assert_string_equal (parsed (NULL), "");
    assert_string_equal (parsed (""), "");
    assert_string_equal (parsed ("none"), "none");
    assert_string_equal (parsed ("closest"), "closest");
    assert_string_equal (parsed ("single:1"), "single:1");
    assert_string_equal (parsed ("per_task:2"), "per_task:2");
    assert_string_equal (parsed ("single:1024"), "single:1024");
    assert_string_equal (parsed ("verbose"), "verbose");
    assert_string_equal (parsed ("verbose,closest"), "verbose,closest");
    assert_string_equal (parsed ("VERBOSE,Per_Task:02"), "verbose,per_task:2");
    assert_int_equal (gpubind_parse ("verbose,single:3", &b, NULL), 0);
    assert_int_equal (b.mode, GPUBIND_SINGLE);
    assert_true (b.verbose);
    assert_int_equal (b.n, 3);
    assert_null (b.list);
    gpubind_clear (&b);
    assert_int_equal (gpubind_parse ("verbose", &b, NULL), 0);
    assert_int_equal (b.mode, GPUBIND_DEFAULT);
    assert_true (b.verbose);
    gpubind_clear (&b);
    assert_string_equal (gpubind_mode_name (GPUBIND_MASK), "mask_gpu");
    assert_string_equal (gpubind_mode_name (GPUBIND_DEFAULT), "");
}

static void test_map (void **state)
{
    struct gpubind b;
    const uint64_t want[] = { 2, 2, 2, 0 };

    (void)state;
    assert_string_equal (parsed ("map_gpu:0"), "map_gpu:0");
    assert_string_equal (parsed ("map_gpu:0,1"), "map_gpu:0,1");
    assert_string_equal (parsed ("map_gpu:0*4,1*4"), "map_gpu:0*4,1*4");
    assert_string_equal (parsed ("map_gpu:1,1,0"), "map_gpu:1*2,0");
    assert_string_equal (parsed ("map_gpu:0x10,1023"), "map_gpu:16,1023");
    assert_string_equal (parsed ("map_gpu:3*1,3*2"), "map_gpu:3*3");
    assert_string_equal (parsed ("verbose,MAP_GPU:0X0a"), "verbose,map_gpu:10");
    assert_int_equal (gpubind_parse ("map_gpu:2*3,0", &b, NULL), 0);
    assert_int_equal (b.mode, GPUBIND_MAP);
    assert_int_equal (b.nlist, 4);
    assert_memory_equal (b.list, want, sizeof (want));
    gpubind_clear (&b);
    assert_null (b.list);
    assert_int_equal (b.nlist, 0);
}

static void test_mask (void **state)
{
    struct gpubind b;

    (void)state;
    /* Masks are hexadecimal with or without 0x, as Slurm reads them. */
    assert_string_equal (parsed ("mask_gpu:0x3"), "mask_gpu:0x3");
    assert_string_equal (parsed ("mask_gpu:10"), "mask_gpu:0x10");
    assert_string_equal (parsed ("mask_gpu:0x0f*4,0xf0*4"),
                         "mask_gpu:0xf*4,0xf0*4");
    assert_string_equal (parsed ("mask_gpu:FFFFFFFFFFFFFFFF"),
                         "mask_gpu:0xffffffffffffffff");
    assert_string_equal (parsed ("mask_gpu:0x000000000000000000001"),
                         "mask_gpu:0x1");
    assert_int_equal (gpubind_parse ("mask_gpu:a,1*2", &b, NULL), 0);
    assert_int_equal (b.mode, GPUBIND_MASK);
    assert_int_equal (b.nlist, 3);
    assert_true (b.list[0] == 0xa && b.list[1] == 1 && b.list[2] == 1);
    gpubind_clear (&b);
}

static void test_invalid (void **state)
{
    (void)state;
    assert_string_equal (parsed ("map_gpu:x"),
                         "ERR: invalid --gpu-bind \"map_gpu:x\": a GPU id "
                         "expected at position 9");
    assert_string_equal (parsed ("bogus"),
                         "ERR: invalid --gpu-bind \"bogus\": none, closest, "
                         "single:N, per_task:N, map_gpu:LIST or "
                         "mask_gpu:LIST expected at position 1");
    assert_string_equal (parsed ("map_gpu:1024"),
                         "ERR: invalid --gpu-bind \"map_gpu:1024\": a GPU id "
                         "above 1023 at position 12");
    assert_string_equal (parsed ("mask_gpu:0"),
                         "ERR: invalid --gpu-bind \"mask_gpu:0\": a mask of "
                         "no GPU at position 10");
    assert_string_equal (parsed ("mask_gpu:0x10000000000000000"),
                         "ERR: invalid --gpu-bind "
                         "\"mask_gpu:0x10000000000000000\": a mask beyond "
                         "GPU 63 at position 28");
    assert_string_equal (parsed ("single:0"),
                         "ERR: invalid --gpu-bind \"single:0\": a task count "
                         "(1-1024) expected at position 8");
    assert_string_equal (parsed ("per_task:1025"),
                         "ERR: invalid --gpu-bind \"per_task:1025\": a GPU "
                         "count above 1024 at position 13");
    assert_string_equal (parsed ("verbose,"),
                         "ERR: invalid --gpu-bind \"verbose,\": none, "
                         "closest, single:N, per_task:N, map_gpu:LIST or "
                         "mask_gpu:LIST expected at position 9");
    assert_string_equal (parsed ("verbosenone"),
                         "ERR: invalid --gpu-bind \"verbosenone\": ',' "
                         "expected after verbose at position 8");
    assert_string_equal (parsed ("map_gpu:0,1,"),
                         "ERR: invalid --gpu-bind \"map_gpu:0,1,\": a GPU id "
                         "expected at position 13");
    assert_string_equal (parsed ("map_gpu:0;1"),
                         "ERR: invalid --gpu-bind \"map_gpu:0;1\": ',' or the "
                         "end expected at position 10");
    assert_string_equal (parsed ("map_gpu:0*0"),
                         "ERR: invalid --gpu-bind \"map_gpu:0*0\": a "
                         "repetition count (1-1024) expected at position 11");
    assert_string_equal (parsed ("closest,verbose"),
                         "ERR: invalid --gpu-bind \"closest,verbose\": the "
                         "end expected at position 8");
    assert_string_equal (parsed ("single"),
                         "ERR: invalid --gpu-bind \"single\": none, closest, "
                         "single:N, per_task:N, map_gpu:LIST or "
                         "mask_gpu:LIST expected at position 1");
    /* Each of these is refused, whatever the message says. */
    const char *bad[] = {
        "none,none",     "verbose,verbose,none",
        "map_gpu:",      "map_gpu",
        "map_gpu:-1",    "map_gpu:+1",
        "map_gpu: 1",    "map_gpu:1 ",
        "map_gpu:0x",    "map_gpu:1**2",
        "map_gpu:1*",    "map_gpu:,1",
        "mask_gpu:0x0",  "mask_gpu:g",
        "mask_gpu:0xx1", "single:",
        "single:-1",     "per_task:1x",
        " none",         "none ",
        "map_cpu:0",     "closest:1",
        ",none",         "verbose,,none",
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        if (strncmp (parsed (bad[i]), "ERR: invalid --gpu-bind", 23) != 0)
            fail_msg ("'%s' accepted", bad[i]);
}

/* Long lists, huge counts, long values: bounded, and the message short. */
static void test_hostile (void **state)
{
    size_t len = GPUBIND_LEN_MAX + 100;
    char *s = malloc (len + 1);
    struct gpubind b;
    arbor_error_t err = { "" };

    (void)state;
    assert_non_null (s);
    assert_string_equal (parsed ("map_gpu:0*1024"), "map_gpu:0*1024");
    assert_string_equal (parsed ("map_gpu:0*1000,1*24"), "map_gpu:0*1000,1*24");
    assert_string_equal (parsed ("map_gpu:0*1024,1"),
                         "ERR: invalid --gpu-bind \"map_gpu:0*1024,1\": list "
                         "longer than 1024 entries at position 17");
    assert_string_equal (parsed ("map_gpu:0*99999999999999999999999"),
                         "ERR: invalid --gpu-bind "
                         "\"map_gpu:0*99999999999999999999999\": a repetition "
                         "count above 1024 at position 14");
    assert_string_equal (parsed ("map_gpu:99999999999999999999999"),
                         "ERR: invalid --gpu-bind "
                         "\"map_gpu:99999999999999999999999\": a GPU id above "
                         "1023 at position 12");
    /* A value too long to quote is described without it. */
    strcpy (s, "map_gpu:");
    for (size_t i = 8; i < 200; i += 2)
        memcpy (s + i, "0,", 2);
    strcpy (s + 200, "x");
    assert_int_equal (gpubind_parse (s, &b, &err), -1);
    assert_string_equal (err.text, "invalid --gpu-bind: a GPU id expected at "
                                   "position 201");
    /* 1024 distinct masks, each with the longest text: the text of the
     * longest list still parses back (parsed() checks). */
    char *p = s + sprintf (s, "mask_gpu:");
    for (int i = 0; i < 1024; i++)
        p += sprintf (p, "%s%016x", i ? "," : "", 0x10000000u + (unsigned)i);
    assert_int_equal (gpubind_parse (s, &b, &err), 0);
    assert_int_equal (b.nlist, 1024);
    gpubind_clear (&b);
    assert_string_not_equal (parsed (s), "ERR");
    assert_int_equal (strncmp (parsed (s), "mask_gpu:0x10000000,", 20), 0);
    /* Over GPUBIND_LEN_MAX bytes: refused before it is scanned. */
    memset (s, 'n', len);
    s[len] = '\0';
    assert_int_equal (gpubind_parse (s, &b, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "longer than 32768 bytes"));
    /* Control bytes and high bytes are just unexpected. */
    assert_string_equal (parsed ("map_gpu:0\n"),
                         "ERR: invalid --gpu-bind \"map_gpu:0\n\": ',' or the "
                         "end expected at position 10");
    assert_string_equal (parsed ("\xff\xfe"),
                         "ERR: invalid --gpu-bind \"\xff\xfe\": none, closest, "
                         "single:N, per_task:N, map_gpu:LIST or "
                         "mask_gpu:LIST expected at position 1");
    free (s);
}

static void test_clear (void **state)
{
    struct gpubind b;

    (void)state;
    gpubind_clear (NULL);
    assert_int_equal (gpubind_parse ("map_gpu:1,2", &b, NULL), 0);
    errno = 1234;
    gpubind_clear (&b);
    assert_int_equal (errno, 1234);
    assert_null (b.list);
    gpubind_clear (&b); /* twice is fine */
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_types),   cmocka_unit_test (test_map),
        cmocka_unit_test (test_mask),    cmocka_unit_test (test_invalid),
        cmocka_unit_test (test_hostile), cmocka_unit_test (test_clear),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
