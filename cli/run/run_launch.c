/* run_launch.c - send LAUNCH to node zero and judge its one answer.
 *
 * The launcher connects to node zero's noded (addrs[0]:noded_port) and
 * sends LAUNCH with the credential, the whole step node list as the
 * slice and LaunchTimeout as the budget, as a request on that connection
 * (common/wire/request_conn.h: matchtag, answer and time limit are the
 * request's), and waits on the event loop (the stepds start connecting
 * back before the answer comes). LAUNCH_REPLY with
 * errnum 0 means every node started its stepd. Anything else - an error
 * reply, the connection closing, no answer within the budget - prints one
 * line per failed node and kills whatever did start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conn.h"
#include "export.h"
#include "hostlist.h"
#include "log.h"
#include "net.h"
#include "request_conn.h"
#include "authpool.h"
#include "run_launch.h"
#include "run_io.h"
#include "run_pty.h"
#include "run_signal.h"

#define LAUNCH_SLACK_S 2.0 /* on top of the budget before we give up */
#define HELLO_GRACE_S 10.0 /* after a good reply, for late IO_HELLOs */

static const char *run_node0 (const struct run_ctx *ctx, char *buf, size_t len)
{
    struct hostlist *hl = hostlist_create (ctx->step.nodelist, NULL);
    const char *n = hl ? hostlist_nth (hl, 0) : NULL;

    snprintf (buf, len, "%s", n ? n : "node zero");
    hostlist_destroy (hl);
    return buf;
}

/* The launch failed: say why, kill what started, finish. */
static void run_launch_fail (struct run_ctx *ctx)
{
    ctx->launch_failed = true;
    ev_timer_stop (ctx->loop, &ctx->launch_timer);
    if (ctx->launch_conn) {
        conn_destroy (ctx->launch_conn);
        ctx->launch_conn = NULL;
    }
    run_abort (ctx);
    run_check_done (ctx);
}

static void run_launch_failed_nodes (struct run_ctx *ctx,
                                     const struct msg_launch_reply *r)
{
    char node[128];

    for (uint32_t i = 0; i < r->failed_nodes_count; i++)
        log_err ("launch failed on %s: %s", r->failed_nodes[i],
                 i < r->failed_errors_count ? r->failed_errors[i]
                                            : "unknown error");
    if (r->failed_nodes_count == 0)
        log_err ("launch failed on %s: %s",
                 run_node0 (ctx, node, sizeof (node)),
                 r->text && *r->text ? r->text : strerror (r->errnum));
}

/* After a good reply, every node's stepd has said hello or is about to:
 * tasks of a node still silent after HELLO_GRACE_S are lost. */
static void run_hello_deadline_cb (struct ev_loop *loop, ev_timer *w,
                                   int revents)
{
    struct run_ctx *ctx = w->data;
    bool lost = false;

    for (uint32_t i = 0; i < ctx->tasks.n; i++) {
        if (ctx->tasks.t[i].state == TASK_STARTING) {
            tasks_set_lost (&ctx->tasks, i);
            lost = true;
        }
    }
    if (lost)
        log_err ("some stepds never connected back: their tasks are lost");
    run_check_done (ctx);
}

/* LAUNCH_REPLY with errnum 0: every node started its stepd. */
static void run_launch_ok (struct run_ctx *ctx)
{
    ctx->launch_replied = true;
    run_verbose (ctx, "step %u.%u launched in %.0f ms", ctx->job_id,
                 ctx->step.step_id, (ev_time () - ctx->launch_t0) * 1000.0);
    ev_timer_stop (ctx->loop, &ctx->launch_timer);
    conn_destroy (ctx->launch_conn);
    ctx->launch_conn = NULL;
    if (ctx->nhello < ctx->step.addrs_count)
        run_timer_start (ctx, &ctx->launch_timer, run_hello_deadline_cb,
                         HELLO_GRACE_S);
    run_check_done (ctx);
}

/* Why there was no good answer, one line per failed node. */
static void run_launch_why (struct run_ctx *ctx,
                            const struct request_result *res)
{
    char node[128];

    run_node0 (ctx, node, sizeof (node));
    if (res->outcome == REQUEST_ANSWERED) {
        run_launch_failed_nodes (ctx, res->msg);
    } else if (res->outcome == REQUEST_REFUSED) {
        const struct msg_rc *rc = res->msg;
        log_err ("launch failed on %s: %s", node,
                 rc->text && *rc->text ? rc->text : strerror (rc->errnum));
    } else if (res->outcome == REQUEST_TIMEDOUT) {
        log_err ("launch failed on %s: no answer within %u ms", node,
                 ctx->cl.conf->launch_timeout * 1000);
    } else if (res->outcome == REQUEST_UNREACHED) {
        log_err ("launch: cannot send to %s: %s", node, res->err.text);
    } else {
        log_err ("launch failed: %s", res->err.text);
    }
}

