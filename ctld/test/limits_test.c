/* limits_test.c - unit tests for what any user may ask of the controller:
 * absurd counts are refused naming the field (JOB_ALLOC, STEP_CREATE),
 * host lists may not name more hosts than the cluster has (NODE_INFO,
 * -w, -x), job lists are filtered on the server and bounded by
 * MaxJobCount, paged by size (JOB_INFO_PAGE_BYTES) so that one user's
 * big jobs never make a listing too large for a frame, what one user
 * keeps is bounded (JOB_MAX_USER_BYTES), a begin time beyond the horizon
 * is refused, an answer too large to send becomes an error answer,
 * refused requests and connections are logged as security events, and
 * big answers do not leave the heap grown. Requests go through
 * serve_request on a socketpair conn, as from a client. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "auth.h"
#include "conn.h"
#include "ctld.h"
#include "error.h"
#include "fixture.h"
#include "hostlist.h"
#include "serve/info.h"
#include "serve/job_info.h"
#include "job/job.h"
#include "log.h"
#include "net.h"
#include "nodes/node.h"
#include "proto.h"
#include "serve/serve.h"
#include "states.h"
#include "job/step.h"
#include "job/term.h"

static const char conf_text[] = FIXTURE_CONF_N4 "MaxJobCount=20\n";

#define OTHER_UID 4242

static struct outbox outbox;

static struct fixture_spec spec = {
    .conf_text = conf_text,
    .out = &outbox,
    .priv_uid = 999,
};

/* Send 'msg' as 'uid' on a fresh conn; the answer's type and body. */
static int ask (struct ctld *ctx, int type, const void *msg, uid_t uid,
                union msg_any *a, size_t *len)
{
    int peer, rtype = -1;
    struct conn *c = fixture_conn (ctx, &peer);

    assert_non_null (c);
    fixture_request (ctx, c, type, msg, uid);
    if (fixture_answer (ctx, peer, &rtype, a, len) < 0)
        rtype = -1;
    conn_destroy (c);
    close (peer);
    return rtype;
}

/* ---- validation (JOB_ALLOC, STEP_CREATE) -------------------------------- */

static void refused (struct ctld *ctx, struct msg_job_alloc r,
                     const char *field)
{
    arbor_error_t err;
    struct job *j = job_create (ctx, &r, getuid (), getgid (), &err);

    assert_null (j);
    assert_int_equal (errno, EINVAL);
    if (!strstr (err.text, field))
        fail_msg ("'%s' does not name %s", err.text, field);
}

static void test_alloc_counts (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc ok = { .cpus_per_task = 1 }, r;

    r = ok;
    r.cpus_per_task = 0;
    refused (ctx, r, "cpus_per_task");
    r = ok;
    r.cpus_per_task = 5;
    refused (ctx, r, "cpus_per_task 5");
    r = ok;
    r.ntasks_per_node = UINT32_MAX;
    refused (ctx, r, "ntasks_per_node 4294967295");
    r = ok;
    r.nnodes = UINT32_MAX;
    refused (ctx, r, "nnodes 4294967295");
    r = ok;
    r.ntasks = UINT32_MAX;
    r.cpus_per_task = 4;
    refused (ctx, r, "ntasks 4294967295");
    r = ok;
    r.mem_mb = UINT64_MAX;
    refused (ctx, r, "mem_mb");
    r = ok;
    r.mem_per_cpu_mb = UINT64_MAX / 2;
    refused (ctx, r, "mem_per_cpu_mb");
    r = ok;
    r.time_limit = UINT32_MAX - 1;
    refused (ctx, r, "time_limit 4294967294");
}

