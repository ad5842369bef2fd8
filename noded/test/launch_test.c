/* launch_test.c - the launch refusal rules, against fake verified claims.
 *
 * launch_check() is what stands between a verified credential and a
 * started stepd: each test changes one thing in an otherwise good launch
 * and checks the errno and the sentence.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "launch_check.h"
#include "revoke.h"

#define USER_UID 1001
#define ARBOR_UID 900

struct fixture {
    char *slice[3];
    char *argv[1];
    uint32_t tasks[4], cpus[4];
    uint32_t ctasks[4], ccpus[4]; /* what the credential grants */
    char *big[64];
    struct msg_launch req;
    struct msg_cred_claims claims;
    struct launch_policy policy;
    struct revoke *revoked;
};

static int setup (void **state)
{
    static struct fixture fx;

    memset (&fx, 0, sizeof (fx));
    fx.slice[0] = "node2";
    fx.slice[1] = "node3";
    fx.slice[2] = "node4";
    fx.argv[0] = "hostname";
    for (int i = 0; i < 4; i++) {
        fx.tasks[i] = 1;
        fx.cpus[i] = 1;
    }
    fx.req = (struct msg_launch){
        .cred = "token",
        .job_id = 5,
        .step_id = 0,
        .slice = fx.slice,
        .slice_count = 3,
        .budget_ms = 5000,
        .argv = fx.argv,
        .argv_count = 1,
        .step_nodelist = "node[1-4]",
        .tasks = fx.tasks,
        .tasks_count = 4,
        .cpus = fx.cpus,
        .cpus_count = 4,
    };
    for (int i = 0; i < 4; i++) {
        fx.ctasks[i] = 1;
        fx.ccpus[i] = 1;
    }
    fx.claims = (struct msg_cred_claims){
        .job_id = 5,
        .step_id = 0,
        .uid = USER_UID,
        .gid = USER_UID,
        .user = "alice",
        .nodelist = "node[1-4]",
        .tasks = fx.ctasks,
        .tasks_count = 4,
        .cpus = fx.ccpus,
        .cpus_count = 4,
        .io_key = "abc",
        .cluster = "demo",
    };
    fx.revoked = revoke_create (8);
    fx.policy = (struct launch_policy){
        .self = "node2",
        .arbor_uid = ARBOR_UID,
        .revoked = fx.revoked,
        .now = 1000,
    };
    *state = &fx;
    return 0;
}

static int teardown (void **state)
{
    struct fixture *fx = *state;

    revoke_destroy (fx->revoked);
    return 0;
}

/* Run the check; return errno (0 on success) and the text in err. */
static int check (struct fixture *fx, uid_t sender, uint32_t *node_id,
                  arbor_error_t *err)
{
    uint32_t id = 12345;

    err->text[0] = '\0';
    errno = 0;
    if (launch_check (&fx->policy, &fx->req, sender, &fx->claims, &id, err)
        == 0) {
        if (node_id)
            *node_id = id;
        return 0;
    }
    assert_true (errno != 0);
    assert_true (err->text[0] != '\0');
    return errno;
}

static void test_good (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;
    uint32_t node_id;

    assert_int_equal (check (fx, USER_UID, &node_id, &err), 0);
    assert_int_equal (node_id, 1);
    /* forwarded by a noded: root or ArborUser */
    assert_int_equal (check (fx, 0, NULL, &err), 0);
    assert_int_equal (check (fx, ARBOR_UID, NULL, &err), 0);
}

static void test_sender (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    assert_int_equal (check (fx, 1002, NULL, &err), EPERM);
    assert_string_equal (err.text, "uid 1002 may not launch a step of uid "
                                   "1001");
}

static void test_ids (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->req.step_id = 1;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "launch of 5.1 with a credential for 5.0");
    fx->req.step_id = 0;
    fx->req.job_id = 6;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
}

static void test_slice_head (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->slice[0] = "node3";
    fx->slice[1] = "node2";
    assert_int_equal (check (fx, USER_UID, NULL, &err), EINVAL);
    assert_string_equal (err.text, "slice does not start with this node");
    fx->req.slice_count = 0;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EINVAL);
}

