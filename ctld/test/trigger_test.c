/* trigger_test.c - event triggers (trigger.h): who may set, list and
 * clear them; node and job events firing them; and spawn.c running a
 * program as asked (argv, environment, its end reported). */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "conn.h"
#include "ctld.h"
#include "fixture.h"
#include "job/job.h"
#include "nodes/node.h"
#include "proto.h"
#include "notify/spawn.h"
#include "job/term.h"
#include "notify/trigger.h"
#include "notify/trigger_event.h"
#include "notify/trigger_private.h"
#include "trigtype.h"

static const char conf_text[] = FIXTURE_CONF_N4;

#define PRIV_UID 4321
#define USER_UID 1001
#define OTHER_UID 1002

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
    .priv_uid = PRIV_UID,
};

/* Send 'msg' as 'uid'; the answer's type, decoded into *a. */
static int ask (struct ctld *ctx, int type, const void *msg, uid_t uid,
                union msg_any *a)
{
    int peer, rtype = -1;
    struct conn *c = fixture_conn (ctx, &peer);

    assert_non_null (c);
    fixture_request (ctx, c, type, msg, uid);
    assert_int_equal (fixture_answer (ctx, peer, &rtype, a, NULL), 0);
    conn_destroy (c);
    close (peer);
    return rtype;
}

/* TRIGGER_SET as uid: the new id, or -errnum (its text in why). */
static int set (struct ctld *ctx, uint32_t res, const char *id, uint32_t types,
                int32_t offset, const char *prog, uid_t uid, char *why)
{
    struct msg_trigger_set m = { .res_type = res,
                                 .res_id = (char *)id,
                                 .types = types,
                                 .offset = offset,
                                 .program = (char *)prog };
    union msg_any a;
    int rc;

    if (ask (ctx, MSG_TRIGGER_SET, &m, uid, &a) == MSG_TRIGGER_SET_REPLY) {
        rc = (int)a.trigger_set_reply.trig_id;
        proto_clear (MSG_TRIGGER_SET_REPLY, &a);
        return rc;
    }
    snprintf (why, 200, "%s", a.rc.text ? a.rc.text : "");
    rc = -a.rc.errnum;
    proto_clear (MSG_RC, &a);
    return rc;
}

static int clear (struct ctld *ctx, uint32_t id, uint32_t job, uint32_t who,
                  uid_t uid)
{
    struct msg_trigger_clear m = { id, job, who };
    union msg_any a;
    int rc;

    assert_int_equal (ask (ctx, MSG_TRIGGER_CLEAR, &m, uid, &a), MSG_RC);
    rc = a.rc.errnum;
    proto_clear (MSG_RC, &a);
    return rc;
}

/* How many triggers TRIGGER_GET lists (as anyone). */
static uint32_t listed (struct ctld *ctx)
{
    struct msg_trigger_get m = { 0, 0, UINT32_MAX };
    union msg_any a;
    uint32_t n;

    assert_int_equal (ask (ctx, MSG_TRIGGER_GET, &m, OTHER_UID, &a),
                      MSG_TRIGGER_GET_REPLY);
    n = a.trigger_get_reply.trig_ids_count;
    proto_clear (MSG_TRIGGER_GET_REPLY, &a);
    return n;
}

static struct job *submit (struct ctld *ctx, uid_t uid)
{
    struct msg_job_alloc r = {
        .name = "t", .partition = "", .cwd = "/", .nnodes = 1, .ntasks = 1
    };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, uid, &err);

    if (!j)
        fail_msg ("submit: %s", err.text);
    return j;
}

