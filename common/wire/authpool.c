/* authpool.c - munge calls on worker threads, results back on the loop.
 *
 * A job moves QUEUED (in p->queue) -> RUNNING (a worker holds it, in no
 * list) -> DONE (in p->done) -> DELIVERING (its callback runs on the loop)
 * and is then freed. Workers and the loop share only the two lists, the
 * job states and the stop flag, all under p->lock; a worker posts a
 * result by moving the job to p->done and waking the loop's ev_async.
 * Each worker owns one struct auth (a munge context is not thread-safe).
 *
 * The ev_async is referenced only while jobs are alive, so an idle pool
 * does not keep ev_run() from returning, and a busy one does.
 *
 * auth_pool_destroy() runs no callback: results not yet delivered are
 * dropped with the queued jobs. It may be called from a callback (a
 * daemon shutting down); the delivery loop then stops at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "auth.h"
#include "authpool.h"

enum job_kind { JOB_ENCODE, JOB_DECODE };
enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_DELIVERING };

struct auth_job {
    struct auth_pool *pool;
    struct auth_job *prev, *next; /* in p->queue or p->done */
    enum job_kind kind;
    enum job_state state; /* under p->lock */
    bool cancelled;       /* loop thread only: drop the result */
    int ttl;              /* encode */
    uid_t restrict_uid;   /* encode */
    auth_done_f cb;
    void *arg;
    struct auth_result res; /* written by the worker while RUNNING */
    size_t in_len;
    char in[]; /* payload to encode or token to decode (a copy) */
};

struct job_list {
    struct auth_job *head, *tail;
};

struct worker {
    struct auth_pool *pool;
    struct auth *auth;
    pthread_t tid;
};

struct auth_pool {
    struct ev_loop *loop;
    ev_async async;
    char *socket;
    int nthreads;
    bool in_caller;           /* AUTH_POOL_CALLER: no workers */
    struct auth *caller_auth; /* its munge context, from the first job */
    struct worker *workers;   /* NULL until the first job */
    int started;              /* workers whose thread runs */
    unsigned live;            /* loop thread: jobs not yet freed */
    atomic_ulong calls;
    pthread_mutex_t lock; /* guards queue, done, stopping, job states */
    pthread_cond_t cond;  /* queue not empty, or stopping */
    struct job_list queue;
    struct job_list done;
    bool stopping;
    /* Loop thread, while pool_async_cb delivers: what it still holds, and
     * its flag telling it that a callback destroyed the pool. */
    struct job_list *delivering;
    bool *destroyed;
};

static void list_push (struct job_list *l, struct auth_job *j)
{
    j->next = NULL;
    j->prev = l->tail;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
}

static void list_remove (struct job_list *l, struct auth_job *j)
{
    if (j->prev)
        j->prev->next = j->next;
    else
        l->head = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        l->tail = j->prev;
    j->prev = j->next = NULL;
}

static struct auth_job *list_pop (struct job_list *l)
{
    struct auth_job *j = l->head;

    if (j)
        list_remove (l, j);
    return j;
}

static void job_destroy (struct auth_job *j)
{
    if (j) {
        free (j->res.token);
        free (j->res.payload);
        free (j);
    }
}

/* A job that exists keeps the loop running; the last one to go lets
 * ev_run() return (the watcher was unreferenced at creation). */
static void pool_hold (struct auth_pool *p)
{
    if (p->live++ == 0)
        ev_ref (p->loop);
}

static void pool_release (struct auth_pool *p, struct auth_job *j)
{
    job_destroy (j);
    if (--p->live == 0)
        ev_unref (p->loop);
}

/* Worker side: one munge call with this worker's own context. errno is
 * per thread, so it is read here, right after the call. */
static int job_call (struct auth *a, struct auth_job *j)
{
    struct auth_result *r = &j->res;
    int rc;

    r->restricted_uid = AUTH_UID_ANY;
    if (j->kind == JOB_ENCODE)
        rc = auth_encode_for (a, j->in, j->in_len, j->ttl, j->restrict_uid,
                              &r->token, &r->err);
    else {
        rc = auth_decode (a, j->in, j->in_len, &r->payload, &r->len, &r->uid,
                          &r->gid, &r->err);
        if (rc == 0)
            r->restricted_uid = auth_last_restriction (a);
    }
    return rc < 0 ? (errno ? errno : EIO) : 0;
}

/* A munged that cannot take the call (EIO: its socket's backlog is full
 * when a thousand nodes decode a credential at once, or it is
 * restarting) is tried again after a short, growing pause
 * (AUTH_POOL_RETRY_MS, doubling), on this worker thread: the caller's
 * loop never waits. A verdict on the token itself is final. */