static void run_launch_done_cb (const struct request_result *res, void *arg)
{
    struct run_ctx *ctx = arg;

    if (ctx->launch_failed || ctx->launch_replied)
        return; /* over already (the conn closed: run_launch_closed) */
    if (res->outcome == REQUEST_ANSWERED
        && ((const struct msg_launch_reply *)res->msg)->errnum == 0) {
        run_launch_ok (ctx);
        return;
    }
    run_launch_why (ctx, res);
    run_launch_fail (ctx);
}

/* Frames that are not the answer: nothing else comes on this conn. */
static void run_launch_frame (struct conn *c, const struct frame *f, void *arg)
{
}

static void run_launch_closed (struct conn *c, const arbor_error_t *err,
                               void *arg)
{
    struct run_ctx *ctx = arg;
    char node[128];

    ctx->launch_conn = NULL;
    if (ctx->launch_failed || ctx->launch_replied)
        return;
    log_err ("launch failed on %s: connection closed%s%s",
             run_node0 (ctx, node, sizeof (node)),
             err && err->text[0] ? ": " : "", err ? err->text : "");
    run_launch_fail (ctx);
}

static const struct conn_ops run_launch_ops = {
    .frame = run_launch_frame,
    .closed = run_launch_closed,
};

/* Fill the LAUNCH message; slice is the expanded step node list. */
static int run_launch_msg (struct run_ctx *ctx, struct hostlist *hl,
                           struct msg_launch *m)
{
    const struct msg_step_created *s = &ctx->step;
    size_t n = hostlist_count (hl);

    if (!(m->slice = calloc (n + 1, sizeof (char *))))
        return -1;
    for (size_t i = 0; i < n; i++)
        m->slice[i] = (char *)hostlist_nth (hl, i);
    m->slice_count = (uint32_t)n;
    m->cred = s->cred;
    m->job_id = s->job_id;
    m->step_id = s->step_id;
    m->budget_ms = ctx->cl.conf->launch_timeout * 1000;
    m->argv = ctx->argv;
    m->argv_count = (uint32_t)ctx->argc;
    for (m->env = ctx->env; m->env[m->env_count]; m->env_count++)
        ;
    m->cwd = ctx->cwd;
    m->io_host = ctx->io_host;
    m->io_port = ctx->io_port;
    m->step_nodelist = s->nodelist;
    m->tasks = s->tasks;
    m->tasks_count = s->tasks_count;
    m->cpus = s->cpus;
    m->cpus_count = s->cpus_count;
    m->job_nodelist = s->job_nodelist;
    m->cpus_per_task = ctx->opt.alloc.cpus_per_task;
    m->stdin_task = ctx->opt.stdin_task;
    m->std_in = ctx->input_path       ? ctx->input_path
                : ctx->opt.input_file ? ctx->opt.input_file
                                      : "";
    m->job_name =
        ctx->opt.alloc.job_name ? ctx->opt.alloc.job_name : ctx->argv[0];
    m->mpi = (char *)ctx->mpi;
    m->slurm_names = !strchr (ctx->prog, ' '); /* srun, not arbor run */
    m->distribution = ctx->opt.distribution ? ctx->opt.distribution : "";
    m->task_nodes = ctx->task_nodes;
    m->task_nodes_count = ctx->ntask_nodes;
    m->multi_prog = ctx->multi_prog;
    m->multi_prog_len = (uint32_t)ctx->multi_prog_len;
    m->cpu_bind = ctx->opt.cpu_bind ? ctx->opt.cpu_bind : "";
    if ((m->pty = ctx->opt.pty))
        run_pty_size (&m->pty_rows, &m->pty_cols);
    m->preserve_env = ctx->opt.preserve_env;
    m->task_prolog = ctx->opt.task_prolog ? ctx->opt.task_prolog : "";
    m->task_epilog = ctx->opt.task_epilog ? ctx->opt.task_epilog : "";
    return 0;
}

/* What the tasks' environment gets at launch: the resource limits srun
 * propagates (SLURM_RLIMIT_*, common/spec/rlimits.h) and SLURM_CPUS_PER_TASK
 * exactly when -c was given (also -c 1, and from the variable itself),
 * as srun sets it. */