static void test_set_rules (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, OTHER_UID);
    char why[200] = "", id[16], path[] = "/tmp/trigger_test_XXXXXX";
    int fd = mkstemp (path);

    snprintf (id, sizeof (id), "%u", j->id);
    /* a node trigger: anyone; a job trigger: its owner or an admin */
    assert_true (
        set (ctx, TRIG_RES_NODE, "*", TRIG_DOWN, 0, "/bin/true", USER_UID, why)
        > 0);
    assert_int_equal (
        set (ctx, TRIG_RES_JOB, id, TRIG_FINI, 0, "/bin/true", USER_UID, why),
        -EPERM);
    assert_non_null (strstr (why, "not yours"));
    assert_true (
        set (ctx, TRIG_RES_JOB, id, TRIG_FINI, 0, "/bin/true", OTHER_UID, why)
        > 0);
    assert_true (
        set (ctx, TRIG_RES_JOB, id, TRIG_FINI, 5, "/bin/true", PRIV_UID, why)
        > 0);
    /* the same again: refused */
    assert_int_equal (
        set (ctx, TRIG_RES_JOB, id, TRIG_FINI, 0, "/bin/true", OTHER_UID, why),
        -EEXIST);
    /* a program its owner may not execute, or none, or relative */
    assert_true (fd >= 0);
    fchmod (fd, 0700);
    close (fd);
    assert_int_equal (
        set (ctx, TRIG_RES_NODE, "*", TRIG_UP, 0, path, USER_UID, why),
        -EACCES);
    unlink (path);
    assert_int_equal (set (ctx, TRIG_RES_NODE, "*", TRIG_UP, 0,
                           "/nonexistent/prog", USER_UID, why),
                      -ENOENT);
    assert_int_equal (
        set (ctx, TRIG_RES_NODE, "*", TRIG_UP, 0, "true", USER_UID, why),
        -EINVAL);
    /* events that do not fit the resource, unknown nodes and jobs */
    assert_int_equal (
        set (ctx, TRIG_RES_NODE, "*", TRIG_FINI, 0, "/bin/true", USER_UID, why),
        -EINVAL);
    assert_int_equal (
        set (ctx, TRIG_RES_JOB, id, TRIG_IDLE, 0, "/bin/true", OTHER_UID, why),
        -EINVAL);
    assert_true (
        set (ctx, TRIG_RES_NODE, "n9", TRIG_DOWN, 0, "/bin/true", USER_UID, why)
        < 0);
    assert_int_equal (set (ctx, TRIG_RES_JOB, "999", TRIG_FINI, 0, "/bin/true",
                           USER_UID, why),
                      -ENOENT);
    assert_int_equal (set (ctx, TRIG_RES_NODE, "*", TRIG_DOWN, 40000,
                           "/bin/true", USER_UID, why),
                      -EINVAL);
    assert_int_equal (listed (ctx), 3);
}

static void test_clear_rules (void **state)
{
    struct ctld *ctx = *state;
    char why[200];
    int mine = set (ctx, TRIG_RES_NODE, "n1", TRIG_DOWN, 0, "/bin/true",
                    USER_UID, why);
    int other = set (ctx, TRIG_RES_NODE, "n2", TRIG_DOWN, 0, "/bin/true",
                     OTHER_UID, why);

    assert_true (mine > 0 && other > 0);
    /* not one's own: refused, and it stays */
    assert_int_equal (clear (ctx, (uint32_t)other, 0, UINT32_MAX, USER_UID),
                      EPERM);
    assert_int_equal (listed (ctx), 2);
    assert_int_equal (clear (ctx, 0, 0, UINT32_MAX, USER_UID), EINVAL);
    assert_int_equal (clear (ctx, 77, 0, UINT32_MAX, USER_UID), ESRCH);
    /* by user: only one's own go */
    assert_int_equal (clear (ctx, 0, 0, USER_UID, USER_UID), 0);
    assert_int_equal (listed (ctx), 1);
    /* an administrator may clear anyone's */
    assert_int_equal (clear (ctx, (uint32_t)other, 0, UINT32_MAX, PRIV_UID), 0);
    assert_int_equal (listed (ctx), 0);
}

static struct trigger *find (struct ctld *ctx, int id)
{
    for (struct trigger *t = ctx->triggers->head; t; t = t->next)
        if ((int)t->id == id)
            return t;
    return NULL;
}

/* Events fire the triggers that watch them (an offset keeps the program
 * from running here: the fixture's loop is not the default one). */
