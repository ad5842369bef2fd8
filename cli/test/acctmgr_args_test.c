/* acctmgr_args_test.c - sacctmgr's command words sorted into an ASSOC_REQ
 * (acctmgr/acctmgr_args.h): verbs, entities, names, where and set, format=
 * and the errors, word for word. */
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

/* Parse the NULL-terminated words; the return value of the parser. */
static int parse (struct acctmgr_cmd *c, arbor_error_t *err, ...)
{
    char *words[32];
    int n = 0;
    va_list ap;

    va_start (ap, err);
    while (n < 31 && (words[n] = va_arg (ap, char *)))
        n++;
    va_end (ap);
    words[n] = NULL;
    memset (err, 0, sizeof (*err));
    return acctmgr_args_parse (c, n, words, err);
}

/* The list joined with spaces, into a static buffer. */
static const char *joined (char **list, uint32_t n)
{
    static char buf[512];
    size_t used = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        used += (size_t)snprintf (buf + used, sizeof (buf) - used, "%s%s",
                                  i ? " " : "", list[i]);
    return buf;
}

#define NAMES(c) joined ((c).req.names, (c).req.names_count)
#define WHERE(c) joined ((c).req.where, (c).req.where_count)
#define SET(c) joined ((c).req.set, (c).req.set_count)

/* The command's error text (parse must fail with EINVAL). */
static void expect_error (const char *text, arbor_error_t *err, int rc)
{
    assert_int_equal (rc, -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err->text, text);
}

static void test_verbs (void **state)
{
    static const char *const pairs[][2] = {
        { "add", "add" },       { "CREATE", "add" },    { "modify", "modify" },
        { "Update", "modify" }, { "delete", "delete" }, { "REMOVE", "delete" },
        { "show", "show" },     { "List", "show" },
    };
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    for (size_t i = 0; i < sizeof (pairs) / sizeof (pairs[0]); i++) {
        char *verb = (char *)pairs[i][0];
        int rc;

        if (!strcmp (pairs[i][1], "modify"))
            rc = parse (&c, &err, verb, "account", "a", "set", "descr=x", NULL);
        else
            rc = parse (&c, &err, verb, "account", "a", NULL);
        assert_int_equal (rc, 0);
        assert_string_equal (c.req.verb, pairs[i][1]);
        assert_string_equal (c.req.entity, "account");
        assert_string_equal (NAMES (c), "a");
        assert_false (c.req.dry_run);
        acctmgr_cmd_clear (&c);
    }
}

static void test_entities (void **state)
{
    static const char *const pairs[][2] = {
        { "account", "account" },
        { "Accounts", "account" },
        { "user", "user" },
        { "USERS", "user" },
        { "cluster", "cluster" },
        { "clusters", "cluster" },
        { "coordinator", "coordinator" },
        { "Coordinators", "coordinator" },
        { "association", "association" },
        { "associations", "association" },
        { "assoc", "association" },
        { "qos", "qos" },
        { "QOS", "qos" },
    };
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    for (size_t i = 0; i < sizeof (pairs) / sizeof (pairs[0]); i++) {
        assert_int_equal (parse (&c, &err, "show", (char *)pairs[i][0], NULL),
                          0);
        assert_string_equal (c.req.entity, pairs[i][1]);
        assert_int_equal (c.req.names_count, 0);
        assert_null (c.format);
        acctmgr_cmd_clear (&c);
    }
}

static void test_head_errors (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    expect_error ("No command given (add, modify, delete or show)", &err,
                  parse (&c, &err, NULL));
    expect_error ("Unknown command 'frob' (valid: add, modify, delete, show)",
                  &err, parse (&c, &err, "frob", "account", NULL));
    expect_error ("No entity given after 'Show' (valid: account, user, "
                  "cluster, coordinator, association, qos)",
                  &err, parse (&c, &err, "Show", NULL));
    expect_error ("Unknown entity 'acount' (valid: account, user, cluster, "
                  "coordinator, association, qos)",
                  &err, parse (&c, &err, "add", "acount", "x", NULL));
    expect_error ("Unknown entity 'wckey' (valid: account, user, cluster, "
                  "coordinator, association, qos)",
                  &err, parse (&c, &err, "show", "wckey", NULL));
    assert_null (c.req.verb);
}

