/* acctmgr_table_test.c - sacctmgr show's table (acctmgr/acctmgr_table.h):
 * default columns, Slurm's headers and widths, cells cut with '+',
 * format=NAME%N and %-N, -n, -p and -P, and the errors. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "acctmgr/acctmgr.h"

static char *acct_columns[] = { "Account", "Descr", "Org", "ParentName",
                                "Coordinators" };
static char *acct_cells[] = {
    "root",
    "default root account",
    "root",
    "",
    "",
    "physics",
    "Physics department of the university",
    "science",
    "root",
    "bob,carol",
};

static struct msg_assoc_reply accounts (void)
{
    return (struct msg_assoc_reply){
        .said = "",
        .columns = acct_columns,
        .columns_count = 5,
        .cells = acct_cells,
        .cells_count = 10,
    };
}

/* The table as one string (caller frees); *rc the printer's return. */
static char *table (const struct msg_assoc_reply *r,
                    const struct acctmgr_view *v, arbor_error_t *err, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    assert_non_null (f);
    memset (err, 0, sizeof (*err));
    *rc = acctmgr_table_print (f, r, v, err);
    fclose (f);
    return buf;
}

/* The table of 'r' as v asks, which must print. */
static char *ok_table (const struct msg_assoc_reply *r,
                       const struct acctmgr_view *v)
{
    arbor_error_t err;
    int rc;
    char *s = table (r, v, &err, &rc);

    assert_int_equal (rc, 0);
    return s;
}

static void test_default (void **state)
{
    struct msg_assoc_reply r = accounts ();
    struct acctmgr_view v = { .entity = "account" };
    char *s = ok_table (&r, &v);

    (void)state;
    assert_string_equal (s, "   Account                Descr                  "
                            "Org \n"
                            "---------- -------------------- "
                            "-------------------- \n"
                            "      root default root account                 "
                            "root \n"
                            "   physics Physics department +              "
                            "science \n");
    free (s);
}

static void test_noheader (void **state)
{
    struct msg_assoc_reply r = accounts ();
    struct acctmgr_view v = { .entity = "account", .noheader = true };
    char *s = ok_table (&r, &v);

    (void)state;
    assert_string_equal (s, "      root default root account                 "
                            "root \n"
                            "   physics Physics department +              "
                            "science \n");
    free (s);
}

static void test_parsable (void **state)
{
    struct msg_assoc_reply r = accounts ();
    struct acctmgr_view v = { .entity = "account", .layout = ACCTMGR_PARSABLE };
    char *s = ok_table (&r, &v);

    (void)state;
    assert_string_equal (s, "Account|Descr|Org|\n"
                            "root|default root account|root|\n"
                            "physics|Physics department of the "
                            "university|science|\n");
    free (s);
    v.layout = ACCTMGR_PARSABLE2;
    v.noheader = true;
    v.format = "account,coordinators";
    s = ok_table (&r, &v);
    assert_string_equal (s, "root|\n"
                            "physics|bob,carol\n");
    free (s);
}

/* %N and %-N; the header is cut without '+', cells with. */
static void test_format_widths (void **state)
{
    struct msg_assoc_reply r = accounts ();
    struct acctmgr_view v = { .entity = "account",
                              .format = "org%-5,ACCOUNT%3,,parentname" };
    char *s = ok_table (&r, &v);

    (void)state;
    assert_string_equal (s, "Org   Acc   Par Name \n"
                            "----- --- ---------- \n"
                            "root  ro+            \n"
                            "scie+ ph+       root \n");
    free (s);
    v.format = "Coordinators%1";
    s = ok_table (&r, &v);
    assert_string_equal (s, "C \n"
                            "- \n"
                            "  \n"
                            "+ \n");
    free (s);
}

static void test_format_errors (void **state)
{
    struct msg_assoc_reply r = accounts ();
    struct acctmgr_view v = { .entity = "account", .format = "account,xyz" };
    arbor_error_t err;
    int rc;
    char *s = table (&r, &v, &err, &rc);

    (void)state;
    assert_int_equal (rc, -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "Unknown field 'xyz' (valid: Account, "
                                   "Descr, Org, ParentName, Coordinators)");
    assert_string_equal (s, "");
    free (s);
    static const char *const bad[] = { "account%x", "account%", "account%0",
                                       "account%-", "account%1025" };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        char want[160];
        v.format = bad[i];
        s = table (&r, &v, &err, &rc);
        assert_int_equal (rc, -1);
        snprintf (want, sizeof (want),
                  "Bad width in '%s' (NAME%%N or NAME%%-N, N from 1 to 1024)",
                  bad[i]);
        assert_string_equal (err.text, want);
        assert_string_equal (s, "");
        free (s);
    }
    v.format = ",";
    s = table (&r, &v, &err, &rc);
    assert_int_equal (rc, -1);
    assert_string_equal (err.text, "format= names no field");
    free (s);
}

