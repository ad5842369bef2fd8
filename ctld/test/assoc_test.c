/* assoc_test.c - the site's policy (ctld/assoc/): accounts in a tree,
 * users in accounts with a default, who may change what (administrators,
 * operators, coordinators, anyone), what sacctmgr show answers, and a
 * job's account under AccountingStorageEnforce. */
#include <errno.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "assoc/assoc_req.h"
#include "assoc/assoc_show.h"
#include "assoc/policy.h"
#include "ctld.h"
#include "fixture.h"
#include "job/job.h"

static const struct assoc_actor admin = { "root", ASSOC_ADMIN_ADMINISTRATOR };
static const struct assoc_actor oper = { "olga", ASSOC_ADMIN_OPERATOR };

/* Run "VERB ENTITY NAMES... | where... | set..." as who: 0 or -errno;
 * what it said into said (when not NULL). */
static int run (struct assoc *a, const struct assoc_actor *who,
                const char *verb, const char *entity, const char *names,
                const char *where, const char *set, char *errtext)
{
    char *nv[2] = { (char *)names, NULL }, *wv[2] = { (char *)where, NULL };
    char *sv[3] = { NULL, NULL, NULL };
    char *setcopy = set ? strdup (set) : NULL, *save = NULL;
    uint32_t ns = 0;
    for (char *w = setcopy ? strtok_r (setcopy, " ", &save) : NULL; w && ns < 2;
         w = strtok_r (NULL, " ", &save))
        sv[ns++] = w;
    struct msg_assoc_req req = { .verb = (char *)verb,
                                 .entity = (char *)entity,
                                 .names = nv,
                                 .names_count = names ? 1 : 0,
                                 .where = wv,
                                 .where_count = where ? 1 : 0,
                                 .set = sv,
                                 .set_count = ns };
    struct assoc_touched t = { 0 };
    arbor_error_t err = { "" };
    char *said = NULL;
    size_t len = 0;
    FILE *fp = open_memstream (&said, &len);
    int rc = assoc_apply (a, who, &req, fp, &t, &err);

    rc = rc < 0 ? -errno : 0;
    fclose (fp);
    free (said);
    free (setcopy);
    assoc_touched_clear (&t);
    if (errtext)
        strcpy (errtext, err.text);
    return rc;
}

/* physics (root) > theory; chem (root); alice in physics, carol in
 * theory; bob coordinates physics. */
static void site (struct assoc *a)
{
    assert_int_equal (assoc_init (a, "t"), 0);
    assert_int_equal (run (a, &admin, "add", "account", "physics,chem", NULL,
                           "description=Physics", NULL),
                      0);
    assert_int_equal (run (a, &admin, "add", "account", "Theory", NULL,
                           "parent=physics", NULL),
                      0);
    assert_int_equal (run (a, &admin, "add", "user", "alice,bob", NULL,
                           "account=physics", NULL),
                      0);
    assert_int_equal (
        run (a, &admin, "add", "user", "carol", NULL, "account=theory", NULL),
        0);
    assert_int_equal (run (a, &admin, "add", "coordinator", "bob", NULL,
                           "account=physics", NULL),
                      0);
}