static void job_run (struct auth_pool *p, struct auth *a, struct auth_job *j)
{
    unsigned delay_ms = AUTH_POOL_RETRY_MS;

    for (int attempt = 1;; attempt++) {
        j->res.errnum = job_call (a, j);
        atomic_fetch_add (&p->calls, 1);
        if (j->res.errnum != EIO || attempt >= AUTH_POOL_TRIES)
            return;
        /* Jitter, so that a thousand callers refused together do not
         * come back together. */
        unsigned ms = delay_ms / 2 + randombytes_uniform (delay_ms);
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
        nanosleep (&ts, NULL);
        delay_ms *= 2;
    }
}

/* With p->lock held: j's call is over; the loop delivers it. */
static void job_post_locked (struct auth_pool *p, struct auth_job *j)
{
    j->state = JOB_DONE;
    list_push (&p->done, j);
    ev_async_send (p->loop, &p->async);
}

static void *worker_main (void *arg)
{
    struct worker *w = arg;
    struct auth_pool *p = w->pool;
    struct auth_job *j;

    pthread_mutex_lock (&p->lock);
    for (;;) {
        while (!p->queue.head && !p->stopping)
            pthread_cond_wait (&p->cond, &p->lock);
        /* Stopping: destroy already emptied the queue; leave. */
        if (!(j = list_pop (&p->queue)))
            break;
        j->state = JOB_RUNNING;
        pthread_mutex_unlock (&p->lock);
        job_run (p, w->auth, j);
        pthread_mutex_lock (&p->lock);
        job_post_locked (p, j);
    }
    pthread_mutex_unlock (&p->lock);
    return NULL;
}

/* Loop side: deliver every posted result. The list is taken whole so
 * callbacks run unlocked and may submit or cancel other jobs. */
static void pool_async_cb (struct ev_loop *loop, ev_async *w, int revents)
{
    struct auth_pool *p =
        (struct auth_pool *)((char *)w - offsetof (struct auth_pool, async));
    struct job_list done;
    struct auth_job *j;
    bool destroyed = false;

    (void)loop;
    (void)revents;
    pthread_mutex_lock (&p->lock);
    done = p->done;
    p->done.head = p->done.tail = NULL;
    pthread_mutex_unlock (&p->lock);
    /* No worker touches these jobs any more: their state is the loop's.
     * A callback may still cancel a job further down this list, or
     * destroy the pool (a daemon shutting down), which frees the rest. */
    p->delivering = &done;
    p->destroyed = &destroyed;
    while ((j = list_pop (&done))) {
        if (!j->cancelled) {
            j->state = JOB_DELIVERING; /* cancel is now a no-op */
            j->cb (&j->res, j->arg);
            if (destroyed) {
                job_destroy (j);
                return;
            }
        }
        pool_release (p, j);
    }
    p->delivering = NULL;
    p->destroyed = NULL;
}

struct auth_pool *auth_pool_create (struct ev_loop *loop, const char *socket,
                                    int nthreads, arbor_error_t *err)
{
    struct auth_pool *p;

    if (!loop) {
        errno = EINVAL;
        errprintf (err, "auth_pool_create: no loop");
        return NULL;
    }
    if (!(p = calloc (1, sizeof (*p)))
        || (socket && !(p->socket = strdup (socket)))) {
        free (p);
        errno = ENOMEM;
        errprintf (err, "auth pool: out of memory");
        return NULL;
    }
    p->loop = loop;
    p->in_caller = nthreads == AUTH_POOL_CALLER;
    p->nthreads = nthreads > 0 ? nthreads : AUTH_POOL_THREADS;
    atomic_init (&p->calls, 0);
    pthread_mutex_init (&p->lock, NULL);
    pthread_cond_init (&p->cond, NULL);
    ev_async_init (&p->async, pool_async_cb);
    ev_async_start (loop, &p->async);
    ev_unref (loop); /* idle: see pool_hold() */
    return p;
}

/* Workers are born with every signal blocked, so the loop's thread alone
 * receives the daemon's signals (libev's ev_signal, SIGCHLD). */
static int worker_start (struct worker *w)
{
    sigset_t all, old;
    int e;

    sigfillset (&all);
    pthread_sigmask (SIG_SETMASK, &all, &old);
    e = pthread_create (&w->tid, NULL, worker_main, w);
    pthread_sigmask (SIG_SETMASK, &old, NULL);
    return e;
}

/* First job: create the workers and their munge contexts. Threads that
 * did start are kept if a later one fails; none at all is an error. */
static int pool_start (struct auth_pool *p)
{
    int e = 0;

    if (!(p->workers = calloc (p->nthreads, sizeof (*p->workers))))
        return -1;
    for (int i = 0; i < p->nthreads; i++) {
        struct worker *w = &p->workers[p->started];

        w->pool = p;
        if (!(w->auth = auth_create (p->socket, NULL))) {
            e = errno;
            break;
        }
        if ((e = worker_start (w))) {
            auth_destroy (w->auth);
            w->auth = NULL;
            break;
        }
        p->started++;
    }
    if (p->started == 0) {
        free (p->workers);
        p->workers = NULL;
        errno = e ? e : EAGAIN;
        return -1;
    }
    return 0;
}

