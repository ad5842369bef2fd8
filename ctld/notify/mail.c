/* mail.c - job mail: which events mail, and the MailProg queue. See
 * mail.h; the words are mail_text.c's, the process spawn.c's.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "ctld.h"
#include "env.h"
#include "job/job.h"
#include "log.h"
#include "notify/mail.h"
#include "notify/mail_text.h"
#include "mailtype.h"
#include "nodes/part.h"
#include "state/persist.h"
#include "notify/spawn.h"
#include "timestr.h"

/* One mail waiting for its MailProg. */
struct mail_msg {
    struct mail_msg *next;
    uint32_t job_id;
    char *argv[5]; /* MailProg, "-s", subject, user, NULL */
    char **env;
};

/* A MailProg under way (its slot is free when proc is NULL). */
struct mail_run {
    struct ctld *ctx;
    struct spawned *proc;
};

struct mailer {
    struct mail_msg *head, **tail;
    size_t nqueued;
    unsigned running;
    struct mail_run runs[MAIL_MAX_RUNNING];
};

static void mail_msg_free (struct mail_msg *m)
{
    if (!m)
        return;
    free (m->argv[0]);
    free (m->argv[2]);
    free (m->argv[3]);
    env_strv_free (m->env);
    free (m);
}

struct mailer *mailer_create (void)
{
    struct mailer *m = calloc (1, sizeof (*m));

    if (m)
        m->tail = &m->head;
    return m;
}

void mailer_destroy (struct mailer *m)
{
    int saved = errno;

    if (!m)
        return;
    if (m->nqueued)
        log_err ("mail: %zu mails not sent (the controller stopped)",
                 m->nqueued);
    while (m->head) {
        struct mail_msg *x = m->head;
        m->head = x->next;
        mail_msg_free (x);
    }
    for (size_t i = 0; i < MAIL_MAX_RUNNING; i++)
        spawn_cancel (m->runs[i].proc, false); /* let them finish */
    free (m);
    errno = saved;
}

/* ---- the job's mail settings ---------------------------------------- */

/* A recipient MailProg gets as one argument, never as an option. */
static int mail_user_check (const char *u, arbor_error_t *err)
{
    size_t n = strlen (u);

    errno = EINVAL;
    if (n > MAIL_USER_MAX)
        return errprintf (err, "--mail-user is longer than %d characters",
                          MAIL_USER_MAX);
    if (u[0] == '-')
        return errprintf (err,
                          "invalid --mail-user '%.40s': it may not "
                          "start with '-'",
                          u);
    for (size_t i = 0; i < n; i++)
        if (isspace ((unsigned char)u[i]) || iscntrl ((unsigned char)u[i]))
            return errprintf (err,
                              "invalid --mail-user '%.40s': no blanks "
                              "or control characters",
                              u);
    return 0;
}

