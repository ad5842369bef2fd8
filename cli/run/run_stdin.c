/* run_stdin.c - forward the launcher's stdin to the tasks (srun --input).
 *
 * "all" (the default) sends every chunk to every stepd with task
 * STDIN_ALL; "N" sends it only to the stepd running task N; "none" reads
 * nothing. Reading starts as soon as the first stepd that takes stdin has
 * said hello (early, while its tasks start, so that stdin frames do not
 * reach a stepd already closing); what was sent before every stepd is
 * there is kept (up to STDIN_REPLAY_MAX, reading pauses beyond) and
 * replayed to latecomers. Reading also pauses while any stepd has more
 * than STDIN_HIGH_WATER bytes queued, so a slow task cannot make us
 * buffer without limit. EOF on our stdin is sent as an empty chunk.
 * When our stdin is /dev/null the step is launched with STDIN_NONE
 * instead: the tasks get /dev/null from their stepd and no stdin frame
 * races with a stepd that is already closing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "run_stdin.h"
#include "run_io.h"

#define STDIN_CHUNK (32u * 1024)
#define STDIN_HIGH_WATER (4u << 20)
#define STDIN_RETRY_S 0.02
#define STDIN_REPLAY_MAX (4u << 20) /* kept for stepds not yet there */

/* One chunk of stdin read before every stepd was there (ctx->replay). */
struct run_chunk {
    char *data;
    size_t len;
};

/* Has every task of stepd 'p' ended? Then it may be closing, and a frame
 * it never reads would make its close reset the connection. */
static bool run_stdin_peer_done (const struct run_ctx *ctx,
                                 const struct run_peer *p)
{
    for (uint32_t i = 0; i < p->ntasks; i++) {
        if (ctx->tasks.t[p->tasks[i]].state < TASK_EXITED)
            return false;
    }
    return true;
}

/* Does stepd 'p' take stdin? */
static bool run_stdin_wants (const struct run_ctx *ctx,
                             const struct run_peer *p)
{
    if (!p->hello || run_stdin_peer_done (ctx, p))
        return false;
    if (ctx->opt.stdin_task == STDIN_ALL)
        return true;
    for (uint32_t i = 0; i < p->ntasks; i++) {
        if ((int32_t)p->tasks[i] == ctx->opt.stdin_task)
            return true;
    }
    return false;
}

static void run_stdin_send (struct run_ctx *ctx, char *data, size_t len)
{
    struct msg_io_stdin m = {
        .task = ctx->opt.stdin_task,
        .data = data,
        .data_len = (uint32_t)len,
    };

    for (struct run_peer *p = ctx->peers; p; p = p->next) {
        if (run_stdin_wants (ctx, p)
            && conn_send (p->conn, MSG_IO_STDIN, 0, 0, &m) < 0)
            log_verbose ("%s: stdin: %s", p->node, strerror (errno));
    }
}

static bool run_stdin_congested (const struct run_ctx *ctx)
{
    for (const struct run_peer *p = ctx->peers; p; p = p->next) {
        if (run_stdin_wants (ctx, p)
            && conn_outq_len (p->conn) > STDIN_HIGH_WATER)
            return true;
    }
    return false;
}

/* Until every stepd has said hello (STDIN_ALL), keep what was sent so a
 * late stepd gets it too. Returns false when the replay is full. */
static bool run_stdin_keep (struct run_ctx *ctx, const char *data, size_t len)
{
    struct run_chunk *nc;

    if (ctx->opt.stdin_task != STDIN_ALL
        || ctx->nhello >= ctx->step.addrs_count)
        return true;
    if (!(nc = realloc (ctx->replay, (ctx->nreplay + 1) * sizeof (*nc))))
        return false;
    ctx->replay = nc;
    if (!(nc[ctx->nreplay].data = malloc (len)))
        return false;
    memcpy (nc[ctx->nreplay].data, data, len);
    nc[ctx->nreplay++].len = len;
    ctx->replay_bytes += len;
    return ctx->replay_bytes < STDIN_REPLAY_MAX;
}