/* A long list of valid names is cut to fit the error's text. */
static void test_unknown_long (void **state)
{
    char *cols[40], names[40][16];
    struct msg_assoc_reply r = { .columns = cols, .columns_count = 40 };
    struct acctmgr_view v = { .entity = "user", .format = "nope" };
    arbor_error_t err;
    int rc;
    char *s;

    (void)state;
    for (int i = 0; i < 40; i++) {
        snprintf (names[i], sizeof (names[i]), "Column%02d", i);
        cols[i] = names[i];
    }
    s = table (&r, &v, &err, &rc);
    assert_int_equal (rc, -1);
    assert_non_null (strstr (err.text, "Unknown field 'nope' (valid: "
                                       "Column00, Column01, "));
    assert_non_null (strstr (err.text, ", ...)"));
    free (s);
}

/* Defaults the reply lacks are left out; other names are 10 wide. */
static void test_defaults_other (void **state)
{
    char *ucols[] = { "AdminLevel", "Coordinators", "User" };
    char *ucells[] = { "Administrator", "", "alice" };
    struct msg_assoc_reply r = {
        .columns = ucols, .columns_count = 3, .cells = ucells, .cells_count = 3
    };
    struct acctmgr_view v = { .entity = "user" };
    char *s = ok_table (&r, &v);

    (void)state;
    assert_string_equal (s, "      User     Admin \n"
                            "---------- --------- \n"
                            "     alice Administ+ \n");
    free (s);

    /* No defaults for coordinators: every column, in the reply's order. */
    char *ccols[] = { "Account", "Foo" };
    char *ccells[] = { "physics", "bar" };
    r = (struct msg_assoc_reply){
        .columns = ccols, .columns_count = 2, .cells = ccells, .cells_count = 2
    };
    v.entity = "coordinator";
    s = ok_table (&r, &v);
    assert_string_equal (s, "   Account        Foo \n"
                            "---------- ---------- \n"
                            "   physics        bar \n");
    free (s);
}

/* show qos (2.14): Name Priority GraceTime Preempt PreemptMode Flags
 * UsageFactor MaxWall with Slurm's headers and widths, whatever else
 * the reply has; QOS and DefaultQOS ("Def QOS") of users by format=. */
static void test_qos (void **state)
{
    char *qcols[] = { "Name",      "Description", "Priority",
                      "GraceTime", "Preempt",     "PreemptMode",
                      "Flags",     "UsageFactor", "MaxWall" };
    char *qcells[] = { "normal",   "Normal QOS default",
                       "0",        "00:00:00",
                       "",         "cluster",
                       "",         "1.000000",
                       "",         "high",
                       "",         "100",
                       "00:05:00", "normal",
                       "requeue",  "DenyOnLimit",
                       "2.000000", "1-00:00:00" };
    struct msg_assoc_reply r = {
        .columns = qcols, .columns_count = 9, .cells = qcells, .cells_count = 18
    };
    struct acctmgr_view v = { .entity = "qos" };
    char *s = ok_table (&r, &v);

    (void)state;
    assert_string_equal (
        s, "      Name   Priority  GraceTime    Preempt PreemptMode      Flags "
           "UsageFactor     MaxWall \n"
           "---------- ---------- ---------- ---------- ----------- ---------- "
           "----------- ----------- \n"
           "    normal          0   00:00:00                cluster           "
           "    1.000000             \n"
           "      high        100   00:05:00     normal     requeue DenyOnLim+ "
           "   2.000000  1-00:00:00 \n");
    free (s);

    char *ucols[] = { "User", "DefaultAccount", "AdminLevel", "QOS",
                      "DefaultQOS" };
    char *ucells[] = { "alice", "phys", "None", "high,normal", "normal" };
    r = (struct msg_assoc_reply){
        .columns = ucols, .columns_count = 5, .cells = ucells, .cells_count = 5
    };
    v = (struct acctmgr_view){ .entity = "user",
                               .format = "user,qos,defaultqos" };
    s = ok_table (&r, &v);
    assert_string_equal (s, "      User                  QOS   Def QOS \n"
                            "---------- -------------------- --------- \n"
                            "     alice          high,normal    normal \n");
    free (s);
}

static void test_empty_and_bad (void **state)
{
    struct msg_assoc_reply r = accounts ();
    struct acctmgr_view v = { .entity = "cluster" };
    arbor_error_t err;
    int rc;
    char *s;
    char *kcols[] = { "Cluster", "ControlHost", "ControlPort", "RPC" };

    (void)state;
    r = (struct msg_assoc_reply){ .columns = kcols, .columns_count = 4 };
    s = ok_table (&r, &v);
    assert_string_equal (s, "   Cluster     ControlHost  ControlPort   RPC \n"
                            "---------- --------------- ------------ "
                            "----- \n");
    free (s);

    r.cells = acct_cells;
    r.cells_count = 5;
    s = table (&r, &v, &err, &rc);
    assert_int_equal (rc, -1);
    assert_int_equal (errno, EPROTO);
    assert_string_equal (err.text,
                         "The controller's answer has 5 cells for 4 columns");
    assert_string_equal (s, "");
    free (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_default),
        cmocka_unit_test (test_noheader),
        cmocka_unit_test (test_parsable),
        cmocka_unit_test (test_format_widths),
        cmocka_unit_test (test_format_errors),
        cmocka_unit_test (test_unknown_long),
        cmocka_unit_test (test_defaults_other),
        cmocka_unit_test (test_qos),
        cmocka_unit_test (test_empty_and_bad),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