static struct auth_job *job_create (struct auth_pool *p, enum job_kind kind,
                                    const void *in, size_t len, auth_done_f cb,
                                    void *arg)
{
    struct auth_job *j;

    if (!p || !cb || (len && !in)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(j = calloc (1, sizeof (*j) + len)))
        return NULL;
    j->pool = p;
    j->kind = kind;
    j->cb = cb;
    j->arg = arg;
    j->in_len = len;
    if (len)
        memcpy (j->in, in, len);
    return j;
}

/* AUTH_POOL_CALLER: make the call now, then post the result as a worker
 * would; the callback runs from the loop's next iteration. */
static struct auth_job *pool_run_here (struct auth_pool *p, struct auth_job *j)
{
    if (!p->caller_auth && !(p->caller_auth = auth_create (p->socket, NULL))) {
        int e = errno;
        free (j);
        errno = e;
        return NULL;
    }
    pool_hold (p);
    j->state = JOB_RUNNING;
    job_run (p, p->caller_auth, j);
    pthread_mutex_lock (&p->lock);
    job_post_locked (p, j);
    pthread_mutex_unlock (&p->lock);
    return j;
}

/* Queue 'j' for a worker; its callback runs later, from pool_async_cb. */
static struct auth_job *pool_submit (struct auth_pool *p, struct auth_job *j)
{
    if (p->in_caller)
        return pool_run_here (p, j);
    if (!p->workers && pool_start (p) < 0) {
        int e = errno;
        free (j);
        errno = e;
        return NULL;
    }
    pool_hold (p);
    pthread_mutex_lock (&p->lock);
    j->state = JOB_QUEUED;
    list_push (&p->queue, j);
    pthread_cond_signal (&p->cond);
    pthread_mutex_unlock (&p->lock);
    return j;
}

struct auth_job *auth_pool_encode (struct auth_pool *p, const void *payload,
                                   size_t len, int ttl, uid_t restrict_uid,
                                   auth_done_f cb, void *arg)
{
    struct auth_job *j = job_create (p, JOB_ENCODE, payload, len, cb, arg);

    if (!j)
        return NULL;
    j->ttl = ttl;
    j->restrict_uid = restrict_uid;
    return pool_submit (p, j);
}

struct auth_job *auth_pool_decode (struct auth_pool *p, const char *token,
                                   size_t token_len, auth_done_f cb, void *arg)
{
    struct auth_job *j;

    if (!token) {
        errno = EINVAL;
        return NULL;
    }
    if (!(j = job_create (p, JOB_DECODE, token, token_len, cb, arg)))
        return NULL;
    return pool_submit (p, j);
}

void auth_job_cancel (struct auth_job *j)
{
    struct auth_pool *p;
    enum job_state state;

    if (!j)
        return;
    p = j->pool;
    pthread_mutex_lock (&p->lock);
    state = j->state;
    if (state == JOB_QUEUED)
        list_remove (&p->queue, j);
    pthread_mutex_unlock (&p->lock);
    if (state == JOB_QUEUED)
        pool_release (p, j);
    else if (state != JOB_DELIVERING)
        j->cancelled = true; /* running or posted: pool_async_cb drops it */
}

static void list_free (struct job_list *l)
{
    struct auth_job *j;

    while ((j = list_pop (l)))
        job_destroy (j);
}

void auth_pool_destroy (struct auth_pool *p)
{
    int saved = errno;

    if (!p)
        return;
    pthread_mutex_lock (&p->lock);
    list_free (&p->queue);
    p->stopping = true;
    pthread_cond_broadcast (&p->cond);
    pthread_mutex_unlock (&p->lock);
    /* Calls in progress finish (munge's own timeout bounds them). */
    for (int i = 0; i < p->started; i++) {
        pthread_join (p->workers[i].tid, NULL);
        auth_destroy (p->workers[i].auth);
    }
    auth_destroy (p->caller_auth);
    list_free (&p->done); /* results never delivered: no callbacks */
    if (p->delivering) {
        list_free (p->delivering);
        *p->destroyed = true;
    }
    /* libev wants an unreferenced watcher referenced again before stop. */
    if (p->live == 0)
        ev_ref (p->loop);
    ev_async_stop (p->loop, &p->async);
    pthread_cond_destroy (&p->cond);
    pthread_mutex_destroy (&p->lock);
    free (p->workers);
    free (p->socket);
    free (p);
    errno = saved;
}

unsigned long auth_pool_calls (const struct auth_pool *p)
{
    return p ? atomic_load (&((struct auth_pool *)p)->calls) : 0;
}