static void test_step_counts (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = { .nnodes = 2, .cpus_per_task = 1 };
    struct msg_step_create s = { 0 }, bad;
    struct msg_step_created out;
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, getuid (), &err);

    assert_non_null (j);
    assert_int_equal (j->state, JOB_RUNNING);
    s.job_id = j->id;
    const struct {
        const char *field;
        int which;
    } cases[] = {
        { "cpus_per_task 5", 0 }, { "ntasks_per_node 4294967295", 1 },
        { "nnodes 3", 2 },        { "ntasks 4294967295", 3 },
        { "mem_mb", 4 },
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        bad = s;
        switch (cases[i].which) {
        case 0: bad.cpus_per_task = 5; break;
        case 1: bad.ntasks_per_node = UINT32_MAX; break;
        case 2: bad.nnodes = 3; break;
        case 3: bad.ntasks = UINT32_MAX; break;
        case 4: bad.mem_mb = UINT64_MAX; break;
        }
        assert_int_equal (
            step_create (ctx, j, &bad, getuid (), getgid (), &out, &err), -1);
        assert_int_equal (errno, EINVAL);
        if (!strstr (err.text, cases[i].field))
            fail_msg ("'%s' does not name %s", err.text, cases[i].field);
    }
}

/* ---- host lists --------------------------------------------------------- */

static void test_hostlist_bound (void **state)
{
    struct ctld *ctx = *state;
    const char *big[] = {
        "n[1-1000000]",  "n[1-5]",       "n1,n2,n3,n4,n1",
        "n[1-3],x[1-2]", "r[1-2]n[1-3]", "n[1-99999999999999999]",
        "n[1-2,4-6]",
    };
    const char *fine[] = { "n[1-4]", "n1,n2", "n[1-2]x", "", "r[1-2]n[1-2]" };
    arbor_error_t err;
    struct hostlist *hl;

    for (size_t i = 0; i < sizeof (big) / sizeof (big[0]); i++) {
        struct timespec a, b;
        clock_gettime (CLOCK_MONOTONIC, &a);
        hl = nodes_hostlist (ctx, big[i], &err);
        clock_gettime (CLOCK_MONOTONIC, &b);
        if (hl)
            fail_msg ("%s accepted", big[i]);
        assert_non_null (strstr (err.text, "more hosts than the 4 nodes"));
        assert_true (b.tv_sec - a.tv_sec < 1); /* not expanded */
    }
    for (size_t i = 0; i < sizeof (fine) / sizeof (fine[0]); i++) {
        if (!(hl = nodes_hostlist (ctx, fine[i], &err)))
            fail_msg ("%s refused: %s", fine[i], err.text);
        hostlist_destroy (hl);
    }
    /* A malformed list is hostlist's to explain. */
    assert_null (nodes_hostlist (ctx, "n[1-", &err));
}

static void test_node_info_expansion (void **state)
{
    struct ctld *ctx = *state;
    struct msg_node_info m = { .nodelist = "n[1-1000000]" };
    struct msg_job_alloc r = { .cpus_per_task = 1, .exclude = "n[1-9999]" };
    union msg_any a;
    arbor_error_t err;

    assert_int_equal (ask (ctx, MSG_NODE_INFO, &m, OTHER_UID, &a, NULL),
                      MSG_RC);
    assert_int_equal (a.rc.errnum, EINVAL);
    assert_non_null (strstr (a.rc.text, "more hosts than the 4 nodes"));
    proto_clear (MSG_RC, &a);
    m.nodelist = "n[2-3]";
    assert_int_equal (ask (ctx, MSG_NODE_INFO, &m, OTHER_UID, &a, NULL),
                      MSG_NODE_INFO_REPLY);
    assert_int_equal (a.node_info_reply.names_count, 2);
    proto_clear (MSG_NODE_INFO_REPLY, &a);
    assert_null (job_create (ctx, &r, getuid (), getgid (), &err));
    assert_non_null (strstr (err.text, "more hosts than the 4 nodes"));
}

/* ---- JOB_INFO ----------------------------------------------------------- */

