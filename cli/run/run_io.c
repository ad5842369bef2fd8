/* run_io.c - the launcher's side of the stepd I/O connections.
 *
 * Each stepd of the step connects back to our listener, opening a session
 * keyed by the step's I/O key (CONN_AUTH_STEPKEY: only the nodes that
 * verified the step's credential know it; the key itself never crosses
 * the wire). Its first frame must then be IO_HELLO naming our job and
 * step; anything else is closed at once. After the hello the stepd streams
 * IO_DATA (to output.c) and TASK_EXIT (to the task table), and takes
 * IO_STDIN and STEP_SIGNAL from us. A connection that closes before all of
 * its tasks reported makes those tasks "lost".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "net.h"
#include "listen.h"
#include "run_io.h"
#include "run_stdin.h"
#include "run_term.h"

static void run_peer_free (struct run_ctx *ctx, struct run_peer *p)
{
    struct run_peer **pp = &ctx->peers;

    while (*pp && *pp != p)
        pp = &(*pp)->next;
    if (*pp)
        *pp = p->next;
    free (p->node);
    free (p->tasks);
    free (p);
}

void run_signal_stepds (struct run_ctx *ctx, int sig)
{
    struct msg_step_signal m = { .signal = sig };

    for (struct run_peer *p = ctx->peers; p; p = p->next) {
        if (p->hello && conn_send (p->conn, MSG_STEP_SIGNAL, 0, 0, &m) < 0)
            log_err ("%s: cannot send signal %d: %s", p->node, sig,
                     strerror (errno));
    }
}

void run_check_done (struct run_ctx *ctx)
{
    if (!ctx->launch_replied && !ctx->launch_failed)
        return;
    if (ctx->peers)
        return;
    if (ctx->launch_failed || ctx->aborting || tasks_all_ended (&ctx->tasks))
        ev_break (ctx->loop, EVBREAK_ALL);
}

/* Why 'h' is not the hello of one of our stepds, or NULL if it is. */
static const char *run_hello_refusal (struct run_ctx *ctx,
                                      const struct frame *f,
                                      const struct msg_io_hello *h)
{
    /* The conn's session proved the step's I/O key (CONN_AUTH_STEPKEY). */
    if (h->job_id != ctx->job_id || h->step_id != ctx->step.step_id)
        return "another step";
    for (uint32_t i = 0; i < h->task_ids_count; i++) {
        if (h->task_ids[i] >= ctx->tasks.n)
            return "task out of range";
    }
    return h->node_name && *h->node_name ? NULL : "no node name";
}

/* First frame: IO_HELLO, else the connection is dropped. */
static int run_peer_hello (struct run_peer *p, const struct frame *f)
{
    struct run_ctx *ctx = p->ctx;
    struct msg_io_hello h;
    arbor_error_t err;
    const char *why;
    uint32_t node_id;

    if (f->type != MSG_IO_HELLO) {
        log_verbose ("I/O connection from %s: %s before IO_HELLO",
                     conn_peer (p->conn),
                     proto_msg_name (f->type) ? proto_msg_name (f->type)
                                              : "unknown message");
        return -1;
    }
    if (proto_decode (MSG_IO_HELLO, f->body, f->body_len, &h, &err) < 0) {
        log_verbose ("I/O connection from %s: %s", conn_peer (p->conn),
                     err.text);
        return -1;
    }
    if ((why = run_hello_refusal (ctx, f, &h))) {
        log_verbose ("I/O connection from %s (uid %lu): %s",
                     conn_peer (p->conn), (unsigned long)f->uid, why);
        proto_clear (MSG_IO_HELLO, &h);
        return -1;
    }
    p->hello = true;
    node_id = h.node_id;
    p->node = h.node_name;
    p->tasks = h.task_ids;
    p->ntasks = h.task_ids_count;
    h.node_name = NULL;
    h.task_ids = NULL;
    proto_clear (MSG_IO_HELLO, &h);
    for (uint32_t i = 0; i < p->ntasks; i++) {
        tasks_set_running (&ctx->tasks, p->tasks[i]);
        output_set_node (ctx->out, p->tasks[i], p->node, node_id);
    }
    ctx->nhello++;
    if (ctx->opt.alloc.verbose > 1)
        log_info ("%s: I/O connected (%u tasks)", p->node, p->ntasks);
    if (ctx->aborting || ctx->launch_failed) {
        struct msg_step_signal m = { .signal = SIGKILL };
        conn_send (p->conn, MSG_STEP_SIGNAL, 0, 0, &m);
    }
    run_stdin_hello (ctx, p);
    return 0;
}

static void run_peer_data (struct run_peer *p, const struct msg_io_data *m)
{
    struct run_ctx *ctx = p->ctx;
    arbor_error_t err;

    if (ctx->opt.pty && m->task != 0)
        return; /* --pty: only task 0's terminal is shown */
    if (output_data (ctx->out, m->task, (int)m->stream, m->data, m->data_len,
                     &err)
            < 0
        && !ctx->out_error) {
        log_err ("%s", err.text);
        ctx->out_error = true;
    }
}