void run_stdin_free (struct run_ctx *ctx)
{
    for (size_t i = 0; i < ctx->nreplay; i++)
        free (ctx->replay[i].data);
    free (ctx->replay);
    ctx->replay = NULL;
    ctx->nreplay = 0;
    ctx->replay_bytes = 0;
}

static void run_stdin_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct run_ctx *ctx = w->data;
    char buf[STDIN_CHUNK];
    ssize_t n = read (STDIN_FILENO, buf, sizeof (buf));

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        if (n < 0)
            log_verbose ("stdin: %s", strerror (errno));
        ev_io_stop (loop, w);
        ctx->stdin_eof = true;
        run_stdin_send (ctx, NULL, 0);
        return;
    }
    run_stdin_send (ctx, buf, (size_t)n);
    if (!run_stdin_keep (ctx, buf, (size_t)n)) {
        ev_io_stop (loop, w); /* resumed when all stepds are there */
        ctx->stdin_wait_all = true;
    } else if (run_stdin_congested (ctx)) {
        ev_io_stop (loop, w);
        ev_timer_again (loop, &ctx->stdin_retry);
    }
}

static void run_stdin_retry_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct run_ctx *ctx = w->data;

    if (run_stdin_congested (ctx))
        return;
    ev_timer_stop (loop, w);
    ev_io_start (loop, &ctx->stdin_w);
}

int32_t run_stdin_mode (int32_t requested)
{
    struct stat st, null;

    if (requested == STDIN_NONE)
        return STDIN_NONE;
    if (fstat (STDIN_FILENO, &st) < 0)
        return STDIN_NONE;
    if (S_ISCHR (st.st_mode) && stat ("/dev/null", &null) == 0
        && S_ISCHR (null.st_mode) && st.st_rdev == null.st_rdev)
        return STDIN_NONE;
    return requested;
}

/* A stepd joined after reading began: give it what the others got. */
static void run_stdin_replay (struct run_ctx *ctx, struct run_peer *p)
{
    struct msg_io_stdin m = { .task = ctx->opt.stdin_task };

    if (!run_stdin_wants (ctx, p))
        return;
    for (size_t i = 0; i < ctx->nreplay; i++) {
        m.data = ctx->replay[i].data;
        m.data_len = (uint32_t)ctx->replay[i].len;
        conn_send (p->conn, MSG_IO_STDIN, 0, 0, &m);
    }
    if (ctx->stdin_eof) {
        m.data = NULL;
        m.data_len = 0;
        conn_send (p->conn, MSG_IO_STDIN, 0, 0, &m);
    }
}

void run_stdin_hello (struct run_ctx *ctx, struct run_peer *p)
{
    if (ctx->opt.stdin_task == STDIN_NONE || ctx->aborting
        || ctx->launch_failed)
        return;
    if (ctx->stdin_started)
        run_stdin_replay (ctx, p);
    else if (run_stdin_wants (ctx, p)) {
        ctx->stdin_started = true;
        ev_io_init (&ctx->stdin_w, run_stdin_cb, STDIN_FILENO, EV_READ);
        ctx->stdin_w.data = ctx;
        ev_init (&ctx->stdin_retry, run_stdin_retry_cb);
        ctx->stdin_retry.repeat = STDIN_RETRY_S;
        ctx->stdin_retry.data = ctx;
        ev_io_start (ctx->loop, &ctx->stdin_w);
    }
    if (ctx->nhello >= ctx->step.addrs_count) {
        run_stdin_free (ctx);
        if (ctx->stdin_wait_all && !ctx->stdin_eof) {
            ctx->stdin_wait_all = false;
            ev_io_start (ctx->loop, &ctx->stdin_w);
        }
    }
}