static struct job *submit_as (struct ctld *ctx, uid_t uid, uint32_t nnodes)
{
    struct msg_job_alloc r = { .nnodes = nnodes,
                               .cpus_per_task = 1,
                               .exclusive = nnodes == 4 };
    arbor_error_t err;
    struct job *j = fixture_submit (ctx, &r, uid, &err);

    assert_non_null (j);
    return j;
}

static uint32_t info_count (struct ctld *ctx, struct msg_job_info *m)
{
    union msg_any a;
    uint32_t n;

    assert_int_equal (ask (ctx, MSG_JOB_INFO, m, OTHER_UID, &a, NULL),
                      MSG_JOB_INFO_REPLY);
    n = a.job_info_reply.job_ids_count;
    proto_clear (MSG_JOB_INFO_REPLY, &a);
    return n;
}

static void test_job_info_filters (void **state)
{
    struct ctld *ctx = *state;
    struct job *mine = submit_as (ctx, OTHER_UID, 4); /* exclusive */
    struct job *wait = submit_as (ctx, getuid (), 1); /* pending */
    struct job *done = submit_as (ctx, getuid (), 1);
    char uid[16], *users[] = { uid }, *pd[] = { "pending" };
    char *ended[] = { "CANCELLED", "COMPLETED" };
    uint32_t ids[] = { mine->id, done->id, 999 };
    struct msg_job_info m = { 0 };

    assert_int_equal (wait->state, JOB_PENDING);
    job_end (ctx, done, JOB_CANCELLED, NULL);
    snprintf (uid, sizeof (uid), "%u", OTHER_UID);
    assert_int_equal (info_count (ctx, &m), 3);
    m.users = users;
    m.users_count = 1;
    assert_int_equal (info_count (ctx, &m), 1);
    m.users_count = 0;
    m.states = pd;
    m.states_count = 1;
    assert_int_equal (info_count (ctx, &m), 1); /* any case */
    m.states = ended;
    m.states_count = 2;
    assert_int_equal (info_count (ctx, &m), 1);
    m.states_count = 0;
    m.job_ids = ids;
    m.job_ids_count = 3;
    assert_int_equal (info_count (ctx, &m), 2);
}

