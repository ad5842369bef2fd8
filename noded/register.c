/* register.c - tell the ctld this node is up and what it has.
 *
 * One attempt: dial ControlAddr:CtldPort, send NODE_REGISTER, wait for the
 * RC (REG_ANSWER_TIMEOUT covers connect and answer), close. Attempts run
 * every REG_RETRY seconds until the first success, then every
 * REG_INTERVAL. Failures are logged when they change, not every second.
 * Each registration lists the jobs with a stepd here (REG_MAX_JOBS at
 * most): the ctld ends those it does not expect here (after its restart,
 * say) and keeps the node out of service until they are gone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "conn.h"
#include "dial.h"
#include "fanout.h"
#include "log.h"
#include "noded.h"
#include "register.h"
#include "stepd.h"

#define REG_MAX_JOBS 4096

#ifndef ARBOR_VERSION
#define ARBOR_VERSION "unknown"
#endif

struct reg {
    struct noded *nd;
    ev_timer next_w;      /* next attempt */
    ev_timer answer_w;    /* the attempt in progress gives up */
    struct dial *dial;
    struct conn *conn;
    uint32_t matchtag;
    bool registered;      /* at least once */
    char last_error[200]; /* last failure logged, to log changes only */
};

static void reg_attempt (struct reg *r);

void reg_resources (const struct noded *nd, uint32_t *cpus,
                    uint32_t *real_memory)
{
    struct sysinfo si;
    long n;

    if (nd->emulate) {
        *cpus = nd->self->cpus;
        *real_memory = nd->self->real_memory;
        return;
    }
    n = sysconf (_SC_NPROCESSORS_ONLN);
    *cpus = n > 0 ? (uint32_t)n : 1;
    if (sysinfo (&si) == 0)
        *real_memory = (uint32_t)((unsigned long long)si.totalram
                                  * si.mem_unit / (1024 * 1024));
    else
        *real_memory = 1;
}

/* End the attempt in progress and schedule the next one. */
static void reg_schedule (struct reg *r)
{
    struct ev_loop *loop = r->nd->loop;

    ev_timer_stop (loop, &r->answer_w);
    dial_cancel (r->dial);
    r->dial = NULL;
    conn_destroy (r->conn);
    r->conn = NULL;
    ev_timer_set (&r->next_w, r->registered ? REG_INTERVAL : REG_RETRY, 0.);
    ev_timer_start (loop, &r->next_w);
}

static void reg_failed (struct reg *r, const char *fmt, const char *text)
{
    char msg[sizeof (r->last_error)];
    const struct conf *conf = r->nd->conf;

    snprintf (msg, sizeof (msg), fmt, text);
    if (strcmp (msg, r->last_error) != 0) {
        log_info ("registration with ctld at %s:%u: %s%s",
                  conf->control_addr, conf->ctld_port, msg,
                  r->registered ? "" : " (retrying every second)");
        snprintf (r->last_error, sizeof (r->last_error), "%s", msg);
    } else {
        log_debug ("registration with ctld: %s", msg);
    }
    reg_schedule (r);
}

static void reg_answer (struct reg *r, const struct frame *f)
{
    struct msg_rc rc;
    arbor_error_t err;

    if (f->type != MSG_RC
        || proto_decode (MSG_RC, f->body, f->body_len, &rc, &err) < 0) {
        reg_failed (r, "%s", "malformed answer");
        return;
    }
    if (rc.errnum != 0) {
        log_err ("ctld refused registration: %s",
                 rc.text ? rc.text : strerror (rc.errnum));
        snprintf (r->last_error, sizeof (r->last_error), "refused");
    } else {
        if (!r->registered)
            log_info ("registered with ctld at %s:%u",
                      r->nd->conf->control_addr, r->nd->conf->ctld_port);
        else
            log_debug ("registered with ctld");
        r->registered = true;
        r->last_error[0] = '\0';
    }
    proto_clear (MSG_RC, &rc);
    reg_schedule (r);
}

static void reg_frame_cb (struct conn *c, const struct frame *f, void *arg)
{
    struct reg *r = arg;

    if ((f->flags & FRAME_F_RESPONSE) && f->matchtag == r->matchtag)
        reg_answer (r, f);
}