static int run_launch_env (struct run_ctx *ctx)
{
    const struct conf *c = ctx->cl.conf;
    const struct alloc_opts *o = &ctx->opt.alloc;
    arbor_error_t err;
    char cpt[16];
    int rc;

    if (export_propagate (&ctx->env, o->propagate, c->propagate_rlimits,
                          c->propagate_rlimits_except, &ctx->opt.limits, &err)
        < 0) {
        log_err ("%s", err.text);
        return -1;
    }
    snprintf (cpt, sizeof (cpt), "%u", o->cpus_per_task);
    rc = o->cpus_per_task_set
             ? export_set (&ctx->env, "SLURM_CPUS_PER_TASK", cpt)
             : export_unset (&ctx->env, "SLURM_CPUS_PER_TASK");
    if (rc < 0)
        log_err ("out of memory");
    return rc;
}

/* How the session to node zero is keyed: with the step's launch ticket
 * when the controller gave one (STEP_CREATED: node zero opens it and
 * derives the key from the I/O key only we were given, no munged round
 * trip on either side), else a munge token for the node daemons' uid. */
static int run_launch_auth (struct run_ctx *ctx, struct conn_auth *a)
{
    const struct msg_step_created *s = &ctx->step;
    arbor_error_t err;
    long uid;

    if (s->launch_ticket && *s->launch_ticket && s->io_key && *s->io_key) {
        *a = (struct conn_auth){ .mode = CONN_AUTH_STEPKEY,
                                 .initiator = true,
                                 .io_key = s->io_key,
                                 .job_id = s->job_id,
                                 .step_id = s->step_id,
                                 .ticket = s->launch_ticket };
        return 0;
    }
    if ((uid = conf_noded_uid (ctx->cl.conf)) < 0) {
        log_err ("NodedUser %s: no such user", ctx->cl.conf->noded_user);
        return -1;
    }
    ctx->noded_uid = (uid_t)uid;
    /* One munge encode (the session's), with nothing else to do until it
     * is made: in this thread, not a worker's. */
    if (!ctx->pool
        && !(ctx->pool =
                 auth_pool_create (ctx->loop, ctx->cl.conf->munge_socket,
                                   AUTH_POOL_CALLER, &err))) {
        log_err ("launch: %s", err.text);
        return -1;
    }
    *a = (struct conn_auth){ .mode = CONN_AUTH_MUNGE,
                             .initiator = true,
                             .pool = ctx->pool,
                             .peer_uid = ctx->noded_uid };
    return 0;
}

/* Connect to node zero and queue the LAUNCH. */
static int run_launch_send (struct run_ctx *ctx, struct hostlist *hl)
{
    const struct msg_step_created *s = &ctx->step;
    struct msg_launch m = { 0 };
    struct conn_auth a;
    arbor_error_t err;
    int fd, rc;

    if (run_launch_auth (ctx, &a) < 0)
        return -1;
    fd = net_connect_tcp (s->addrs[0], (uint16_t)s->noded_port,
                          (int)(ctx->cl.conf->launch_timeout * 1000), &err);
    if (fd < 0) {
        log_err ("launch failed on %s: %s", hostlist_nth (hl, 0), err.text);
        return -1;
    }
    ctx->launch_conn = conn_create (ctx->loop, fd, &a, &run_launch_ops, ctx);
    if (!ctx->launch_conn) {
        log_err ("launch: %s", strerror (errno));
        close (fd);
        return -1;
    }
    struct request_opts opts = {
        .timeout = ctx->cl.conf->launch_timeout + LAUNCH_SLACK_S,
        .resp_type = MSG_LAUNCH_REPLY,
    };
    /* The request ends with the conn (run_launch_fail, run_launch_ok
     * destroy it): its handle is not kept. */
    if ((rc = run_launch_msg (ctx, hl, &m)) == 0
        && !request_conn (ctx->launch_conn, MSG_LAUNCH, &m, &opts,
                          run_launch_done_cb, ctx))
        rc = -1;
    if (rc < 0)
        log_err ("launch: cannot send to %s: %s", hostlist_nth (hl, 0),
                 strerror (errno));
    free (m.slice);
    return rc;
}

int run_launch_start (struct run_ctx *ctx)
{
    struct hostlist *hl;
    arbor_error_t err;
    int rc;

    if (ctx->step.addrs_count == 0
        || !(hl = hostlist_create (ctx->step.nodelist, &err))
        || hostlist_count (hl) != ctx->step.addrs_count) {
        log_err ("the controller sent a malformed step (nodes '%s')",
                 ctx->step.nodelist ? ctx->step.nodelist : "");
        return -1;
    }
    ctx->launch_t0 = ev_time ();
    rc = run_launch_env (ctx) < 0 ? -1 : run_launch_send (ctx, hl);
    hostlist_destroy (hl);
    if (rc < 0) {
        conn_destroy (ctx->launch_conn);
        ctx->launch_conn = NULL;
        return -1;
    }
    return 0;
}