static void test_events (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, USER_UID);
    time_t now = time (NULL);
    char why[200], id[16];
    int down2, down1, upall, fini, drained;

    snprintf (id, sizeof (id), "%u", j->id);
    down2 = set (ctx, TRIG_RES_NODE, "n2", TRIG_DOWN, 100, "/bin/true",
                 USER_UID, why);
    down1 = set (ctx, TRIG_RES_NODE, "n[1,3]", TRIG_DOWN, 100, "/bin/true",
                 USER_UID, why);
    upall =
        set (ctx, TRIG_RES_NODE, "*", TRIG_UP, 100, "/bin/true", USER_UID, why);
    drained = set (ctx, TRIG_RES_NODE, "*", TRIG_DRAINED, 100, "/bin/echo x",
                   USER_UID, why);
    fini =
        set (ctx, TRIG_RES_JOB, id, TRIG_FINI, 100, "/bin/true", USER_UID, why);
    trigger_tick (ctx, now); /* a first look at the nodes */
    assert_int_equal (find (ctx, down1)->state, TRIGGER_ARMED);
    assert_int_equal (node_admin_down (ctx, 1, "test", 0, now), 0);  /* n2 */
    assert_int_equal (node_admin_drain (ctx, 3, "test", 0, now), 0); /* n4 */
    trigger_tick (ctx, now + 1);
    assert_int_equal (find (ctx, down2)->state, TRIGGER_FIRED);
    assert_string_equal (find (ctx, down2)->arg, "n2");
    assert_int_equal (find (ctx, down2)->run_at, now + 1 + 100);
    assert_int_equal (find (ctx, down1)->state, TRIGGER_ARMED);
    assert_int_equal (find (ctx, drained)->state, TRIGGER_FIRED);
    assert_string_equal (find (ctx, drained)->arg, "n4");
    assert_int_equal (find (ctx, upall)->state, TRIGGER_ARMED);
    assert_int_equal (find (ctx, fini)->state, TRIGGER_ARMED);
    node_resume (ctx, 1, now + 2);
    node_register (ctx, 1, 4, 1000, NULL, now + 2);
    job_end (ctx, j, JOB_CANCELLED, NULL);
    trigger_tick (ctx, now + 2);
    assert_int_equal (find (ctx, upall)->state, TRIGGER_FIRED);
    assert_string_equal (find (ctx, upall)->arg, "n2");
    assert_int_equal (find (ctx, fini)->state, TRIGGER_FIRED);
    assert_string_equal (find (ctx, fini)->arg, id);
    /* fired, not PERM: no longer listed */
    assert_int_equal (listed (ctx), 1);
}

/* ---- spawn ------------------------------------------------------------ */

static int spawn_status = -1;

static void spawn_cb (int status, bool timed_out, void *arg)
{
    spawn_status = timed_out ? -2 : status;
}

static void test_spawn (void **state)
{
    struct ev_loop *loop = ev_default_loop (0);
    char out[] = "/tmp/trigger_spawn_XXXXXX", cmd[256], line[256] = "";
    int fd = mkstemp (out);
    char *argv[] = { "sh", "-c", cmd, "prog", "n[1-2]", NULL };
    char *env[] = { "FOO=bar", NULL };
    struct spawn_req r = {
        .path = "/bin/sh", .argv = argv, .env = env, .timeout = 10
    };
    arbor_error_t err;
    FILE *f;

    assert_true (fd >= 0);
    close (fd);
    snprintf (cmd, sizeof (cmd), "echo \"$0 $1 $FOO $(pwd)\" > %s; exit 3",
              out);
    assert_non_null (spawn_start (loop, &r, spawn_cb, NULL, &err));
    for (int i = 0; i < 500 && spawn_status == -1; i++)
        ev_run (loop, EVRUN_ONCE);
    assert_true (WIFEXITED (spawn_status));
    assert_int_equal (WEXITSTATUS (spawn_status), 3);
    assert_non_null (f = fopen (out, "r"));
    assert_non_null (fgets (line, sizeof (line), f));
    fclose (f);
    unlink (out);
    assert_string_equal (line, "prog n[1-2] bar /\n");
    /* a program that hangs is killed at its timeout */
    char *argv2[] = { "sleep", "30", NULL };
    struct spawn_req r2 = {
        .path = "/bin/sleep", .argv = argv2, .env = env, .timeout = 0.2
    };
    spawn_status = -1;
    assert_non_null (spawn_start (loop, &r2, spawn_cb, NULL, &err));
    for (int i = 0; i < 500 && spawn_status == -1; i++)
        ev_run (loop, EVRUN_ONCE);
    assert_int_equal (spawn_status, -2);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST (test_set_rules, &spec),
        FIXTURE_TEST (test_clear_rules, &spec),
        FIXTURE_TEST (test_events, &spec),
        cmocka_unit_test (test_spawn),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