static void test_tree (void **state)
{
    struct assoc a;
    char e[256];

    (void)state;
    site (&a);
    assert_string_equal (assoc_find (&a, "account", "theory")->parent,
                         "physics");
    assert_string_equal (assoc_find (&a, "user", "alice")->default_account,
                         "physics");
    assert_true (assoc_under (&a, "theory", "root"));
    /* a loop is refused, the parent must exist, names are checked */
    assert_int_equal (run (&a, &admin, "modify", "account", NULL,
                           "name=physics", "parent=theory", e),
                      -EINVAL);
    assert_string_equal (e, "account 'physics' cannot be under itself "
                            "('theory')");
    assert_int_equal (
        run (&a, &admin, "add", "account", "x", NULL, "parent=nope", e),
        -ENOENT);
    assert_int_equal (run (&a, &admin, "add", "account", "a b", NULL, NULL, e),
                      -EINVAL);
    assert_int_equal (run (&a, &admin, "add", "account", "chem", NULL, NULL, e),
                      -EEXIST);
    assert_int_equal (run (&a, &admin, "add", "user", "dan", NULL,
                           "account=physics colour=red", e),
                      -EINVAL);
    assert_non_null (strstr (e, "unknown key 'colour=red' for add user"));
    assert_int_equal (run (&a, &admin, "add", "user", "dan", NULL, NULL, e),
                      -EINVAL);
    assert_string_equal (e, "Need name of account to add user dan to "
                            "(Account=)");
    /* an account with sub-accounts or users stays */
    assert_int_equal (
        run (&a, &admin, "delete", "account", "physics", NULL, NULL, e),
        -EBUSY);
    assert_string_equal (e, "cannot delete account 'physics': it has "
                            "sub-accounts: delete them first");
    /* a user's last account taken: the user goes */
    assert_int_equal (
        run (&a, &admin, "add", "user", "alice", NULL, "account=chem", NULL),
        0);
    assert_int_equal (run (&a, &admin, "delete", "user", "alice",
                           "account=physics", NULL, NULL),
                      0);
    assert_string_equal (assoc_find (&a, "user", "alice")->default_account,
                         "chem");
    assert_int_equal (
        run (&a, &admin, "delete", "user", "alice", "account=chem", NULL, NULL),
        0);
    assert_null (assoc_find (&a, "user", "alice"));
    assoc_clear (&a);
}

static void test_who_may (void **state)
{
    struct assoc_actor bob = { "bob", ASSOC_ADMIN_NONE };
    struct assoc_actor carol = { "carol", ASSOC_ADMIN_NONE };
    struct assoc a;
    char e[256];

    (void)state;
    site (&a);
    /* bob coordinates physics: its sub-account theory too */
    assert_int_equal (
        run (&a, &bob, "add", "user", "dan", NULL, "account=theory", NULL), 0);
    assert_int_equal (run (&a, &bob, "add", "account", "optics", NULL,
                           "parent=physics", NULL),
                      0);
    /* ... not chem, and never an admin level */
    assert_int_equal (
        run (&a, &bob, "add", "user", "erin", NULL, "account=chem", e), -EPERM);
    assert_string_equal (e, "Access/permission denied: adding users needs an "
                            "operator or administrator, or a coordinator of "
                            "account chem");
    assert_int_equal (run (&a, &bob, "modify", "user", NULL, "name=bob",
                           "adminlevel=operator", e),
                      -EPERM);
    assert_int_equal (run (&a, &bob, "add", "coordinator", "carol", NULL,
                           "account=physics", e),
                      -EPERM);
    /* anyone else changes nothing */
    assert_int_equal (run (&a, &carol, "modify", "user", NULL, "name=carol",
                           "defaultaccount=theory", e),
                      -EPERM);
    /* an operator does all but make an administrator */
    assert_int_equal (run (&a, &oper, "modify", "user", NULL, "name=carol",
                           "adminlevel=operator", NULL),
                      0);
    assert_int_equal (run (&a, &oper, "modify", "user", NULL, "name=carol",
                           "adminlevel=admin", e),
                      -EPERM);
    assert_int_equal (run (&a, &admin, "modify", "user", NULL, "name=carol",
                           "adminlevel=Administrator", NULL),
                      0);
    assert_int_equal (assoc_find (&a, "user", "carol")->admin_level,
                      ASSOC_ADMIN_ADMINISTRATOR);
    assoc_clear (&a);
}

