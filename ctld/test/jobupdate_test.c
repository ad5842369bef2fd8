/* jobupdate_test.c - unit tests for JOB_UPDATE (jobupdate.c) and for
 * suspend/resume (action.c): bad keys and values refused with nothing
 * changed; a user may shorten a time limit, not lengthen it; a pending
 * job's partition, node count and nice checked as at submission and kept
 * in its recorded request; a running job only its name and limit;
 * suspend and resume only by an administrator, as SIGSTOP and SIGCONT
 * to every node, the time suspended not counted by the time limit; who
 * may do what administrators do named as it is ("only root may" when
 * ArborUser is root); the id lists of JOB_UPDATE and JOB_ACTION capped. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "job/action.h"
#include "conf.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "job/job.h"
#include "job/jobupdate.h"
#include "nodes/part.h"
#include "proto.h"
#include "states.h"
#include "job/term.h"
#include "timestr.h"

#define USER 4242 /* the jobs' owner: not privileged */
#define ADMIN 0

static const char conf_text[] =
    "ClusterName=t\n"
    "NodedPort=1\n"
    "NodeName=n[1-2] NodeAddr=127.0.0.[1-2] CPUs=2 RealMemory=1000\n"
    "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n"
    "PartitionName=short Nodes=n1 MaxTime=10\n";

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
    .sim_now = 1000000,
};

static struct job *submit (struct ctld *ctx, uint32_t nnodes, uint32_t ntasks,
                           uint32_t minutes)
{
    struct msg_job_alloc r = {
        .nnodes = nnodes, .ntasks = ntasks, .time_limit = minutes, .name = "job"
    };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, USER, &err);

    assert_non_null (j);
    return j;
}

/* update 'id' as 'uid' with "K=V" pairs; the return of job_update. */
static int update (struct ctld *ctx, uint32_t id, uid_t uid, arbor_error_t *err,
                   int n, ...)
{
    char *keys[8], *values[8], buf[8][64];
    struct msg_job_update m = { .job_ids = &id, .job_ids_count = 1 };
    va_list ap;

    va_start (ap, n);
    for (int i = 0; i < n; i++) {
        snprintf (buf[i], sizeof (buf[i]), "%s", va_arg (ap, const char *));
        keys[i] = buf[i];
        values[i] = strchr (buf[i], '=');
        *values[i]++ = '\0';
    }
    va_end (ap);
    m.keys = keys;
    m.values = values;
    m.keys_count = m.values_count = (uint32_t)n;
    errno = 0;
    return job_update (ctx, &m, uid, err);
}

/* A job held pending behind one that takes every CPU. */
static struct job *pending_job (struct ctld *ctx)
{
    struct job *hog = submit (ctx, 2, 4, 30);
    struct job *j = submit (ctx, 1, 0, 30); /* tasks: one per node */

    assert_int_equal (hog->state, JOB_RUNNING);
    assert_int_equal (j->state, JOB_PENDING);
    return j;
}

static void test_bad_input (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    arbor_error_t err;

    assert_int_equal (
        update (ctx, j->id, USER, &err, 2, "JobName=x", "Colour=blue"), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "not supported: Colour"));
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "TimeLimit=soon"), -1);
    assert_non_null (strstr (err.text, "Invalid TimeLimit value: soon"));
    assert_int_equal (
        update (ctx, j->id, USER, &err, 1, "TimeLimit=+UNLIMITED"), -1);
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "NumNodes=0"), -1);
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "NumNodes=1-3"), -1);
    assert_non_null (strstr (err.text, "range is not supported"));
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Nice=lots"), -1);
    assert_int_equal (update (ctx, j->id, USER, &err, 0), -1);
    assert_int_equal (update (ctx, 999, USER, &err, 1, "JobName=x"), -1);
    assert_int_equal (errno, ENOENT);
    assert_string_equal (j->name, "job");
    assert_int_equal (j->time_limit, 30);
}

static void test_time_limit_rules (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    arbor_error_t err;

    assert_int_equal (
        update (ctx, j->id, USER, &err, 2, "TimeLimit=20", "Name=renamed"), 0);
    assert_int_equal (j->time_limit, 20);
    assert_string_equal (j->name, "renamed");
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "timelimit=-5"), 0);
    assert_int_equal (j->time_limit, 15);
    /* longer: not the owner's to decide, and the name stays too */
    assert_int_equal (
        update (ctx, j->id, USER, &err, 2, "TimeLimit=+1", "JobName=other"),
        -1);
    assert_int_equal (errno, EPERM);
    assert_int_equal (j->time_limit, 15);
    assert_string_equal (j->name, "renamed");
    assert_int_equal (update (ctx, j->id, ADMIN, &err, 1, "TimeLimit=1:00:00"),
                      0);
    assert_int_equal (j->time_limit, 60);
    /* the partition's MaxTime holds for everyone */
    assert_int_equal (update (ctx, j->id, ADMIN, &err, 1, "TimeLimit=61"), -1);
    assert_non_null (strstr (err.text, "MaxTime"));
    assert_int_equal (j->time_limit, 60);
    /* another user may not touch it */
    assert_int_equal (update (ctx, j->id, USER + 1, &err, 1, "TimeLimit=5"),
                      -1);
    assert_int_equal (errno, EPERM);
}