static void test_max_job_count (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = { .nnodes = 1, .cpus_per_task = 1 };
    struct job *first = submit_as (ctx, getuid (), 1);
    arbor_error_t err;

    for (int i = 1; i < 20; i++)
        (void)submit_as (ctx, getuid (), 1);
    assert_null (fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (errno, EAGAIN);
    assert_non_null (strstr (err.text, "MaxJobCount"));
    /* A finished job gives way. */
    job_end (ctx, first, JOB_CANCELLED, NULL);
    (void)fixture_epilogs (ctx, first);
    assert_non_null (fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (ctx->njobs, 20);
}

/* A name of 'len' bytes. */
static char *big_name (size_t len, char fill)
{
    char *s = malloc (len + 1);

    assert_non_null (s);
    memset (s, fill, len);
    s[len] = '\0';
    return s;
}

static void test_answer_too_large (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_info m = { 0 };
    union msg_any a;

    /* Pages hold at least one job: one job too large for a frame alone
     * (its name past every field limit) still makes an error answer. */
    struct job *j = submit_as (ctx, getuid (), 1);
    free (j->name);
    j->name = big_name (17u << 20, 'x');
    assert_int_equal (ask (ctx, MSG_JOB_INFO, &m, OTHER_UID, &a, NULL), MSG_RC);
    assert_int_equal (a.rc.errnum, EMSGSIZE);
    assert_non_null (strstr (a.rc.text, "frame limit"));
    proto_clear (MSG_RC, &a);
}

/* 20 jobs with 1000 KiB node lists each (more than a frame in all): the
 * listing comes in pages of about JOB_INFO_PAGE_BYTES, in id order, each
 * resuming after the last; every job is listed once. */
static void test_job_info_pages (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_info m = { 0 };
    uint32_t seen = 0, last = 0, pages = 0;
    union msg_any a;
    size_t len;

    for (int i = 0; i < 20; i++) {
        struct job *j = submit_as (ctx, getuid (), 1);
        free (j->nodelist);
        j->nodelist = big_name (1000u << 10, 'a' + i);
    }
    do {
        assert_int_equal (ask (ctx, MSG_JOB_INFO, &m, OTHER_UID, &a, &len),
                          MSG_JOB_INFO_REPLY);
        struct msg_job_info_reply *r = &a.job_info_reply;
        assert_true (len < JOB_INFO_PAGE_BYTES + (2u << 20));
        assert_true (r->job_ids_count >= 1);
        assert_int_equal (r->nodelists_count, r->job_ids_count);
        for (uint32_t i = 0; i < r->job_ids_count; i++) {
            assert_true (r->job_ids[i] > last);
            last = r->job_ids[i];
            assert_int_equal (strlen (r->nodelists[i]), 1000u << 10);
        }
        seen += r->job_ids_count;
        if (r->more_after)
            assert_int_equal (r->more_after, last);
        m.after_job_id = r->more_after;
        pages++;
        proto_clear (MSG_JOB_INFO_REPLY, &a);
    } while (m.after_job_id);
    assert_int_equal (seen, 20);
    assert_true (pages >= 4); /* 5 jobs a page: 19.5 MiB in all */
    /* a filter and a resume point together */
    char *users[] = { "0" };
    m.users = users;
    m.users_count = 1;
    m.after_job_id = last - 1;
    assert_int_equal (info_count (ctx, &m), getuid () == 0 ? 1 : 0);
}

/* One user's kept jobs hold at most JOB_MAX_USER_BYTES of requests and
 * commands: over it a submission is refused naming the limit (an array
 * counts each task), another user's is not. */
static void test_user_bytes (void **state)
{
    struct ctld *ctx = *state;
    char *cmd = big_name (4u << 20, 'c'); /* 16 such requests: 64 MiB+ */
    struct msg_job_alloc r = { .nnodes = 1, .cpus_per_task = 1 };
    arbor_error_t err;
    int n = 0;

    r.command = cmd;
    while (n < 20 && fixture_submit (ctx, &r, getuid (), &err))
        n++;
    assert_int_equal (n, 15); /* each request: the command and a little */
    assert_int_equal (errno, EAGAIN);
    assert_non_null (strstr (err.text, "more than the 64 MiB a user may keep"));
    r.command = "small";
    assert_non_null (fixture_submit (ctx, &r, OTHER_UID, &err));
    free (cmd);
}

/* begin_time 2^64-1 (or anything past 100 years) is refused: as a
 * time_t it read -1, which started the job at once. */
static void test_begin_time_horizon (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_alloc r = { .nnodes = 1,
                               .cpus_per_task = 1,
                               .begin_time = UINT64_MAX };
    arbor_error_t err;
    struct job *j;

    assert_null (fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "more than 100 years ahead"));
    r.begin_time = (uint64_t)time (NULL) + 3600;
    assert_non_null (j = fixture_submit (ctx, &r, getuid (), &err));
    assert_int_equal (j->state, JOB_PENDING);
    assert_string_equal (j->reason, "BeginTime");
}

/* ---- security events ---------------------------------------------------- */

static char *slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    char *buf = calloc (1, 65536);

    assert_non_null (buf);
    if (f) {
        size_t n = fread (buf, 1, 65535, f);
        buf[n] = '\0';
        fclose (f);
    }
    return buf;
}

