/* stepd_spawner.c - the node's stepd spawner: stepds by fork, not exec.
 *
 * One "arbor-stepd --spawner" per noded (stepd/spawner.c, protocol in
 * common/wire/spawnmsg.h) has loaded the configuration, the log and the
 * proctrack plugin once; each SPAWN makes it fork a stepd that starts
 * where an exec'd one would be after all that. stepd_spawn.c asks here
 * first and execs the stepd itself when there is no spawner.
 *
 * The spawner is started with the noded and again, lazily, when a launch
 * needs it after it died (at most once per SPAWNER_RETRY seconds: a
 * spawner that cannot start must not cost every launch a failed attempt).
 * Requests go to it only once it said READY; a StepdPath that is no
 * spawner (an older arbor-stepd, a wrapper) dies before that, and after
 * SPAWNER_TRIES such deaths in a row the noded stops trying. It reports
 * FORKED (the pid: the stepd's record and watcher start then,
 * stepd_spawned) and EXITED (the wait status: stepd_reaped, as ev_child
 * would have). The noded is a child subreaper, so that if the spawner dies
 * its stepds become our children and their ev_child watchers fire; a
 * stepd the dead spawner had already reaped but not reported is found
 * with waitid and ends as one that exited.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "log.h"
#include "noded_base.h"
#include "spawnmsg.h"
#include "stepd_spawn.h"
#include "stepd_spawner.h"
#include "stepd_table.h"

#define SPAWNER_RETRY 1.0 /* s between attempts to start a spawner */
#define SPAWNER_TRIES 3   /* spawners that die before READY: then exec */

struct spawner {
    struct noded *nd;
    pid_t pid;  /* 0 when there is none */
    int sock;   /* our SOCK_SEQPACKET end, -1 when none */
    ev_io io_w; /* its reports */
    ev_child child_w;
    bool ready;   /* it said READY: SPAWN may be sent */
    int failures; /* spawners in a row that died before READY */
    uint64_t next_token;
    double retry_at; /* ev_now before which no new spawner is tried */
};

static struct stepd_rec *spawner_find (struct noded *nd, uint64_t token,
                                       pid_t pid)
{
    for (struct stepd_rec *s = nd->stepds->head; s; s = s->next) {
        if (token && s->spawn_token == token && s->pid == 0)
            return s;
        if (pid && s->pid == pid)
            return s;
    }
    return NULL;
}

static void spawner_report (struct spawner *sp, const struct spawnmsg *m)
{
    struct noded *nd = sp->nd;
    struct stepd_rec *s =
        spawner_find (nd, m->kind == SPAWNMSG_EXITED ? 0 : m->token,
                      m->kind == SPAWNMSG_EXITED ? m->pid : 0);

    if (!s && m->kind != SPAWNMSG_READY) {
        log_debug ("spawner: %s for %s %llu: no such stepd here",
                   m->kind == SPAWNMSG_EXITED ? "exit" : "answer",
                   m->kind == SPAWNMSG_EXITED ? "pid" : "request",
                   m->kind == SPAWNMSG_EXITED ? (unsigned long long)m->pid
                                              : (unsigned long long)m->token);
        return;
    }
    if (m->kind == SPAWNMSG_READY) {
        sp->ready = true;
        sp->failures = 0;
        log_debug ("stepd spawner (pid %d) ready", (int)sp->pid);
        return;
    }
    if (m->kind == SPAWNMSG_FORKED)
        stepd_spawned (s, m->pid);
    else if (m->kind == SPAWNMSG_FAILED)
        stepd_spawn_failed (s, m->value, "the stepd spawner cannot fork");
    else if (m->kind == SPAWNMSG_EXITED)
        stepd_reaped (s, m->value);
}

/* Read every report waiting. */
static void spawner_drain (struct spawner *sp)
{
    struct spawnmsg m;
    arbor_error_t err = { "" };
    int fd, rc;

    while (sp->sock >= 0) {
        if ((rc = spawnmsg_recv (sp->sock, &m, &fd, &err)) == 0) {
            /* EOF: it is exiting; ev_child says the rest */
            ev_io_stop (sp->nd->loop, &sp->io_w);
            break;
        }
        if (rc < 0 && errno == EPROTO) {
            log_err ("spawner: %s", err.text);
            continue;
        }
        if (rc < 0)
            break; /* EAGAIN, or the socket died: ev_child says the rest */
        if (fd >= 0)
            close (fd);
        spawner_report (sp, &m);
    }
}

static void spawner_io_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    spawner_drain (w->data);
}

static void spawner_close (struct spawner *sp)
{
    ev_io_stop (sp->nd->loop, &sp->io_w);
    ev_child_stop (sp->nd->loop, &sp->child_w);
    if (sp->sock >= 0)
        close (sp->sock);
    sp->sock = -1;
    sp->pid = 0;
    sp->ready = false;
}

/* Its stepds still waiting for their pid will never get one; those it
 * reaped without telling us are gone (waitid: not our child). The rest
 * are our children now (we are their subreaper). */
static void spawner_orphans (struct spawner *sp)
{
    struct stepd_rec *s = sp->nd->stepds->head, *next;

    for (; s; s = next) {
        siginfo_t si = { 0 };
        next = s->next;
        if (!s->spawned || s->exited)
            continue;
        if (s->pid == 0)
            stepd_spawn_failed (s, ECHILD,
                                "the stepd spawner died while starting it");
        else if (waitid (P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT)
                     < 0
                 && errno == ECHILD)
            stepd_reaped (s, 0);
    }
}