static void test_pending_request_changes (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    struct msg_job_alloc req;
    arbor_error_t err;

    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Partition=short"),
                      -1);
    assert_non_null (strstr (err.text, "MaxTime"));
    assert_string_equal (ctx->parts[j->part].name, "debug");
    assert_int_equal (
        update (ctx, j->id, USER, &err, 2, "Partition=short", "TimeLimit=10"),
        0);
    assert_string_equal (ctx->parts[j->part].name, "short");
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "NumNodes=2"), -1);
    assert_non_null (strstr (err.text, "the 1 nodes of partition short"));
    if (update (ctx, j->id, USER, &err, 2, "Partition=debug", "NumNodes=2"))
        fail_msg ("%s", err.text);
    assert_int_equal (j->req.nnodes, 2);
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Nice=-5"), -1);
    assert_int_equal (errno, EPERM);
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Nice=5"), 0);
    assert_int_equal (j->nice, 5);
    assert_int_equal (update (ctx, j->id, ADMIN, &err, 1, "Nice=-5"), 0);
    assert_int_equal (j->nice, -5);
    /* what a restarted controller rebuilds the job from */
    assert_int_equal (
        proto_decode (MSG_JOB_ALLOC, j->request, j->request_len, &req, &err),
        0);
    assert_string_equal (req.partition, "debug");
    assert_int_equal (req.nnodes, 2);
    assert_int_equal (req.nice, -5);
    assert_int_equal (req.time_limit, 10);
    proto_clear (MSG_JOB_ALLOC, &req);
    /* a job that asked for one task cannot spread it over two nodes */
    j = submit (ctx, 1, 1, 30);
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "NumNodes=2"), -1);
    assert_non_null (strstr (err.text, "cannot run 1 task(s) on 2 nodes"));
    assert_int_equal (j->req.nnodes, 1);
}

static void test_running_job (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 1, 1, 30);
    arbor_error_t err;

    assert_int_equal (j->state, JOB_RUNNING);
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Partition=short"),
                      -1);
    assert_non_null (strstr (err.text, "no longer pending"));
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Nice=1"), -1);
    assert_int_equal (
        update (ctx, j->id, USER, &err, 2, "TimeLimit=1", "JobName=late"), 0);
    assert_int_equal (j->time_limit, 1);
    assert_string_equal (j->name, "late");
    /* the shorter limit ends it at the next tick past it */
    term_tick (ctx, j->start_time + 59);
    assert_int_equal (j->state, JOB_RUNNING);
    term_tick (ctx, j->start_time + 61);
    assert_int_equal (j->state, JOB_TIMEOUT);
    assert_int_equal (update (ctx, j->id, ADMIN, &err, 1, "TimeLimit=5"), -1);
    assert_non_null (strstr (err.text, "already finished"));
}

static int action (struct ctld *ctx, uint32_t id, const char *what, uid_t uid,
                   arbor_error_t *err)
{
    struct msg_job_action m = { .job_ids = &id,
                                .job_ids_count = 1,
                                .action = (char *)what };

    errno = 0;
    return job_action (ctx, &m, uid, err);
}

/* STEP_KILLs of 'sig' for job id recorded since the outbox was cleared. */
static size_t kills (uint32_t id, int sig)
{
    const struct sent *s;
    size_t n = 0;

    for (size_t i = 0; (s = outbox_nth (&outbox, MSG_STEP_KILL, i)); i++)
        n += s->msg.step_kill.job_id == id && s->msg.step_kill.signal == sig
             && s->msg.step_kill.step_id == STEP_ID_ALL;
    return n;
}