static void test_show (void **state)
{
    char *where[] = { "account=physics", NULL };
    struct msg_assoc_req req = { .verb = "show",
                                 .entity = "association",
                                 .where = where,
                                 .where_count = 1 };
    struct assoc_here here = { "h", "1", "2.14" };
    struct msg_assoc_reply r;
    struct assoc a;
    arbor_error_t err;

    (void)state;
    site (&a);
    assert_int_equal (assoc_show (&a, &here, &req, &r, &err), 0);
    assert_int_equal (r.columns_count, 6);
    /* physics's own row, then its users alice and bob */
    assert_int_equal (r.cells_count, 3 * 6);
    assert_string_equal (r.cells[1], "physics");
    assert_string_equal (r.cells[2], "");
    assert_string_equal (r.cells[5], "root");
    assert_string_equal (r.cells[6 + 2], "alice");
    assert_string_equal (r.cells[12 + 2], "bob");
    proto_clear (MSG_ASSOC_REPLY, &r);
    req.entity = "user";
    req.where_count = 0;
    assert_int_equal (assoc_show (&a, &here, &req, &r, &err), 0);
    assert_string_equal (r.columns[1], "DefaultAccount");
    assert_int_equal (r.columns_count, 7);
    assert_string_equal (r.cells[7 + 0], "bob");
    assert_string_equal (r.cells[7 + 4], "physics"); /* bob coordinates */
    proto_clear (MSG_ASSOC_REPLY, &r);
    req.entity = "qos";
    assert_int_equal (assoc_show (&a, &here, &req, &r, &err), 0);
    assert_string_equal (r.cells[0], "normal");
    proto_clear (MSG_ASSOC_REPLY, &r);
    req.entity = "nosuch";
    assert_int_equal (assoc_show (&a, &here, &req, &r, &err), -1);
    assoc_clear (&a);
}

/* A request is bounded before anything is done with it. */
static void test_bounds (void **state)
{
    char many[300 * 4 + 1] = "", *names[] = { many, NULL };
    struct msg_assoc_req req = {
        .verb = "show", .entity = "user", .names = names, .names_count = 1
    };
    arbor_error_t err;

    (void)state;
    for (int i = 0; i < 300; i++)
        strcat (many, i ? ",u1" : "u1");
    assert_int_equal (assoc_req_bounded (&req, &err), -1);
    assert_string_equal (err.text, "too many names and values (300, at most "
                                   "256)");
    many[4 * 100] = '\0'; /* 100 of them */
    assert_int_equal (assoc_req_bounded (&req, &err), 0);
}

static struct outbox outbox;

/* policy_request on a copy of r (its strings malloc'd as decoded ones):
 * 0 or -1, the account and QOS it chose into acct and qos. */
static int request (struct ctld *ctx, const char *user, const char *account,
                    const char *qos, char *acct, char *q, arbor_error_t *err)
{
    struct msg_job_alloc r = { .account = account ? strdup (account) : NULL,
                               .qos = qos ? strdup (qos) : NULL };
    int rc = policy_request (ctx, user, &r, err);

    strcpy (acct, r.account ? r.account : "");
    strcpy (q, r.qos ? r.qos : "");
    free (r.account);
    free (r.qos);
    return rc;
}

static void test_job_account (void **state)
{
    struct ctld *ctx =
        fixture_ctld (FIXTURE_CONF_N4 "AccountingStorageEnforce=associations,"
                                      "qos\n",
                      &outbox);
    struct assoc *a;
    arbor_error_t err = { "" };
    char acct[64], q[64];

    (void)state;
    assert_non_null (ctx);
    a = &ctx->policy->assoc;
    assert_true (ctx->policy->enforce & POLICY_QOS);
    /* a user in no account is refused as Slurm refuses it */
    assert_int_equal (request (ctx, "alice", NULL, NULL, acct, q, &err), -1);
    assert_string_equal (err.text, "Invalid account or account/partition "
                                   "combination specified");
    assert_int_equal (
        run (a, &admin, "add", "account", "physics,chem", NULL, NULL, NULL), 0);
    assert_int_equal (
        run (a, &admin, "add", "user", "alice", NULL, "account=physics", NULL),
        0);
    /* no -A: the default account, and QOS normal; -A in any case */
    assert_int_equal (request (ctx, "alice", NULL, NULL, acct, q, &err), 0);
    assert_string_equal (acct, "physics");
    assert_string_equal (q, "normal");
    assert_int_equal (request (ctx, "alice", "Physics", NULL, acct, q, &err),
                      0);
    assert_string_equal (acct, "physics");
    /* not an account it is not in, nor one that is none */
    assert_int_equal (request (ctx, "alice", "chem", NULL, acct, q, &err), -1);
    assert_int_equal (request (ctx, "alice", "nosuch", NULL, acct, q, &err),
                      -1);
    /* QOS: one that exists; under qos, one its association may use */
    assert_int_equal (request (ctx, "alice", NULL, "high", acct, q, &err), -1);
    assert_string_equal (err.text, "Invalid qos specification");
    assert_int_equal (
        run (a, &admin, "add", "qos", "high,low", NULL, "priority=100", NULL),
        0);
    assert_int_equal (request (ctx, "alice", NULL, "HIGH", acct, q, &err), 0);
    assert_string_equal (q, "high");
    assert_int_equal (run (a, &admin, "modify", "account", NULL, "name=physics",
                           "qos=normal,low defaultqos=low", NULL),
                      0);
    assert_int_equal (request (ctx, "alice", NULL, "high", acct, q, &err), -1);
    assert_int_equal (request (ctx, "alice", NULL, NULL, acct, q, &err), 0);
    assert_string_equal (q, "low");
    /* the QOS factor: Priority over the highest */
    assert_int_equal (policy_qos_top (ctx), 100);
    assert_int_equal (policy_qos_priority (ctx, "high"), 100);
    fixture_free (ctx);
}