/* The qos entity (2.14) and the QOS keys of users and accounts: names
 * and settings as for any entity, keys folded, values as typed. */
static void test_qos (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    assert_int_equal (parse (&c, &err, "add", "qos", "high", "Priority=100",
                             "MaxWall=1-00:00:00", "PreemptMode=requeue", NULL),
                      0);
    assert_string_equal (c.req.entity, "qos");
    assert_string_equal (NAMES (c), "high");
    assert_string_equal (SET (c),
                         "priority=100 maxwall=1-00:00:00 preemptmode=requeue");
    acctmgr_cmd_clear (&c);

    assert_int_equal (parse (&c, &err, "show", "qos", "where", "name=high",
                             "format=Name,Priority", NULL),
                      0);
    assert_string_equal (WHERE (c), "name=high");
    assert_string_equal (c.format, "Name,Priority");
    acctmgr_cmd_clear (&c);

    assert_int_equal (parse (&c, &err, "modify", "user", "where", "name=alice",
                             "set", "QOS=normal,high", "DefaultQOS=normal",
                             NULL),
                      0);
    assert_string_equal (WHERE (c), "name=alice");
    assert_string_equal (SET (c), "qos=normal,high defaultqos=normal");
    acctmgr_cmd_clear (&c);

    assert_int_equal (parse (&c, &err, "delete", "qos", "high", NULL), 0);
    assert_string_equal (NAMES (c), "high");
    acctmgr_cmd_clear (&c);
}

/* Bare words and name= are names, split at commas, kept as typed. */
static void test_names (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    assert_int_equal (parse (&c, &err, "add", "user", "Alice,bob", "carol",
                             "Names=dave,,eve", "user=Fred", "account=phys",
                             NULL),
                      0);
    assert_string_equal (NAMES (c), "Alice bob carol dave eve Fred");
    assert_string_equal (SET (c), "account=phys");
    assert_int_equal (c.req.where_count, 0);
    acctmgr_cmd_clear (&c);

    /* account= names accounts; user= is a condition of them. */
    assert_int_equal (
        parse (&c, &err, "delete", "account", "Accounts=a,b", "User=x", NULL),
        0);
    assert_string_equal (NAMES (c), "a b");
    assert_string_equal (WHERE (c), "user=x");
    acctmgr_cmd_clear (&c);

    assert_int_equal (
        parse (&c, &err, "show", "cluster", "clusters=c1", "name=c2", NULL), 0);
    assert_string_equal (NAMES (c), "c1 c2");
    acctmgr_cmd_clear (&c);

    /* An association has no name key of its own: user= is a condition. */
    assert_int_equal (parse (&c, &err, "show", "assoc", "user=alice", NULL), 0);
    assert_int_equal (c.req.names_count, 0);
    assert_string_equal (WHERE (c), "user=alice");
    acctmgr_cmd_clear (&c);
}

/* Keys fold to lower case, values stay as typed. */
static void test_add_settings (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    assert_int_equal (parse (&c, &err, "add", "account", "physics",
                             "Description=Physics Dept", "Organization=Sci",
                             "parent=", NULL),
                      0);
    assert_string_equal (NAMES (c), "physics");
    assert_string_equal (SET (c),
                         "description=Physics Dept organization=Sci parent=");
    acctmgr_cmd_clear (&c);

    assert_int_equal (parse (&c, &err, "add", "coordinator", "Account=physics",
                             "Names=bob", NULL),
                      0);
    assert_string_equal (NAMES (c), "bob");
    assert_string_equal (SET (c), "account=physics");
    acctmgr_cmd_clear (&c);
}