static void spawner_child_cb (struct ev_loop *loop, ev_child *w, int revents)
{
    struct spawner *sp = w->data;
    bool signalled = WIFSIGNALED (w->rstatus);
    int code = signalled ? WTERMSIG (w->rstatus) : WEXITSTATUS (w->rstatus);

    spawner_drain (sp);
    if (!sp->ready && ++sp->failures >= SPAWNER_TRIES) {
        log_warn ("stepd spawner (%s --spawner) %s %d before it was ready, "
                  "%d times: stepds are exec'd from now on",
                  sp->nd->stepd_path,
                  signalled ? "killed by signal" : "exited with status", code,
                  sp->failures);
        sp->retry_at = INFINITY;
    } else {
        log_warn ("stepd spawner (pid %d) %s %d; stepds are exec'd until a "
                  "new one starts",
                  (int)sp->pid,
                  signalled ? "killed by signal" : "exited with status", code);
        sp->retry_at = ev_now (loop) + SPAWNER_RETRY;
    }
    spawner_close (sp);
    spawner_orphans (sp);
}

/* The spawner's environment: the noded's, with LD_BIND_NOW=1. The
 * dynamic linker then resolves every symbol of the spawner and its
 * libraries once, at its start, and every stepd forked from it inherits
 * them resolved, instead of each stepd resolving (and writing, so
 * copying on write) the ones it calls on first use. */
static char **spawner_environ (void)
{
    size_t n = 0, k = 0;
    char **envp;

    while (environ[n])
        n++;
    if (!(envp = calloc (n + 2, sizeof (*envp))))
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp (environ[i], "LD_BIND_NOW=", 12) != 0)
            envp[k++] = environ[i];
    envp[k] = "LD_BIND_NOW=1";
    return envp;
}

static int spawner_exec (struct spawner *sp, int fd)
{
    struct noded *nd = sp->nd;
    char *argv[] = {
        nd->stepd_path, "-f", nd->conf->path, "-n", (char *)nd->name,
        "--spawner",    NULL
    };
    char **envp = spawner_environ ();
    int rc;

    if (!envp)
        return ENOMEM;
    rc = stepd_exec_argv (nd, argv, envp, fd, &sp->pid);
    free (envp);
    return rc;
}

/* Start a spawner now. 0, or -1 (logged; launches exec their stepds). */
static int spawner_start (struct spawner *sp)
{
    int sv[2], rc;

    if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
                    sv)
        < 0) {
        log_warn ("stepd spawner: socketpair: %s", strerror (errno));
        return -1;
    }
    /* Its end blocks: the spawner waits in poll, never on a full queue. */
    fcntl (sv[1], F_SETFL, 0);
    rc = spawner_exec (sp, sv[1]);
    close (sv[1]);
    if (rc != 0) {
        close (sv[0]);
        log_warn ("stepd spawner: cannot run %s: %s", sp->nd->stepd_path,
                  strerror (rc));
        return -1;
    }
    sp->sock = sv[0];
    ev_io_init (&sp->io_w, spawner_io_cb, sp->sock, EV_READ);
    sp->io_w.data = sp;
    ev_io_start (sp->nd->loop, &sp->io_w);
    ev_child_init (&sp->child_w, spawner_child_cb, sp->pid, 0);
    sp->child_w.data = sp;
    ev_child_start (sp->nd->loop, &sp->child_w);
    log_debug ("stepd spawner started (pid %d)", (int)sp->pid);
    return 0;
}

int spawner_create (struct noded *nd)
{
    struct spawner *sp = calloc (1, sizeof (*sp));

    if (!sp)
        return -1;
    sp->nd = nd;
    sp->sock = -1;
    nd->spawner = sp;
    /* A dead spawner's stepds come to us (see the top of this file). */
    if (prctl (PR_SET_CHILD_SUBREAPER, 1) < 0)
        log_warn ("PR_SET_CHILD_SUBREAPER: %s", strerror (errno));
    spawner_start (sp);
    return 0;
}

int spawner_spawn (struct noded *nd, struct stepd_rec *s, int fd,
                   const char *mpi)
{
    struct spawner *sp = nd->spawner;
    struct spawnmsg m = { .magic = SPAWNMSG_MAGIC,
                          .kind = SPAWNMSG_SPAWN,
                          .value = spawnmsg_mpi_value (conf_mpi_type (mpi)) };

    if (!sp)
        return -1;
    if (sp->sock < 0 && ev_now (nd->loop) >= sp->retry_at
        && spawner_start (sp) < 0)
        sp->retry_at = ev_now (nd->loop) + SPAWNER_RETRY;
    if (!sp->ready)
        return -1; /* none, or not loaded yet: this one is exec'd */
    m.token = ++sp->next_token;
    if (spawnmsg_send (sp->sock, &m, fd) < 0) {
        log_debug ("stepd spawner: %s: exec'ing the stepd", strerror (errno));
        return -1;
    }
    s->spawned = true;
    s->spawn_token = m.token;
    return 0;
}

/* The spawner reads EOF and exits; its stepds run on. */
void spawner_destroy (struct noded *nd)
{
    struct spawner *sp = nd->spawner;

    if (!sp)
        return;
    spawner_close (sp);
    free (sp);
    nd->spawner = NULL;
}