int mail_job_init (const struct ctld *ctx, struct job *j,
                   const struct msg_job_alloc *req, arbor_error_t *err)
{
    const char *u = req->mail_user ? req->mail_user : "";
    const char *dom = ctx->conf->mail_domain;
    int n;

    if (req->mail_type & ~MAIL_KNOWN) {
        errno = EINVAL;
        return errprintf (err, "invalid mail_type 0x%x", req->mail_type);
    }
    if (mail_user_check (u, err) < 0)
        return -1;
    j->mail_type = req->mail_type;
    if (*u)
        n = asprintf (&j->mail_user, "%s", u);
    else if (req->mail_type && dom && *dom)
        n = asprintf (&j->mail_user, "%s@%s", j->user, dom);
    else if (req->mail_type)
        n = asprintf (&j->mail_user, "%s", j->user);
    else
        return 0;
    if (n < 0) {
        j->mail_user = NULL;
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}

int mail_job_restore (struct job *j, uint32_t type, const char *user,
                      uint32_t sent)
{
    char *copy = user && *user ? strdup (user) : NULL;

    if (user && *user && !copy) {
        errno = ENOMEM;
        return -1;
    }
    free (j->mail_user);
    j->mail_user = copy;
    j->mail_type = type & MAIL_KNOWN;
    j->mail_sent = sent;
    return 0;
}

/* ---- sending -------------------------------------------------------- */

static void mail_pump (struct ctld *ctx);

static void mail_done_cb (int status, bool timed_out, void *arg)
{
    struct mail_run *run = arg;
    struct ctld *ctx = run->ctx;
    char st[32];

    run->proc = NULL;
    if (ctx->mail->running)
        ctx->mail->running--;
    if (timed_out)
        log_err ("mail: MailProg killed after %d s", MAIL_PROG_TIMEOUT);
    else if (status != 0)
        log_err ("mail: MailProg ended with %s",
                 spawn_status_str (status, st, sizeof (st)));
    mail_pump (ctx);
}

/* A free slot: there is one while running < MAIL_MAX_RUNNING. */
static struct mail_run *mail_free_run (struct mailer *m)
{
    for (size_t i = 0; i < MAIL_MAX_RUNNING; i++)
        if (!m->runs[i].proc)
            return &m->runs[i];
    return &m->runs[0]; /* not reached */
}

/* Start queued mails while fewer than MAIL_MAX_RUNNING run. */
static void mail_pump (struct ctld *ctx)
{
    struct mailer *m = ctx->mail;

    while (m->head && m->running < MAIL_MAX_RUNNING) {
        struct mail_msg *x = m->head;
        struct spawn_req r = { .path = x->argv[0],
                               .argv = x->argv,
                               .env = x->env,
                               .timeout = MAIL_PROG_TIMEOUT };
        struct mail_run *run = mail_free_run (m);
        arbor_error_t err;
        if (!(m->head = x->next))
            m->tail = &m->head;
        m->nqueued--;
        run->ctx = ctx;
        if ((run->proc = spawn_start (ctx->loop, &r, mail_done_cb, run, &err)))
            m->running++;
        else
            log_err ("mail: job %u: cannot run %s: %s", x->job_id, x->argv[0],
                     err.text);
        mail_msg_free (x);
    }
}

static const char *mail_prog (const struct ctld *ctx)
{
    const char *p = ctx->conf->mail_prog;

    return p && *p ? p : MAIL_DEFAULT_PROG;
}

/* Queue MailProg for event 'ev' of j (sum: an array's summary). */
static void mail_send (struct ctld *ctx, const struct job *j, uint32_t ev,
                       const struct mail_summary *sum)
{
    struct mailer *m = ctx->mail;
    const char *prog = mail_prog (ctx);
    time_t now = ctld_now (ctx);
    char subject[512];
    struct mail_msg *x;

    if (!m || !j->mail_user)
        return;
    mail_subject (j, ev, sum, now, subject, sizeof (subject));
    if (access (prog, X_OK) < 0) {
        log_err ("mail: MailProg %s: %s: job %u's mail to %s not sent (%s)",
                 prog, strerror (errno), j->id, j->mail_user, subject);
        return;
    }
    if (m->nqueued >= MAIL_MAX_QUEUED) {
        log_err ("mail: %zu mails queued already: job %u's mail to %s "
                 "dropped (%s)",
                 m->nqueued, j->id, j->mail_user, subject);
        return;
    }
    if (!(x = calloc (1, sizeof (*x))) || !(x->argv[0] = strdup (prog))
        || !(x->argv[2] = strdup (subject))
        || !(x->argv[3] = strdup (j->mail_user))
        || !(x->env = mail_env (j, ev, ctx->parts[j->part].name,
                                ctx->conf->cluster_name, now))) {
        log_err ("mail: job %u: out of memory: mail not sent", j->id);
        mail_msg_free (x);
        return;
    }
    x->argv[1] = "-s";
    x->job_id = j->id;
    *m->tail = x;
    m->tail = &x->next;
    m->nqueued++;
    log_verbose ("mail: job %u to %s: %s", j->id, j->mail_user, subject);
    mail_pump (ctx);
}

/* ---- arrays --------------------------------------------------------- */

/* Has no other task of j's array started (j is its first)? */
static bool mail_first_task (const struct ctld *ctx, const struct job *j)
{
    for (const struct job *t = ctx->jobs; t; t = t->next)
        if (t != j && t->array_job_id == j->array_job_id
            && (t->start_time || t->state != JOB_PENDING))
            return false;
    return true;
}

/* Fill *s once every task of j's array has ended: false until then. */
static bool mail_array_over (const struct ctld *ctx, const struct job *j,
                             struct mail_summary *s)
{
    bool first = true;

    memset (s, 0, sizeof (*s));
    s->array_job_id = j->array_job_id;
    s->state = JOB_COMPLETED;
    for (const struct job *t = ctx->jobs; t; t = t->next) {
        if (t->array_job_id != j->array_job_id)
            continue;
        if (job_is_active (t) || t->requeue_pending)
            return false;
        if (t->state != JOB_COMPLETED && s->state == JOB_COMPLETED)
            s->state = t->state;
        if (t->exit_signal) {
            if (t->exit_signal > s->max_signal)
                s->max_signal = t->exit_signal;
            continue;
        }
        if (first || t->exit_rc < s->min_rc)
            s->min_rc = t->exit_rc;
        if (first || t->exit_rc > s->max_rc)
            s->max_rc = t->exit_rc;
        first = false;
    }
    return true;
}

/* ---- the hooks ------------------------------------------------------ */

void mail_job_began (struct ctld *ctx, struct job *j)
{
    if (!(j->mail_type & MAIL_BEGIN))
        return;
    if (j->array_job_id && !(j->mail_type & MAIL_ARRAY_TASKS)
        && !mail_first_task (ctx, j))
        return;
    mail_send (ctx, j, MAIL_BEGIN, NULL);
}

/* END or FAIL for an end in 'state' with mask 'mask'; 0: none. */
static uint32_t mail_end_event (enum job_state state, uint32_t mask)
{
    if (state == JOB_COMPLETED || state == JOB_CANCELLED)
        return mask & MAIL_END;
    if (mask & MAIL_FAIL)
        return MAIL_FAIL;
    return mask & MAIL_END;
}

void mail_job_ended (struct ctld *ctx, struct job *j)
{
    struct mail_summary sum;
    uint32_t ev;

    if (!(j->mail_type & (MAIL_END | MAIL_FAIL)) || j->requeue_pending)
        return;
    if (!j->array_job_id || (j->mail_type & MAIL_ARRAY_TASKS)) {
        if ((ev = mail_end_event (j->state, j->mail_type)))
            mail_send (ctx, j, ev, NULL);
        return;
    }
    if (mail_array_over (ctx, j, &sum)
        && (ev = mail_end_event (sum.state, j->mail_type)))
        mail_send (ctx, j, ev, &sum);
}

void mail_job_requeued (struct ctld *ctx, struct job *j)
{
    if (j->mail_type & MAIL_REQUEUE)
        mail_send (ctx, j, MAIL_REQUEUE, NULL);
    j->mail_sent = 0; /* a new run: its time limit mails come again */
}

void mail_job_invalid_depend (struct ctld *ctx, struct job *j)
{
    if (!(j->mail_type & MAIL_INVALID_DEPEND)
        || (j->mail_sent & MAIL_INVALID_DEPEND))
        return;
    j->mail_sent |= MAIL_INVALID_DEPEND;
    persist_job (ctx, j);
    mail_send (ctx, j, MAIL_INVALID_DEPEND, NULL);
}

#define MAIL_TIMES (MAIL_TIME50 | MAIL_TIME80 | MAIL_TIME90 | MAIL_TIME100)

/* The time limit mails j is due at 'now' and has not had. */
static void mail_time_check (struct ctld *ctx, struct job *j, time_t now)
{
    static const struct {
        uint32_t bit, pct;
    } marks[] = { { MAIL_TIME50, 50 },
                  { MAIL_TIME80, 80 },
                  { MAIL_TIME90, 90 },
                  { MAIL_TIME100, 100 } };
    uint64_t ran = mail_run_secs (j, now) * 100;
    uint64_t limit = (uint64_t)j->time_limit * 60;

    for (size_t i = 0; i < sizeof (marks) / sizeof (marks[0]); i++) {
        uint32_t b = marks[i].bit;
        if (!(j->mail_type & b) || (j->mail_sent & b)
            || ran < limit * marks[i].pct)
            continue;
        j->mail_sent |= b;
        persist_job (ctx, j);
        mail_send (ctx, j, b, NULL);
    }
}

void mail_tick (struct ctld *ctx, time_t now)
{
    for (struct job *j = ctx->jobs; j; j = j->next)
        if ((j->mail_type & MAIL_TIMES) && j->state == JOB_RUNNING
            && !j->suspended && !j->completing
            && j->time_limit != TIME_INFINITE)
            mail_time_check (ctx, j, now);
}