static void test_qos (void **state)
{
    struct assoc a;
    char e[256];

    (void)state;
    site (&a);
    assert_non_null (assoc_find (&a, "qos", "normal"));
    assert_int_equal (run (&a, &admin, "add", "qos", "high", NULL,
                           "priority=10 preempt=normal", NULL),
                      0);
    assert_int_equal (
        run (&a, &admin, "add", "qos", "bad", NULL, "usagefactor=x", e),
        -EINVAL);
    assert_string_equal (e, "UsageFactor=x: a decimal number, 0 or more");
    /* (a refused change may leave its copy half done: new names) */
    assert_int_equal (
        run (&a, &admin, "add", "qos", "bad2", NULL, "preempt=bad2", e),
        -EINVAL);
    assert_string_equal (e, "QOS 'bad2' cannot preempt itself");
    assert_int_equal (run (&a, &admin, "add", "qos", "bad3", NULL,
                           "preemptmode=sometimes", e),
                      -EINVAL);
    /* a QOS something uses stays; normal always */
    assert_int_equal (
        run (&a, &admin, "delete", "qos", "normal", NULL, NULL, e), -EBUSY);
    assert_int_equal (run (&a, &oper, "add", "qos", "low", NULL, NULL, NULL),
                      0);
    assert_int_equal (
        run (&a, &admin, "modify", "user", NULL, "name=alice", "qos=low", NULL),
        0);
    assert_int_equal (run (&a, &admin, "delete", "qos", "low", NULL, NULL, e),
                      -EBUSY);
    assert_string_equal (e, "cannot delete qos 'low': accounts or users use "
                            "it: change them first");
    /* a default outside the list, a coordinator setting QOS: no */
    assert_int_equal (run (&a, &admin, "modify", "user", NULL, "name=alice",
                           "defaultqos=high", e),
                      -EINVAL);
    struct assoc_actor bob = { "bob", ASSOC_ADMIN_NONE };
    assert_int_equal (
        run (&a, &bob, "modify", "user", NULL, "name=carol", "qos=high", e),
        -EPERM);
    assoc_clear (&a);
}

static void test_enforce_words (void **state)
{
    unsigned f;
    arbor_error_t err;

    (void)state;
    assert_int_equal (policy_enforce_parse ("limits,nojobs", &f, &err), 0);
    assert_int_equal (f, POLICY_ASSOCIATIONS | POLICY_LIMITS);
    assert_int_equal (policy_enforce_parse (NULL, &f, &err), 0);
    assert_int_equal (f, 0);
    assert_int_equal (policy_enforce_parse ("associations,bogus", &f, &err),
                      -1);
    assert_string_equal (err.text, "AccountingStorageEnforce: unknown 'bogus' "
                                   "(associations, limits, qos, safe, nojobs, "
                                   "nosteps, wckeys)");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_tree),
        cmocka_unit_test (test_who_may),
        cmocka_unit_test (test_show),
        cmocka_unit_test (test_job_account),
        cmocka_unit_test (test_enforce_words),
        cmocka_unit_test (test_qos),
        cmocka_unit_test (test_bounds),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
