/* trigger_text_test.c - strigger --get's table (trigger_text.h): its
 * header and columns as strigger prints them, and the event filters. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "trigger_text.h"
#include "trigtype.h"

static uint32_t ids[] = { 2, 7 };
static uint32_t res[] = { TRIG_RES_NODE, TRIG_RES_JOB };
static char *res_ids[] = { "*", "1235" };
static uint32_t types[] = { TRIG_DOWN, TRIG_TIME };
static int32_t offsets[] = { 0, -600 };
static uint32_t uids[] = { 0, 1001 };
static char *users[] = { "root", "joe" };
static uint32_t flags[] = { TRIG_FLAG_PERM, 0 };
static char *progs[] = { "/usr/sbin/notify", "/home/joe/clean_up" };

static struct msg_trigger_get_reply reply (void)
{
    return (struct msg_trigger_get_reply){
        .trig_ids = ids,
        .trig_ids_count = 2,
        .res_types = res,
        .res_types_count = 2,
        .res_ids = res_ids,
        .res_ids_count = 2,
        .types = types,
        .types_count = 2,
        .offsets = offsets,
        .offsets_count = 2,
        .uids = uids,
        .uids_count = 2,
        .users = users,
        .users_count = 2,
        .flags = flags,
        .flags_count = 2,
        .programs = progs,
        .programs_count = 2,
    };
}

/* The table for 'flt' as one string (caller frees). */
static char *table (const struct trigger_filter *flt, bool noheader,
                    unsigned *shown)
{
    struct msg_trigger_get_reply r = reply ();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    assert_non_null (f);
    *shown = trigger_text_print (f, &r, flt, noheader);
    fclose (f);
    return buf;
}

static void test_all (void **state)
{
    struct trigger_filter flt = { 0 };
    unsigned n;
    char *s = table (&flt, false, &n);

    assert_int_equal (n, 2);
    assert_string_equal (
        s, "TRIG_ID RES_TYPE   RES_ID TYPE                                "
           "OFFSET USER     FLAGS PROGRAM\n"
           "      2 node            * down                                "
           "     0 root     PERM  /usr/sbin/notify\n"
           "      7 job          1235 time                                "
           "  -600 joe            /home/joe/clean_up\n");
    free (s);
}

static void test_filters (void **state)
{
    struct trigger_filter by_type = { TRIG_TIME, false };
    struct trigger_filter by_node = { 0, true };
    struct trigger_filter none = { TRIG_FINI, false };
    unsigned n;
    char *s;

    s = table (&by_type, true, &n);
    assert_int_equal (n, 1);
    assert_non_null (strstr (s, "clean_up"));
    assert_null (strstr (s, "TRIG_ID")); /* --noheader */
    free (s);
    s = table (&by_node, false, &n);
    assert_int_equal (n, 1);
    assert_non_null (strstr (s, "notify"));
    free (s);
    s = table (&none, false, &n); /* nothing: not even the header */
    assert_int_equal (n, 0);
    assert_string_equal (s, "");
    free (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_all),
        cmocka_unit_test (test_filters),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