static void reg_closed_cb (struct conn *c, const arbor_error_t *err,
                           void *arg)
{
    struct reg *r = arg;

    r->conn = NULL;
    reg_failed (r, "connection closed: %s",
                err && err->text[0] ? err->text : "by the ctld");
}

static const struct conn_ops reg_conn_ops = {
    .frame = reg_frame_cb,
    .closed = reg_closed_cb,
};

static void reg_add_job (uint32_t *ids, uint32_t *n, uint32_t job)
{
    for (uint32_t i = 0; i < *n; i++)
        if (ids[i] == job)
            return;
    if (*n < REG_MAX_JOBS)
        ids[(*n)++] = job;
}

/* The jobs with a stepd here: ours (also those still starting), and those
 * with a socket in the spool (also a previous noded's). Caller frees;
 * NULL (no list) when out of memory. */
static uint32_t *reg_running_jobs (struct noded *nd, uint32_t *n)
{
    uint32_t *ids = calloc (REG_MAX_JOBS, sizeof (*ids));
    DIR *dir;
    struct dirent *de;

    *n = 0;
    if (!ids)
        return NULL;
    for (struct stepd *s = nd->stepds->head; s; s = s->next)
        reg_add_job (ids, n, s->job_id);
    if ((dir = opendir (nd->spool))) {
        while ((de = readdir (dir))) {
            uint32_t job, step;
            if (stepd_socket_name (de->d_name, &job, &step))
                reg_add_job (ids, n, job);
        }
        closedir (dir);
    }
    return ids;
}

static void reg_send (struct reg *r, int fd)
{
    struct noded *nd = r->nd;
    struct msg_node_register m = {
        .name = (char *)nd->name,
        .version = ARBOR_VERSION,
    };
    char text[120];

    reg_resources (nd, &m.cpus, &m.real_memory);
    if (!(r->conn = conn_create (nd->loop, fd, CONN_AUTH_MUNGE, nd->auth,
                                 &reg_conn_ops, r))) {
        close (fd);
        reg_failed (r, "%s", fanout_strerror (errno, text, sizeof (text)));
        return;
    }
    m.job_ids = reg_running_jobs (nd, &m.job_ids_count);
    r->matchtag++;
    if (conn_send (r->conn, MSG_NODE_REGISTER, r->matchtag, 0, &m) < 0)
        reg_failed (r, "cannot send: %s",
                    fanout_strerror (errno, text, sizeof (text)));
    free (m.job_ids);
}

static void reg_dial_cb (int fd, int errnum, void *arg)
{
    struct reg *r = arg;
    char text[120];

    r->dial = NULL;
    if (fd < 0)
        reg_failed (r, "%s", fanout_strerror (errnum, text, sizeof (text)));
    else
        reg_send (r, fd);
}

static void reg_answer_timeout_cb (struct ev_loop *loop, ev_timer *w,
                                   int revents)
{
    reg_failed (w->data, "%s", "no answer");
}

static void reg_attempt (struct reg *r)
{
    const struct conf *conf = r->nd->conf;
    char text[120];

    ev_timer_set (&r->answer_w, REG_ANSWER_TIMEOUT, 0.);
    ev_timer_start (r->nd->loop, &r->answer_w);
    if (!(r->dial = dial_start (r->nd->loop, conf->control_addr,
                                conf->ctld_port, reg_dial_cb, r)))
        reg_failed (r, "%s", fanout_strerror (errno, text, sizeof (text)));
}

static void reg_next_cb (struct ev_loop *loop, ev_timer *w, int revents)
{
    reg_attempt (w->data);
}

struct reg *reg_start (struct noded *nd)
{
    struct reg *r = calloc (1, sizeof (*r));

    if (!r)
        return NULL;
    r->nd = nd;
    ev_timer_init (&r->next_w, reg_next_cb, 0., 0.);
    r->next_w.data = r;
    ev_timer_init (&r->answer_w, reg_answer_timeout_cb, 0., 0.);
    r->answer_w.data = r;
    reg_attempt (r);
    return r;
}

void reg_destroy (struct reg *r)
{
    int saved = errno;

    if (r) {
        ev_timer_stop (r->nd->loop, &r->next_w);
        ev_timer_stop (r->nd->loop, &r->answer_w);
        dial_cancel (r->dial);
        conn_destroy (r->conn);
        free (r);
    }
    errno = saved;
}