static void run_peer_exit (struct run_peer *p, const struct msg_task_exit *m)
{
    struct run_ctx *ctx = p->ctx;

    for (uint32_t i = 0; i < m->tasks_count; i++) {
        int code = i < m->exit_codes_count ? m->exit_codes[i] : 0;
        int sig = i < m->signals_count ? m->signals[i] : 0;
        if (tasks_set_exit (&ctx->tasks, m->tasks[i], code, sig) < 0)
            continue;
        run_term_task_exit (ctx, p->node, m->tasks[i], code, sig, m->oom);
    }
}

static void run_peer_frame (struct conn *c, const struct frame *f, void *arg)
{
    struct run_peer *p = arg;
    struct run_ctx *ctx = p->ctx;
    union msg_any m;
    arbor_error_t err;

    if (!p->hello) {
        if (run_peer_hello (p, f) < 0) {
            log_verbose ("dropping I/O connection from %s", conn_peer (c));
            conn_destroy (c);
            run_peer_free (ctx, p);
            run_check_done (ctx);
        }
        return;
    }
    if (f->type != MSG_IO_DATA && f->type != MSG_TASK_EXIT
        && f->type != MSG_STEP_ABORT)
        return;
    if (proto_decode (f->type, f->body, f->body_len, &m, &err) < 0) {
        log_err ("%s: %s", p->node, err.text);
        return;
    }
    if (f->type == MSG_IO_DATA)
        run_peer_data (p, &m.io_data);
    else if (f->type == MSG_STEP_ABORT)
        run_term_abort (ctx, p->node, &m.step_abort);
    else
        run_peer_exit (p, &m.task_exit);
    proto_clear (f->type, &m);
    if (f->type == MSG_TASK_EXIT)
        run_check_done (ctx);
}

static void run_peer_closed (struct conn *c, const arbor_error_t *err,
                             void *arg)
{
    struct run_peer *p = arg;
    struct run_ctx *ctx = p->ctx;
    bool lost = false;

    for (uint32_t i = 0; p->hello && i < p->ntasks; i++) {
        if (tasks_set_lost (&ctx->tasks, p->tasks[i]) == 0)
            lost = true;
    }
    if (lost && !ctx->aborting)
        log_err ("%s: connection lost%s%s", p->node,
                 err && err->text[0] ? ": " : "",
                 err && err->text[0] ? err->text : "");
    if (lost)
        run_term_lost (ctx, p->node);
    run_peer_free (ctx, p);
    run_check_done (ctx);
}

static const struct conn_ops run_peer_ops = {
    .frame = run_peer_frame,
    .closed = run_peer_closed,
};

static void run_accepted_cb (struct listener *l, struct conn *c, void *arg)
{
    struct run_ctx *ctx = arg;
    struct run_peer *p = calloc (1, sizeof (*p));

    if (!p) {
        conn_destroy (c);
        return;
    }
    p->ctx = ctx;
    p->conn = c;
    conn_set_arg (c, p);
    p->next = ctx->peers;
    ctx->peers = p;
}

static void run_refused_cb (struct listener *l, const char *peer,
                            const char *why, void *arg)
{
    const struct run_ctx *ctx = arg;

    run_verbose (ctx, "I/O connection from %s refused: %s", *peer ? peer : "?",
                 why);
}

static const struct listen_ops run_listen_ops = {
    .accepted = run_accepted_cb,
    .refused = run_refused_cb,
};

int run_io_listen (struct run_ctx *ctx)
{
    arbor_error_t err;
    int fd;

    if (client_local_addr (&ctx->cl, ctx->io_host, sizeof (ctx->io_host)) < 0) {
        log_err ("cannot find the local address: %s", strerror (errno));
        return -1;
    }
    if ((fd = net_listen_tcp (ctx->io_host, 0, &ctx->io_port, &err)) < 0) {
        log_err ("cannot listen for I/O: %s", err.text);
        return -1;
    }
    /* Every stepd of the step may connect at once, all from one address
     * on an emulated cluster: room for all of them before they have
     * authenticated, and a few more. */
    unsigned room = ctx->step.addrs_count + 64;
    struct listen_limits lim = { .max_unauth = room, .max_unauth_peer = room };
    /* A stepd proves the step's I/O key (in the credential every node
     * verified), not a uid: no munge on this path. */
    struct conn_auth a = {
        .mode = CONN_AUTH_STEPKEY,
        .io_key = ctx->step.io_key,
        .job_id = ctx->job_id,
        .step_id = ctx->step.step_id,
    };
    ctx->listener = listener_create (ctx->loop, fd, &a, &lim, &run_peer_ops,
                                     &run_listen_ops, ctx);
    if (!ctx->listener) {
        log_err ("cannot listen for I/O: %s", strerror (errno));
        close (fd);
        return -1;
    }
    return 0;
}

void run_io_stop (struct run_ctx *ctx)
{
    if (!ctx->loop)
        return;
    listener_destroy (ctx->listener); /* and the stepds' conns */
    ctx->listener = NULL;
    ev_io_stop (ctx->loop, &ctx->stdin_w);
    ev_timer_stop (ctx->loop, &ctx->stdin_retry);
    run_stdin_free (ctx);
    while (ctx->peers)
        run_peer_free (ctx, ctx->peers);
}