static void test_slice_foreign_node (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->slice[2] = "node9";
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "slice node node9 is not in the "
                                   "credential");
}

static void test_slice_duplicate (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->slice[2] = "node2";
    assert_int_equal (check (fx, USER_UID, NULL, &err), EINVAL);
    assert_string_equal (err.text, "slice lists node2 twice");
}

static void test_step_nodes (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;
    char longlist[200];

    fx->req.step_nodelist = "node[1-5]";
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "step node list node[1-5] is not the "
                                   "credential's node[1-4]");
    fx->req.step_nodelist = "node[2-4],node1";
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    /* never expanded, and echoed only in part */
    memset (longlist, 'x', sizeof (longlist) - 1);
    longlist[sizeof (longlist) - 1] = '\0';
    memcpy (longlist, "n[1-9999999]", 12);
    fx->req.step_nodelist = longlist;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_true (strlen (err.text) < 120);
    assert_non_null (strstr (err.text, "..."));
    fx->req.step_nodelist = "node[1-4]";
    fx->req.tasks_count = 3;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EINVAL);
}

/* Item 11 of issue 6: tasks and cpus per node come from the credential. */
static void test_layout_bound_to_credential (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->tasks[1] = 8;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "launch asks for 8 tasks on node2, the "
                                   "credential grants 1");
    fx->tasks[1] = 1;
    fx->cpus[3] = 4;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "launch asks for 4 cpus on node4, the "
                                   "credential grants 1");
    fx->cpus[3] = 1;
    /* fewer tasks than granted is a different layout too */
    fx->ctasks[0] = 2;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "launch asks for 1 tasks on node1, the "
                                   "credential grants 2");
    fx->ctasks[0] = 1;
    /* a credential without a task layout binds nothing: refused */
    fx->claims.tasks_count = 0;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "credential has 0 task counts and 4 cpu "
                                   "counts for 4 nodes");
}

/* Item 8 of issue 6: a slice is never larger than the credential's node
 * list, nor than the cluster, and that is checked before any lookup. */
static void test_slice_bounds (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    for (int i = 0; i < 64; i++)
        fx->big[i] = "node2";
    fx->req.slice = fx->big;
    fx->req.slice_count = 5;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "slice of 5 nodes is larger than the "
                                   "credential's 4");
    fx->req.slice_count = 64;
    assert_int_equal (launch_precheck (&fx->req, 16, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_string_equal (err.text, "slice of 64 nodes is larger than the "
                                   "cluster (16 nodes)");
    assert_int_equal (launch_precheck (&fx->req, 64, &err), 0);
}

static void test_not_for_this_node (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->claims.nodelist = "node[1,3-4]";
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "credential is not valid on node2");
}

static void test_no_command (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    fx->req.argv_count = 0;
    assert_int_equal (check (fx, USER_UID, NULL, &err), EINVAL);
}

static void test_revoked (void **state)
{
    struct fixture *fx = *state;
    arbor_error_t err;

    revoke_add (fx->revoked, 5, 0, 1, 2000);
    assert_int_equal (check (fx, USER_UID, NULL, &err), 0);
    revoke_add (fx->revoked, 5, 0, STEP_ID_ALL, 2000);
    assert_int_equal (check (fx, USER_UID, NULL, &err), EPERM);
    assert_string_equal (err.text, "step 5.0 has been revoked");
    /* after CredExpire the entry is gone (the credential is too) */
    fx->policy.now = 2000;
    assert_int_equal (check (fx, USER_UID, NULL, &err), 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_good, setup, teardown),
        cmocka_unit_test_setup_teardown (test_sender, setup, teardown),
        cmocka_unit_test_setup_teardown (test_ids, setup, teardown),
        cmocka_unit_test_setup_teardown (test_slice_head, setup, teardown),
        cmocka_unit_test_setup_teardown (test_slice_foreign_node, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_slice_duplicate, setup, teardown),
        cmocka_unit_test_setup_teardown (test_step_nodes, setup, teardown),
        cmocka_unit_test_setup_teardown (test_layout_bound_to_credential, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_slice_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown (test_not_for_this_node, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_no_command, setup, teardown),
        cmocka_unit_test_setup_teardown (test_revoked, setup, teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
