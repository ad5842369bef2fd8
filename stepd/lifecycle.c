/* lifecycle.c - who decides that a step is over: this file, alone.
 *
 * The other files of the stepd only change state (a task exits, an output
 * pipe closes, the container empties, a connection closes); none of them
 * calls back to ask "are we done?". Once per loop iteration, before the
 * loop waits, an ev_prepare watcher runs life_advance(), which moves the
 * step through its phases as far as the state allows:
 *
 *   LIFE_INIT      waiting for STEPD_INIT on fd 0 (stepd.c)
 *   LIFE_RUNNING   tasks, or their epilogs, running (the extern step,
 *                  which has none, stays here until STEPD_TERMINATE ends
 *                  the job)
 *   LIFE_DRAINING  every task exited; output pipes still open (a
 *                  daemonized grandchild holds them): STEPD_DRAIN_SECS of
 *                  grace, then they are closed
 *   LIFE_CLEANUP   the last exits are reported, the I/O connection is
 *                  flushed and closed, whatever is left in the container is
 *                  killed and the container removed (kill.c)
 *   LIFE_FLUSH     the MPI plugin stops and its directory goes (and the
 *                  batch script's); the step
 *                  socket stops listening; answers queued on its
 *                  connections are flushed and they are closed, and the
 *                  MPI layer's messages to other stepds (an abort) are
 *                  delivered (both bounded by LIFE_FLUSH_SECS). The
 *                  noded connection stays open: the report goes on it
 *   LIFE_REPORT    STEP_COMPLETE to the noded, which answers once it has
 *                  taken over its delivery to the controller, or to the
 *                  controller directly when there is no noded (report.c),
 *                  until answered or timed out. It reaches the noded
 *                  before the stepd exits and fd 0 closes
 *   LIFE_DONE      the loop ends; main() frees everything (the noded
 *                  connection closes then)
 *
 * A stepd that never got a valid STEPD_INIT goes from LIFE_INIT straight
 * to LIFE_DONE when fd 0 closes (life_abort).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "base.h"
#include "batch.h"
#include "io.h"
#include "kill.h"
#include "lifecycle.h"
#include "mesh.h"
#include "report.h"
#include "sock.h"
#include "step_mpi.h"
#include "stepd.h"
#include "task_epilog.h"
#include "tasks.h"

struct life {
    ev_prepare prepare_w; /* life_advance, once per iteration */
    ev_timer drain_w;     /* pipes' grace after the last exit */
    ev_timer flush_w;     /* bound on flushing the connections */
};

#define LIFE_FLUSH_SECS 2.0

static bool life_tasks_ended (const struct stepd *sd)
{
    for (uint32_t i = 0; i < sd->ntasks; i++)
        if (sd->tasks[i].pid > 0 && !sd->tasks[i].exited)
            return false;
    return true;
}

/* All tasks exited but something (a daemonized grandchild) still holds
 * their output pipes: stop waiting; the cleanup kills it. */
static void life_drain_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct stepd *sd = w->data;

    log_verbose ("output pipes still open %.0f s after the last task exited:"
                 " closing them",
                 STEPD_DRAIN_SECS);
    io_close_outputs (sd);
}

static void life_flush_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    struct stepd *sd = w->data;

    log_debug ("flush bound reached: closing the remaining connections");
    sock_close_peers (sd);
    mesh_fini (sd); /* messages to other stepds not delivered by now */
}

static void life_begin_cleanup (struct stepd *sd)
{
    sd->phase = LIFE_CLEANUP;
    sd->finishing = true;
    ev_timer_stop (sd->loop, &sd->life->drain_w);
    tasks_flush_exits (sd);
    if (sd->io)
        conn_close_after_flush (sd->io);
    kill_leftovers (sd);
}

static void life_begin_flush (struct stepd *sd)
{
    sd->phase = LIFE_FLUSH;
    /* The launcher has its EOF: the MPI plugin's teardown (PMIx's
     * finalize, 1-2 ms) is off its wait; the tasks are all gone. */
    mpi_finish (sd);
    batch_finish (sd);
    kill_fini (sd);
    sock_unlisten (sd);
    sock_close_peers_after_flush (sd); /* not the noded's (report.c) */
    ev_timer_start (sd->loop, &sd->life->flush_w);
}

/* One step forward if the state allows it; true if the phase changed. */
static bool life_step (struct stepd *sd)
{
    switch (sd->phase) {
    case LIFE_INIT:
        if (!sd->have_init)
            return false;
        sd->phase = LIFE_RUNNING;
        return true;
    case LIFE_RUNNING:
        if (!life_tasks_ended (sd) || epilog_busy (sd)
            || (stepd_extern (sd) && !kill_requested (sd)))
            return false; /* the extern step lives until the job ends */
        sd->phase = LIFE_DRAINING;
        ev_timer_start (sd->loop, &sd->life->drain_w);
        return true;
    case LIFE_DRAINING:
        if (io_outputs_open (sd))
            return false;
        life_begin_cleanup (sd);
        return true;
    case LIFE_CLEANUP:
        if (sd->io || !kill_done (sd))
            return false;
        life_begin_flush (sd);
        return true;
    case LIFE_FLUSH:
        if (sock_npeers (sd) > 0 || mpi_busy (sd))
            return false;
        ev_timer_stop (sd->loop, &sd->life->flush_w);
        sd->phase = LIFE_REPORT;
        report_start (sd);
        return true;
    case LIFE_REPORT:
        if (!report_done (sd))
            return false;
        sd->phase = LIFE_DONE;
        return true;
    case LIFE_DONE: ev_break (sd->loop, EVBREAK_ALL); return false;
    }
    return false;
}

static void life_prepare_cb (struct ev_loop *loop, ev_prepare *w, int revents)
{
    struct stepd *sd = w->data;

    while (life_step (sd))
        ;
}

int life_init (struct stepd *sd)
{
    if (!(sd->life = calloc (1, sizeof (*sd->life))))
        return -1;
    sd->phase = LIFE_INIT;
    ev_prepare_init (&sd->life->prepare_w, life_prepare_cb);
    sd->life->prepare_w.data = sd;
    ev_prepare_start (sd->loop, &sd->life->prepare_w);
    ev_timer_init (&sd->life->drain_w, life_drain_cb, STEPD_DRAIN_SECS, 0.);
    sd->life->drain_w.data = sd;
    ev_timer_init (&sd->life->flush_w, life_flush_cb, LIFE_FLUSH_SECS, 0.);
    sd->life->flush_w.data = sd;
    return 0;
}

void life_abort (struct stepd *sd)
{
    sd->phase = LIFE_DONE;
}

void life_fini (struct stepd *sd)
{
    if (!sd->life)
        return;
    ev_prepare_stop (sd->loop, &sd->life->prepare_w);
    ev_timer_stop (sd->loop, &sd->life->drain_w);
    ev_timer_stop (sd->loop, &sd->life->flush_w);
    free (sd->life);
    sd->life = NULL;
}
