/* client.c - the commands' blocking connection to arbor-ctld.
 *
 * Commands talk to the controller in plain request/answer order on one
 * blocking socket: there is nothing else to do while waiting, and keeping
 * the socket open is what keeps an allocation alive (the ctld completes a
 * job when the connection that allocated it closes). Answers are matched
 * by matchtag: the ctld may also write on its own to the connection that
 * allocated a job (an RC error with the JOB_ALLOC's tag when the job is
 * cancelled or times out), which is a notice, not the next answer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "client.h"
#include "conf.h"
#include "export.h"
#include "jobinfo.h"
#include "log.h"
#include "net.h"
#include "rpc.h"
#include "session.h"

#define STEP_RETRY_US 200000
#define COMPLETE_TIMEOUT_MS 5000

/* Errors name what failed: the configuration (file:line), munge, or the
 * connection to the controller. */
int client_open (struct client *c, arbor_error_t *err)
{
    arbor_error_t cerr;

    long ctld_uid;

    memset (c, 0, sizeof (*c));
    c->ch.fd = -1;
    if (!(c->conf = conf_load (conf_default_path (), err)))
        return -1;
    if ((ctld_uid = conf_arbor_uid (c->conf)) < 0) {
        errprintf (err, "ArborUser %s: no such user", c->conf->arbor_user);
        goto fail;
    }
    if (!(c->auth = auth_create (c->conf->munge_socket, err)))
        goto fail;
    if (rpc_open (&c->ch, c->auth, c->conf->control_addr, c->conf->ctld_port,
                  (uid_t)ctld_uid, CLIENT_TIMEOUT_MS, &cerr)
        < 0) {
        errprintf (err, "cannot reach the controller: %s", cerr.text);
        goto fail;
    }
    return 0;
fail:
    client_close (c);
    return -1;
}

void client_close (struct client *c)
{
    int e = errno;

    if (c->ch.fd >= 0)
        rpc_close (&c->ch);
    auth_destroy (c->auth);
    conf_destroy (c->conf);
    memset (c, 0, sizeof (*c));
    c->ch.fd = -1;
    errno = e;
}

/* Turn an RC answer into 0 (success) or -1 with errno and err. */
static int client_rc (struct msg_rc *rc, arbor_error_t *err)
{
    int errnum = rc->errnum;

    if (errnum == 0)
        return 0;
    errprintf (err, "%s", rc->text && *rc->text ? rc->text : strerror (errnum));
    errno = errnum;
    return -1;
}

/* A frame that answers no outstanding request. */
static void client_notice (struct client *c, int type, uint32_t tag,
                           union msg_any *msg)
{
    if (type == MSG_RC && msg->rc.errnum != 0 && c->alloc_tag
        && tag == c->alloc_tag && c->notice_errnum == 0) {
        c->notice_errnum = msg->rc.errnum;
        snprintf (c->notice, sizeof (c->notice), "%s",
                  msg->rc.text && *msg->rc.text ? msg->rc.text
                                                : strerror (msg->rc.errnum));
        log_err ("%s", c->notice);
    }
    proto_clear (type, msg);
}