static void test_suspend_resume (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = submit (ctx, 2, 2, 1);
    time_t t0 = j->start_time;
    arbor_error_t err;

    assert_int_equal (action (ctx, j->id, "suspend", USER, &err), -1);
    assert_int_equal (errno, EPERM);
    outbox_clear (&outbox);
    ctx->sim_now = t0 + 10;
    assert_int_equal (action (ctx, j->id, "suspend", ADMIN, &err), 0);
    assert_true (j->suspended);
    assert_string_equal (job_state_shown (j), "SUSPENDED");
    assert_int_equal (kills (j->id, SIGSTOP), 2); /* both nodes */
    assert_int_equal (action (ctx, j->id, "suspend", ADMIN, &err), -1);
    assert_non_null (strstr (err.text, "already suspended"));
    /* a suspended job's limit does not run out */
    term_tick (ctx, t0 + 200);
    assert_int_equal (j->state, JOB_RUNNING);
    ctx->sim_now = t0 + 130; /* suspended 120 s */
    assert_int_equal (action (ctx, j->id, "resume", ADMIN, &err), 0);
    assert_false (j->suspended);
    assert_int_equal (j->suspended_secs, 120);
    assert_int_equal (kills (j->id, SIGCONT), 2);
    assert_string_equal (job_state_shown (j), "RUNNING");
    assert_int_equal (action (ctx, j->id, "resume", ADMIN, &err), -1);
    assert_non_null (strstr (err.text, "not suspended"));
    /* one minute of running time: t0 + 60 + 120 */
    term_tick (ctx, t0 + 179);
    assert_int_equal (j->state, JOB_RUNNING);
    term_tick (ctx, t0 + 181);
    assert_int_equal (j->state, JOB_TIMEOUT);
}

static void test_suspend_needs_running (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    arbor_error_t err;

    assert_int_equal (action (ctx, j->id, "suspend", ADMIN, &err), -1);
    assert_non_null (strstr (err.text, "pending execution"));
    assert_false (j->suspended);
}

/* Administrators named once: "root", or "root or NAME". */
static void test_admin_wording (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    struct msg_job_alloc raised = { .ntasks = 1, .nice = -1 };
    arbor_error_t err;

    assert_string_equal (ctx->conf->arbor_user, "root");
    assert_null (fixture_submit (ctx, &raised, USER, &err));
    assert_int_equal (errno, EPERM);
    assert_non_null (strstr (err.text, "only root may raise"));
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "TimeLimit=+1"), -1);
    assert_non_null (strstr (err.text, "only root may extend"));
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "Nice=-1"), -1);
    assert_non_null (strstr (err.text, "only root may set"));
    free (ctx->conf->arbor_user);
    assert_non_null (ctx->conf->arbor_user = strdup ("arbor"));
    assert_null (fixture_submit (ctx, &raised, USER, &err));
    assert_non_null (strstr (err.text, "only root or arbor may raise"));
    assert_int_equal (update (ctx, j->id, USER, &err, 1, "TimeLimit=+1"), -1);
    assert_non_null (strstr (err.text, "only root or arbor may extend"));
}

/* At most JOB_MAX_IDS ids in one request, refused before any is looked
 * up (each is a walk through every job). */
static void test_id_lists_capped (void **state)
{
    struct ctld *ctx = *state;
    struct job *j = pending_job (ctx);
    uint32_t n = JOB_MAX_IDS + 1, *ids = calloc (n, sizeof (*ids));
    char *keys[] = { "TimeLimit" }, *values[] = { "5" };
    struct msg_job_update u = {
        .keys = keys, .values = values, .keys_count = 1, .values_count = 1
    };
    struct msg_job_action a = { .action = "hold" };
    arbor_error_t err;

    assert_non_null (ids);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = j->id;
    u.job_ids = ids;
    u.job_ids_count = n - 1;
    u.task_ids = ids;
    u.task_ids_count = 1;
    assert_int_equal (job_update (ctx, &u, USER, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "4097 job ids, at most 4096"));
    assert_int_equal (j->time_limit, 30);
    a.job_ids = ids;
    a.job_ids_count = n;
    assert_int_equal (job_action (ctx, &a, USER, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "4097 job ids, at most 4096"));
    assert_false (j->held);
    /* the cap itself is fine */
    a.job_ids_count = n - 1;
    assert_int_equal (job_action (ctx, &a, USER, &err), 0);
    assert_true (j->held);
    free (ids);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST (test_bad_input, &spec),
        FIXTURE_TEST (test_admin_wording, &spec),
        FIXTURE_TEST (test_id_lists_capped, &spec),
        FIXTURE_TEST (test_time_limit_rules, &spec),
        FIXTURE_TEST (test_pending_request_changes, &spec),
        FIXTURE_TEST (test_running_job, &spec),
        FIXTURE_TEST (test_suspend_resume, &spec),
        FIXTURE_TEST (test_suspend_needs_running, &spec),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
