/* run_pty.c - srun --pty on the launcher's side: our terminal.
 *
 * Task 0 runs on a pseudo-terminal its stepd made (of the size our
 * terminal has now, sent in LAUNCH); our stdin goes to it byte for byte,
 * so while the step runs our terminal is in raw mode (Ctrl-C, Ctrl-Z...
 * are the remote terminal's to interpret) and is put back as it was when
 * we finish, however we finish. A change of our terminal's size
 * (SIGWINCH) is sent to task 0's stepd (IO_WINSIZE). The output of the
 * other tasks is dropped, as srun does.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "run_pty.h"
#include "run_io.h"

/* The terminal put back by an exit path that skips run_pty_stop. */
static struct termios pty_saved;
static bool pty_raw;

static void run_pty_restore (void)
{
    if (pty_raw) {
        (void)tcsetattr (STDIN_FILENO, TCSADRAIN, &pty_saved);
        pty_raw = false;
    }
}

void run_pty_size (uint32_t *rows, uint32_t *cols)
{
    struct winsize ws = { 0 };

    if (ioctl (STDIN_FILENO, TIOCGWINSZ, &ws) < 0
        && ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) < 0)
        ws.ws_row = 24, ws.ws_col = 80;
    *rows = ws.ws_row ? ws.ws_row : 24;
    *cols = ws.ws_col ? ws.ws_col : 80;
}

/* The stepd of task 0, once it said hello. */
static struct run_peer *run_pty_peer (struct run_ctx *ctx)
{
    for (struct run_peer *p = ctx->peers; p; p = p->next)
        for (uint32_t i = 0; p->hello && i < p->ntasks; i++)
            if (p->tasks[i] == 0)
                return p;
    return NULL;
}

static void run_pty_winch_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    struct run_ctx *ctx = w->data;
    struct run_peer *p = run_pty_peer (ctx);
    struct msg_io_winsize m;

    if (!p)
        return;
    run_pty_size (&m.rows, &m.cols);
    if (conn_send (p->conn, MSG_IO_WINSIZE, 0, 0, &m) < 0)
        log_verbose ("window size to %s: lost", p->node);
}

void run_pty_start (struct run_ctx *ctx)
{
    struct termios raw;

    if (!ctx->opt.pty)
        return;
    ev_signal_init (&ctx->winch_w, run_pty_winch_cb, SIGWINCH);
    ctx->winch_w.data = ctx;
    ev_signal_start (ctx->loop, &ctx->winch_w);
    ev_unref (ctx->loop); /* it does not keep the loop alive */
    if (!isatty (STDIN_FILENO) || tcgetattr (STDIN_FILENO, &pty_saved) < 0)
        return; /* not a terminal: nothing to make raw */
    raw = pty_saved;
    cfmakeraw (&raw);
    if (tcsetattr (STDIN_FILENO, TCSADRAIN, &raw) == 0) {
        pty_raw = true;
        atexit (run_pty_restore);
    }
}

void run_pty_stop (struct run_ctx *ctx)
{
    if (!ctx->opt.pty)
        return;
    if (ev_is_active (&ctx->winch_w)) {
        ev_ref (ctx->loop);
        ev_signal_stop (ctx->loop, &ctx->winch_w);
    }
    run_pty_restore ();
}