static int64_t client_now_ms (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Receive the next frame tagged with one of tags[0..ntags-1] (notices on
 * the way are handled; *which says whose it is); RC errors become -1,
 * other types are returned in *type with msg decoded (caller clears).
 * timeout_ms <= 0: no limit. */
static int client_recv_any (struct client *c, const uint32_t *tags,
                            size_t ntags, int timeout_ms, uint32_t *which,
                            int *type, union msg_any *msg, arbor_error_t *err)
{
    int64_t deadline = timeout_ms > 0 ? client_now_ms () + timeout_ms : 0;
    uid_t uid;
    int rc;

    for (;;) {
        int left = 0;
        if (deadline) {
            left = (int)(deadline - client_now_ms ());
            if (left <= 0) {
                errno = ETIMEDOUT;
                return errprintf (err, "receive: no answer in time");
            }
        }
        if (rpc_recv_tagged (&c->ch, left, type, which, NULL, msg, &uid, err)
            < 0) {
            *which = 0; /* no frame */
            return -1;
        }
        for (size_t i = 0; i < ntags; i++)
            if (*which == tags[i])
                goto mine;
        client_notice (c, *type, *which, msg);
    }
mine:
    if (*type != MSG_RC)
        return 0;
    rc = client_rc (&msg->rc, err);
    proto_clear (MSG_RC, msg);
    return rc;
}

/* The next frame tagged 'tag', as client_recv_any. */
static int client_recv (struct client *c, uint32_t tag, int timeout_ms,
                        int *type, union msg_any *msg, arbor_error_t *err)
{
    uint32_t got;

    return client_recv_any (c, &tag, 1, timeout_ms, &got, type, msg, err);
}

int client_read_notice (struct client *c, arbor_error_t *err)
{
    union msg_any msg;
    uint32_t tag;
    uid_t uid;
    int type;

    if (rpc_recv_tagged (&c->ch, CLIENT_TIMEOUT_MS, &type, &tag, NULL, &msg,
                         &uid, err)
        < 0)
        return -1;
    client_notice (c, type, tag, &msg);
    return 0;
}

/* A tag for a new request: never the allocation's, whose frames are
 * notices. */
static uint32_t client_next_tag (struct client *c)
{
    uint32_t tag = ++c->matchtag;

    if (tag == c->alloc_tag)
        tag = ++c->matchtag;
    return tag;
}

int client_call (struct client *c, int req_type, const void *req, int resp_type,
                 void *resp, int timeout_ms, arbor_error_t *err)
{
    uint32_t tag = client_next_tag (c);
    union msg_any msg;
    int type;

    if (rpc_send (&c->ch, req_type, tag, req, err) < 0)
        return -1;
    if (client_recv (c, tag, timeout_ms, &type, &msg, err) < 0)
        return -1;
    if (type == MSG_RC && resp_type == MSG_RC)
        return 0;
    if (type != resp_type) {
        proto_clear (type, &msg);
        errno = EPROTO;
        return errprintf (err, "unexpected answer %s from the controller",
                          proto_msg_name (type) ? proto_msg_name (type)
                                                : "(unknown)");
    }
    /* Copy out through the codec: resp is only as big as its own type. */
    if (proto_copy (type, &msg, resp) < 0) {
        proto_clear (type, &msg);
        return errprintf (err, "out of memory");
    }
    proto_clear (type, &msg);
    return 0;
}

bool client_conn_lost (int errnum)
{
    return errnum == ECONNRESET || errnum == EPIPE || errnum == ENOTCONN
           || errnum == ECONNREFUSED || errnum == EBADF || errnum == ESHUTDOWN
           || errnum == ECONNABORTED || errnum == ETIMEDOUT;
}

int client_reconnect (struct client *c, uint32_t job_id, int timeout_ms,
                      arbor_error_t *err)
{
    struct msg_job_attach m = { .job_id = job_id };
    long ctld_uid = conf_arbor_uid (c->conf);
    arbor_error_t cerr;
    uint32_t tag;
    union msg_any msg;
    int type;

    if (c->ch.fd >= 0)
        rpc_close (&c->ch);
    c->ch.fd = -1;
    if (ctld_uid < 0) {
        errno = EINVAL;
        return errprintf (err, "ArborUser %s: no such user",
                          c->conf->arbor_user);
    }
    if (rpc_open (&c->ch, c->auth, c->conf->control_addr, c->conf->ctld_port,
                  (uid_t)ctld_uid, timeout_ms, &cerr)
        < 0)
        return errprintf (err, "cannot reach the controller: %s", cerr.text);
    if (!job_id)
        return 0;
    tag = ++c->matchtag;
    if (rpc_send (&c->ch, MSG_JOB_ATTACH, tag, &m, err) < 0
        || client_recv (c, tag, timeout_ms, &type, &msg, err) < 0) {
        int e = errno;
        rpc_close (&c->ch);
        c->ch.fd = -1;
        errno = e;
        return -1;
    }
    proto_clear (type, &msg);
    c->alloc_tag = tag; /* its notices are tagged so from now on */
    return 0;
}

/* The controller went away while job 'id' waited for its allocation
 * (restarted, or its host did): connect again and attach to the job,
 * which the new controller keeps pending for us a while (persist.h),
 * trying for CLIENT_REATTACH_S seconds. 0 with the tag its allocation
 * will come with in *tag, or -1 with err naming why. */
static int client_alloc_reattach (struct client *c, uint32_t id, uint32_t *tag,
                                  arbor_error_t *err)
{
    log_info ("job %u: the connection to the controller was lost while "
              "waiting (%s); reconnecting",
              id, err->text);
    for (int i = 0; i < CLIENT_REATTACH_S; i++) {
        if (client_reconnect (c, id, CLIENT_TIMEOUT_MS, err) == 0) {
            *tag = c->alloc_tag;
            log_info ("job %u: reconnected; still waiting for resources", id);
            return 0;
        }
        if (!client_conn_lost (errno))
            return -1;
        sleep (1);
    }
    return errprintf (err,
                      "job %u: the controller did not come back within "
                      "%d s: %s",
                      id, CLIENT_REATTACH_S, err->text);
}

int client_alloc (struct client *c, const struct msg_job_alloc *req,
                  struct msg_job_allocated *out, arbor_error_t *err)
{
    uint32_t tag = ++c->matchtag, id = 0;
    union msg_any msg;
    bool told = false;
    int type;

    if (rpc_send (&c->ch, MSG_JOB_ALLOC, tag, req, err) < 0)
        return -1;
    for (;;) {
        if (client_recv (c, tag, 0, &type, &msg, err) < 0) {
            /* Queued: the job outlives the connection. */
            if (id && client_conn_lost (errno)
                && client_alloc_reattach (c, id, &tag, err) == 0)
                continue;
            return -1;
        }
        if (type == MSG_JOB_ALLOCATED) {
            *out = msg.job_allocated;
            c->alloc_tag = tag;
            if (told)
                log_info ("job %u has been allocated resources", out->job_id);
            return 0;
        }
        if (type == MSG_JOB_PENDING && !told) {
            id = msg.job_pending.job_id;
            if (c->say_pending) /* salloc's first line */
                log_info ("Pending job allocation %u", msg.job_pending.job_id);
            log_info ("job %u queued and waiting for resources",
                      msg.job_pending.job_id);
            told = true;
        }
        proto_clear (type, &msg);
        if (type != MSG_JOB_PENDING) {
            errno = EPROTO;
            return errprintf (err, "unexpected answer to JOB_ALLOC");
        }
    }
}

/* STEP_CREATED's I/O key, sealed for us under our session (session.h):
 * opened into out->io_key. A key sealed on a channel without a session
 * cannot be ours. */
static int client_open_io_key (struct client *c, struct msg_step_created *out,
                               arbor_error_t *err)
{
    size_t n = out->io_key_sealed_len;
    char *key;

    if (n == 0)
        return 0;
    if (!c->ch.tcp || n <= SESSION_SEAL_OVERHEAD
        || !(key = calloc (1, n - SESSION_SEAL_OVERHEAD + 1))) {
        proto_clear (MSG_STEP_CREATED, out);
        errno = EPROTO;
        return errprintf (err, "STEP_CREATED: unusable sealed I/O key");
    }
    if (session_open_secret (
            &c->ch.sess, (const unsigned char *)out->io_key_sealed, n, key, err)
        < 0) {
        free (key);
        proto_clear (MSG_STEP_CREATED, out);
        return -1;
    }
    free (out->io_key);
    out->io_key = key;
    return 0;
}

int client_step_create_within (struct client *c,
                               const struct msg_step_create *req,
                               struct msg_step_created *out, int immediate,
                               arbor_error_t *err)
{
    struct timespec t0, now;
    bool told = false;

    clock_gettime (CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (client_call (c, MSG_STEP_CREATE, req, MSG_STEP_CREATED, out,
                         CLIENT_TIMEOUT_MS, err)
            == 0)
            return client_open_io_key (c, out, err);
        if (errno != EBUSY)
            return -1;
        clock_gettime (CLOCK_MONOTONIC, &now);
        if (immediate == 0
            || (immediate > 0 && now.tv_sec - t0.tv_sec >= immediate)) {
            errno = EBUSY; /* err says why the controller refused */
            return -1;
        }
        if (!told)
            log_info ("Job %u step creation temporarily disabled, retrying",
                      req->job_id);
        told = true;
        usleep (STEP_RETRY_US);
    }
}

int client_step_create (struct client *c, const struct msg_step_create *req,
                        struct msg_step_created *out, arbor_error_t *err)
{
    return client_step_create_within (c, req, out, -1, err);
}

int client_step_complete (struct client *c, uint32_t job_id, uint32_t step_id,
                          int rc, bool oom, int exit_code, int signal,
                          arbor_error_t *err)
{
    struct msg_step_complete m = {
        .job_id = job_id,
        .step_id = step_id,
        .node = "",
        .rc = rc,
        .oom = oom,
        .exit_code = exit_code,
        .signal = signal,
    };
    struct msg_rc ans;

    return client_call (c, MSG_STEP_COMPLETE, &m, MSG_RC, &ans,
                        COMPLETE_TIMEOUT_MS, err);
}

int client_job_complete (struct client *c, uint32_t job_id, int rc, int signal,
                         arbor_error_t *err)
{
    struct msg_job_complete m = { .job_id = job_id,
                                  .rc = rc,
                                  .signal = signal };
    struct msg_rc ans;

    return client_call (c, MSG_JOB_COMPLETE, &m, MSG_RC, &ans,
                        COMPLETE_TIMEOUT_MS, err);
}

/* Both requests are sent before either answer is read: one round trip.
 * The answers are taken in whichever order they come; when both fail,
 * the step's error is the one reported. */
int client_step_job_complete (struct client *c,
                              const struct msg_step_complete *step,
                              const struct msg_job_complete *job,
                              arbor_error_t *err)
{
    static const char *const what[2] = { "step complete", "job complete" };
    uint32_t tags[2];
    bool answered[2] = { false, false };
    int rc = 0, failed = 0;

    tags[0] = client_next_tag (c);
    if (rpc_send_more (&c->ch, MSG_STEP_COMPLETE, tags[0], step, err) < 0)
        return -1;
    tags[1] = client_next_tag (c);
    if (rpc_send (&c->ch, MSG_JOB_COMPLETE, tags[1], job, err) < 0)
        return -1;
    while (!answered[0] || !answered[1]) {
        union msg_any msg;
        arbor_error_t one;
        uint32_t which = 0;
        int type = MSG_RC, i;
        int got = client_recv_any (c, tags, 2, COMPLETE_TIMEOUT_MS, &which,
                                   &type, &msg, &one);

        if (which != tags[0] && which != tags[1]) {
            *err = one; /* no frame: the connection failed, or no answer */
            return -1;
        }
        i = which == tags[1];
        if (got == 0 && type != MSG_RC) {
            proto_clear (type, &msg);
            errno = EPROTO;
            snprintf (one.text, sizeof (one.text), "unexpected answer %s",
                      proto_msg_name (type) ? proto_msg_name (type) : "?");
            got = -1;
        }
        if (got < 0 && (rc == 0 || i == 0)) {
            failed = errno;
            errprintf (err, "%s: %s", what[i], one.text);
            rc = -1;
        }
        answered[i] = true;
    }
    errno = failed;
    return rc;
}

void client_acct_clear (struct acct_result *r)
{
    int e = errno;

    for (size_t i = 0; i < r->njobs; i++)
        proto_clear (MSG_ACCT_JOB, &r->jobs[i]);
    for (size_t i = 0; i < r->nsteps; i++)
        proto_clear (MSG_ACCT_STEP, &r->steps[i]);
    free (r->jobs);
    free (r->steps);
    memset (r, 0, sizeof (*r));
    errno = e;
}

/* Decode each record of 'bins' (messages of 'type', 'size' bytes each)
 * onto the end of *arr (*n of them). 0, or -1 with errno and err. */
static int client_acct_decode (const struct proto_bin *bins, uint32_t count,
                               int type, size_t size, void **arr, size_t *n,
                               arbor_error_t *err)
{
    char *grown;

    if (count == 0)
        return 0;
    if (!(grown = realloc (*arr, (*n + count) * size)))
        return errprintf (err, "out of memory");
    *arr = grown;
    for (uint32_t i = 0; i < count; i++) {
        arbor_error_t derr;
        if (proto_decode (type, bins[i].data, bins[i].len, grown + *n * size,
                          &derr)
            < 0)
            return errprintf (err, "bad accounting record: %s", derr.text);
        (*n)++;
    }
    return 0;
}

/* Keep one ACCT_REPLY's records. */
static int client_acct_take (struct acct_result *out,
                             const struct msg_acct_reply *r, arbor_error_t *err)
{
    if (client_acct_decode (r->jobs, r->jobs_count, MSG_ACCT_JOB,
                            sizeof (*out->jobs), (void **)&out->jobs,
                            &out->njobs, err)
            < 0
        || client_acct_decode (r->steps, r->steps_count, MSG_ACCT_STEP,
                               sizeof (*out->steps), (void **)&out->steps,
                               &out->nsteps, err)
               < 0)
        return -1;
    return 0;
}

/* The next frame of the answer: 1 (more to come), 0 (the last), or -1.
 * A plain success RC ends an answer that has no records. */
static int client_acct_frame (struct client *c, uint32_t tag,
                              struct acct_result *out, arbor_error_t *err)
{
    union msg_any msg;
    int type, rc;

    if (client_recv (c, tag, CLIENT_TIMEOUT_MS, &type, &msg, err) < 0)
        return -1;
    if (type == MSG_RC)
        return 0;
    if (type != MSG_ACCT_REPLY) {
        proto_clear (type, &msg);
        errno = EPROTO;
        return errprintf (err, "unexpected answer %s from the controller",
                          proto_msg_name (type) ? proto_msg_name (type)
                                                : "(unknown)");
    }
    rc = client_acct_take (out, &msg.acct_reply, err);
    if (rc == 0)
        rc = msg.acct_reply.more ? 1 : 0;
    proto_clear (type, &msg);
    return rc;
}

int client_acct_query (struct client *c, const struct msg_acct_query *q,
                       struct acct_result *out, arbor_error_t *err)
{
    uint32_t tag = client_next_tag (c);
    int rc;

    memset (out, 0, sizeof (*out));
    if (rpc_send (&c->ch, MSG_ACCT_QUERY, tag, q, err) < 0)
        return -1;
    while ((rc = client_acct_frame (c, tag, out, err)) > 0)
        ;
    if (rc < 0)
        client_acct_clear (out);
    return rc;
}

int client_local_addr (const struct client *c, char *buf, size_t len)
{
    struct sockaddr_in sa;
    socklen_t slen = sizeof (sa);

    if (getsockname (c->ch.fd, (struct sockaddr *)&sa, &slen) < 0)
        return -1;
    if (sa.sin_family != AF_INET) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    if (!inet_ntop (AF_INET, &sa.sin_addr, buf, (socklen_t)len))
        return -1;
    return 0;
}

bool client_uid_privileged (const struct client *c, uid_t uid)
{
    long priv = conf_arbor_uid (c->conf);

    return uid == 0 || (priv >= 0 && (uid_t)priv == uid);
}

const char *client_node_addr (const struct msg_node_info_reply *r,
                              const char *name)
{
    for (uint32_t i = 0; i < r->names_count; i++)
        if (!strcmp (r->names[i], name))
            return i < r->addrs_count && *r->addrs[i] ? r->addrs[i] : name;
    return name;
}

int client_job_env (struct client *c, uint32_t job_id, char ***vars,
                    bool replace, arbor_error_t *err)
{
    struct msg_job_info q = { .job_id = job_id };
    struct job_list jobs;
    int rc = 1;

    if (jobinfo_fetch (c, &q, &jobs, err) < 0)
        return 1;
    errprintf (err, "job %u is not known to the controller", job_id);
    for (size_t i = 0; i < jobs.n; i++) {
        const struct msg_job_rec *r = &jobs.jobs[i].rec;
        struct export_job j = { 0 };
        if (r->id != job_id)
            continue;
        j.start = r->start_time;
        j.time_limit = r->time_limit;
        j.partition = r->partition;
        j.account = r->account;
        j.qos = r->qos;
        rc = export_job (vars, &j, replace);
        break;
    }
    job_list_clear (&jobs);
    return rc;
}