static void test_modify (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    assert_int_equal (parse (&c, &err, "modify", "user", "where", "Name=alice",
                             "set", "DefaultAccount=Chem", NULL),
                      0);
    assert_int_equal (c.req.names_count, 0);
    assert_string_equal (WHERE (c), "name=alice");
    assert_string_equal (SET (c), "defaultaccount=Chem");
    acctmgr_cmd_clear (&c);

    /* set first, where after, a name before both; keywords in any case. */
    assert_int_equal (parse (&c, &err, "update", "user", "bob", "SET",
                             "adminlevel=Admin", "WHERE", "account=x", NULL),
                      0);
    assert_string_equal (NAMES (c), "bob");
    assert_string_equal (WHERE (c), "account=x");
    assert_string_equal (SET (c), "adminlevel=Admin");
    acctmgr_cmd_clear (&c);

    /* After where, a bare word is still a name. */
    assert_int_equal (parse (&c, &err, "modify", "account", "where", "phys",
                             "set", "descr=d", NULL),
                      0);
    assert_string_equal (NAMES (c), "phys");
    acctmgr_cmd_clear (&c);

    expect_error ("modify needs 'where' before its conditions and 'set' "
                  "before its settings ('DefaultAccount=chem')",
                  &err,
                  parse (&c, &err, "modify", "user", "alice",
                         "DefaultAccount=chem", NULL));
    expect_error ("Bad setting 'alice': 'set' takes KEY=VALUE", &err,
                  parse (&c, &err, "modify", "user", "set", "alice", NULL));
    expect_error ("Nothing to modify: no 'set' settings given", &err,
                  parse (&c, &err, "modify", "user", "alice", NULL));
    expect_error ("Nothing to modify: no names and no 'where' conditions "
                  "given",
                  &err, parse (&c, &err, "modify", "user", "set", "a=b", NULL));
}

static void test_show (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    assert_int_equal (parse (&c, &err, "show", "assoc", "withassoc",
                             "WithCoord", "withdeleted",
                             "Format=Account,User%20", "where", "Account=Phys",
                             "format=share", NULL),
                      0);
    assert_string_equal (c.format, "Account,User%20,share");
    assert_string_equal (WHERE (c), "account=Phys");
    assert_int_equal (c.req.set_count, 0);
    acctmgr_cmd_clear (&c);

    assert_int_equal (parse (&c, &err, "list", "users", "alice", NULL), 0);
    assert_string_equal (NAMES (c), "alice");
    assert_null (c.format);
    acctmgr_cmd_clear (&c);
}

static void test_word_errors (void **state)
{
    struct acctmgr_cmd c;
    arbor_error_t err;

    (void)state;
    expect_error ("'set' is only valid in a modify command", &err,
                  parse (&c, &err, "show", "user", "set", "a=b", NULL));
    expect_error ("'where' is not valid in an add command", &err,
                  parse (&c, &err, "add", "user", "x", "where", "a=b", NULL));
    expect_error ("'withassoc' is only valid in a show command", &err,
                  parse (&c, &err, "delete", "user", "x", "withassoc", NULL));
    expect_error ("format= is only valid in a show command", &err,
                  parse (&c, &err, "delete", "user", "x", "format=user", NULL));
    expect_error ("Bad '=x': KEY=VALUE needs a key", &err,
                  parse (&c, &err, "show", "user", "=x", NULL));
    expect_error ("Nothing to add: no user name given", &err,
                  parse (&c, &err, "add", "user", "account=x", NULL));
    expect_error ("Nothing to delete: no names and no 'where' conditions "
                  "given",
                  &err, parse (&c, &err, "delete", "account", NULL));
    /* Nothing is left behind by a failure. */
    assert_null (c.req.names);
    assert_null (c.format);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_verbs),
        cmocka_unit_test (test_entities),
        cmocka_unit_test (test_head_errors),
        cmocka_unit_test (test_qos),
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_add_settings),
        cmocka_unit_test (test_modify),
        cmocka_unit_test (test_show),
        cmocka_unit_test (test_word_errors),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