static void test_security_log (void **state)
{
    struct ctld *ctx = *state;
    char path[] = "/tmp/arbor-seclog-XXXXXX";
    int fd = mkstemp (path), fds[2];
    struct msg_node_update up = { .nodelist = "n1",
                                  .state = "DOWN",
                                  .reason = "x" };
    struct msg_job_cancel cancel = { .step_id = STEP_ID_ALL };
    struct job *j = submit_as (ctx, getuid (), 1);
    union msg_any a;
    char *log;

    assert_true (fd >= 0);
    close (fd);
    log_open ("ctld_test", LOG_LVL_WARN, path);
    assert_int_equal (ask (ctx, MSG_NODE_UPDATE, &up, OTHER_UID, &a, NULL),
                      MSG_RC);
    assert_int_equal (a.rc.errnum, EPERM);
    proto_clear (MSG_RC, &a);
    cancel.job_id = j->id;
    assert_int_equal (ask (ctx, MSG_JOB_CANCEL, &cancel, OTHER_UID, &a, NULL),
                      MSG_RC);
    assert_int_equal (a.rc.errnum, EPERM);
    proto_clear (MSG_RC, &a);
    /* A peer that breaks the protocol (bad magic). */
    assert_non_null (ctx->auth = auth_create ("/nonexistent/munge", NULL));
    char sock[64];
    snprintf (sock, sizeof (sock), "/tmp/arbor-seclog-%d.sock", (int)getpid ());
    int lfd = net_listen_unix (sock, 0600, NULL);
    assert_true (lfd >= 0);
    struct serve *sv = serve_create (ctx, lfd);
    assert_non_null (sv);
    assert_true ((fds[1] = net_connect_unix (sock, NULL)) >= 0);
    assert_int_equal (write (fds[1], "GET / HTTP/1.0\r\n\r\n\r\n\r\n\r\n", 24),
                      24);
    for (int i = 0; i < 200; i++) { /* accepted, refused, closed */
        ev_run (ctx->loop, EVRUN_NOWAIT);
        usleep (1000);
    }
    close (fds[1]);
    unlink (sock);
    log_open ("ctld_test", LOG_LVL_WARN, NULL);
    log = slurp (path);
    unlink (path);
    if (!strstr (log, "security: NODE_UPDATE from unix (uid 4242)")
        && !strstr (log, "security: request from unix (uid 4242) refused"))
        fail_msg ("no security line for NODE_UPDATE:\n%s", log);
    if (!strstr (log, "security: cancel from unix (uid 4242) refused"))
        fail_msg ("no security line for JOB_CANCEL:\n%s", log);
    if (!strstr (log, "security: connection from unix refused"))
        fail_msg ("no security line for the bad peer:\n%s", log);
    free (log);
    serve_destroy (sv);
    auth_destroy (ctx->auth);
    ctx->auth = NULL;
}

/* ---- heap --------------------------------------------------------------- */

static void test_heap_after_big_answers (void **state)
{
    struct ctld *ctx = *state;
    struct msg_job_info m = { 0 };
    struct mallinfo2 mi;
    size_t len;

    ctld_mem_init ();
    for (int i = 0; i < 20; i++) {
        struct job *j = submit_as (ctx, getuid (), 1);
        free (j->name);
        j->name = big_name (200u << 10, 'a' + i % 26); /* 4 MB in all */
    }
    for (int round = 0; round < 3; round++) {
        assert_int_equal (ask (ctx, MSG_JOB_INFO, &m, OTHER_UID, NULL, &len),
                          MSG_JOB_INFO_REPLY);
        assert_true (len > (3u << 20));
    }
    mi = mallinfo2 ();
    if (mi.fordblks > (2u << 20))
        fail_msg ("%zu bytes of free heap kept after big answers", mi.fordblks);
}

#define T(f) FIXTURE_TEST (f, &spec)

int main (void)
{
    const struct CMUnitTest tests[] = {
        T (test_alloc_counts),           T (test_step_counts),
        T (test_hostlist_bound),         T (test_node_info_expansion),
        T (test_job_info_filters),       T (test_max_job_count),
        T (test_answer_too_large),       T (test_security_log),
        T (test_heap_after_big_answers), /* before big heaps of others */
        T (test_job_info_pages),         T (test_user_bytes),
        T (test_begin_time_horizon),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
