/* bf_worker.c - the thread that computes backfill plans. See bf_worker.h.
 *
 * One plan at a time: the loop hands a snapshot over (bf_worker_run),
 * the thread plans it and an ev_async brings snapshot and plan back to
 * the loop. The async watcher is referenced only while a plan runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "sched/bf_plan.h"
#include "sched/bf_worker.h"

struct bf_worker {
    struct ev_loop *loop;
    bf_done_f done;
    void *arg;
    pthread_t thread;
    bool started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct bf_snap *todo; /* loop -> thread */
    struct bf_snap *snap; /* thread -> loop, with plan and errnum */
    struct bf_plan plan;
    int errnum;
    bool busy; /* loop only: a snapshot is out */
    bool stop;
    ev_async async;
};

static void *bf_worker_main (void *arg)
{
    struct bf_worker *w = arg;

    pthread_mutex_lock (&w->lock);
    for (;;) {
        while (!w->todo && !w->stop)
            pthread_cond_wait (&w->wake, &w->lock);
        if (w->stop)
            break;
        struct bf_snap *s = w->todo;
        struct bf_plan plan;
        w->todo = NULL;
        pthread_mutex_unlock (&w->lock);
        int errnum = bf_plan_run (s, &plan) < 0 ? errno : 0;
        pthread_mutex_lock (&w->lock);
        w->snap = s;
        w->plan = plan;
        w->errnum = errnum;
        ev_async_send (w->loop, &w->async);
    }
    pthread_mutex_unlock (&w->lock);
    return NULL;
}

static void bf_worker_async_cb (struct ev_loop *loop, ev_async *a, int revents)
{
    struct bf_worker *w = a->data;
    struct bf_snap *s;
    struct bf_plan plan;
    int errnum;

    pthread_mutex_lock (&w->lock);
    s = w->snap;
    plan = w->plan;
    errnum = w->errnum;
    w->snap = NULL;
    pthread_mutex_unlock (&w->lock);
    if (!s)
        return;
    w->busy = false;
    ev_unref (loop);
    w->done (s, &plan, errnum, w->arg);
}

struct bf_worker *bf_worker_create (struct ev_loop *loop, bf_done_f done,
                                    void *arg)
{
    struct bf_worker *w = calloc (1, sizeof (*w));

    if (!w)
        return NULL;
    *w = (struct bf_worker){ .loop = loop, .done = done, .arg = arg };
    pthread_mutex_init (&w->lock, NULL);
    pthread_cond_init (&w->wake, NULL);
    ev_async_init (&w->async, bf_worker_async_cb);
    w->async.data = w;
    if (pthread_create (&w->thread, NULL, bf_worker_main, w) != 0) {
        bf_worker_destroy (w);
        errno = ENOMEM;
        return NULL;
    }
    w->started = true;
    ev_async_start (loop, &w->async);
    ev_unref (loop);
    return w;
}

bool bf_worker_busy (const struct bf_worker *w)
{
    return w->busy;
}

int bf_worker_run (struct bf_worker *w, struct bf_snap *s)
{
    if (w->busy) {
        errno = EBUSY;
        return -1;
    }
    w->busy = true;
    ev_ref (w->loop);
    pthread_mutex_lock (&w->lock);
    w->todo = s;
    pthread_cond_signal (&w->wake);
    pthread_mutex_unlock (&w->lock);
    return 0;
}

void bf_worker_destroy (struct bf_worker *w)
{
    if (!w)
        return;
    if (w->started) {
        pthread_mutex_lock (&w->lock);
        w->stop = true;
        pthread_cond_signal (&w->wake);
        pthread_mutex_unlock (&w->lock);
        pthread_join (w->thread, NULL);
        ev_ref (w->loop);
        ev_async_stop (w->loop, &w->async);
        if (w->busy)
            ev_unref (w->loop);
    }
    if (w->todo) {
        bf_snap_free (w->todo);
        free (w->todo);
    }
    if (w->snap) {
        bf_plan_free (&w->plan, w->snap->njobs);
        bf_snap_free (w->snap);
        free (w->snap);
    }
    pthread_mutex_destroy (&w->lock);
    pthread_cond_destroy (&w->wake);
    free (w);
}
