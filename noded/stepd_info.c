/* stepd_info.c - the end of a stepd, whoever started it.
 *
 * A stepd normally ends its own container and removes its socket before
 * it exits. One that is killed (kill -9, a crash, the OOM killer) does
 * neither: its tasks would run on outside Arbor's control. The noded owns
 * the container's fate then, so it must (1) notice the death and (2) know
 * which container it was, also when the stepd was started by a previous
 * noded:
 *   - each stepd gets a record "<spool>/stepd.<job>.<step>.info" (pid,
 *     uid, gid, credential expiry; written at spawn, removed once its end
 *     is dealt with): the uid names the container, the expiry bounds the
 *     revocation;
 *   - our own stepds are reaped (ev_child, stepd_spawn.c); those of a
 *     previous noded are watched through a pidfd opened on the pid behind
 *     their socket (SO_PEERCRED), found at start (stepd_scan). The
 *     connection to that socket is kept and named with STEPD_ATTACH: it
 *     replaces the stepd's lost fd 0, so the stepd sends its
 *     STEP_COMPLETE on it for us to relay (stepd_relay.c);
 *   - a stepd that left its socket behind did not end on its own: it
 *     died, and its container is ended by the noded (stepd_orphan.c). A
 *     socket nobody listens on (ECONNREFUSED) says the same.
 * Every ended step is revoked until its credential expires, so that the
 * same LAUNCH cannot start it again (a replay after a normal end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"
#include "net.h"
#include "noded_base.h"
#include "revoke.h"
#include "spool_scan.h"
#include "stepd_info.h"
#include "stepd_mesh.h"
#include "stepd_orphan.h"
#include "stepd_relay.h"
#include "stepd_spawn.h"
#include "stepd_table.h"
#include "stepd_track.h"

/* A stepd of a previous noded, watched until it exits. */
struct stepd_watch {
    struct noded *nd;
    struct stepd_watch *next;
    struct stepd_info info;
    uint64_t started_ms; /* its socket's mtime: when it began listening */
    ev_io w;             /* the pidfd: readable once the pid exited */
    struct conn *conn;   /* attached to its socket; NULL if closed */
};

struct conn *stepd_conn_find (struct noded *nd, uint32_t job, uint32_t step)
{
    struct stepd_rec *s = stepd_table_find (nd->stepds, job, step);

    if (s && s->conn)
        return s->conn;
    for (struct stepd_watch *sw = nd->stepds->watches; sw; sw = sw->next)
        if (sw->info.job_id == job && sw->info.step_id == step && sw->conn)
            return sw->conn;
    return NULL;
}

static char *stepd_info_path (const struct noded *nd, uint32_t job,
                              uint32_t step)
{
    char *path;

    if (asprintf (&path, "%s/stepd.%u.%u.info", nd->spool, job, step) < 0)
        return NULL;
    return path;
}

/* Written to a temporary name and renamed, so a reader never sees half. */
int stepd_info_write (const struct noded *nd, const struct stepd_info *si)
{
    char *path = stepd_info_path (nd, si->job_id, si->step_id), *tmp = NULL;
    FILE *fp = NULL;
    int rc = -1, e;

    if (!path || asprintf (&tmp, "%s.tmp", path) < 0) {
        tmp = NULL;
        goto out;
    }
    if (!(fp = fopen (tmp, "we")))
        goto out;
    fprintf (fp, "%ld %lu %lu %" PRIu64 " %u\n", (long)si->pid,
             (unsigned long)si->uid, (unsigned long)si->gid, si->expires,
             si->restarts);
    if (fclose (fp) != 0 || rename (tmp, path) < 0)
        goto out;
    rc = 0;
out:
    e = errno;
    if (rc < 0 && tmp)
        unlink (tmp);
    free (tmp);
    free (path);
    errno = e;
    return rc;
}

int stepd_info_read (const struct noded *nd, uint32_t job, uint32_t step,
                     struct stepd_info *si)
{
    char *path = stepd_info_path (nd, job, step);
    unsigned long uid, gid;
    uint64_t expires;
    unsigned restarts = 0; /* absent from an older noded's record */
    long pid;
    FILE *fp;
    int n;

    if (!path)
        return -1;
    fp = fopen (path, "re");
    free (path);
    if (!fp)
        return -1;
    n = fscanf (fp, "%ld %lu %lu %" SCNu64 " %u", &pid, &uid, &gid, &expires,
                &restarts);
    fclose (fp);
    if (n < 4 || pid <= 0) {
        errno = EINVAL;
        return -1;
    }
    *si = (struct stepd_info){ .job_id = job,
                               .step_id = step,
                               .pid = (pid_t)pid,
                               .uid = (uid_t)uid,
                               .gid = (gid_t)gid,
                               .expires = expires,
                               .restarts = restarts };
    return 0;
}

void stepd_info_remove (const struct noded *nd, uint32_t job, uint32_t step)
{
    char *path = stepd_info_path (nd, job, step);

    if (path && unlink (path) < 0 && errno != ENOENT)
        log_warn ("remove %s: %s", path, strerror (errno));
    free (path);
}

/* Revoked until the credential expires; CredExpire from now when the
 * expiry is not known (a record written by an older noded). */
static void stepd_revoke (struct noded *nd, const struct stepd_info *si)
{
    time_t now = time (NULL);
    time_t until = si->expires > (uint64_t)now
                       ? (time_t)si->expires
                       : now + (time_t)nd->conf->cred_expire;

    revoke_add (nd->revoked, si->job_id, si->restarts, si->step_id, until);
}

void stepd_ended (struct noded *nd, const struct stepd_info *si, bool died,
                  int rc, const char *how)
{
    stepd_revoke (nd, si);
    if (!died) {
        stepd_info_remove (nd, si->job_id, si->step_id);
        return;
    }
    if (stepd_orphan_exists (nd, si->job_id, si->step_id))
        return;
    log_err ("stepd %u.%u (pid %d) %s without ending its tasks: ending "
             "its container",
             si->job_id, si->step_id, (int)si->pid, how);
    (void)stepd_orphan_start (nd, si, rc);
}

bool stepd_socket_dead (struct noded *nd, uint32_t job, uint32_t step,
                        const char *path)
{
    struct stepd_info si;

    if (stepd_orphan_exists (nd, job, step))
        return true;
    if (stepd_info_read (nd, job, step, &si) == 0) {
        stepd_ended (nd, &si, true, 1,
                     "is gone (its socket refuses "
                     "connections)");
        return stepd_orphan_exists (nd, job, step);
    }
    if (unlink (path) == 0)
        log_info ("stepd %u.%u is gone: removed stale socket %s", job, step,
                  path);
    return false;
}

/* ---- stepds of a previous noded ------------------------------------------ */

static void stepd_watch_unlink (struct stepd_watch *sw)
{
    struct stepd_table *t = sw->nd->stepds;

    for (struct stepd_watch **pp = &t->watches; *pp; pp = &(*pp)->next) {
        if (*pp == sw) {
            *pp = sw->next;
            break;
        }
    }
    ev_io_stop (sw->nd->loop, &sw->w);
    close (sw->w.fd);
    conn_destroy (sw->conn);
    sw->conn = NULL;
}

void stepd_watch_free_all (struct stepd_table *t)
{
    while (t->watches) {
        struct stepd_watch *sw = t->watches;
        stepd_watch_unlink (sw);
        free (sw);
    }
}

/* The watched stepd exited: on its own if it removed its socket. */
static void stepd_watch_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct stepd_watch *sw = w->data;
    struct noded *nd = sw->nd;
    struct stepd_info si = sw->info;
    char *path = stepd_socket_path (nd, si.job_id, si.step_id);
    struct stat st;
    bool died = path && stat (path, &st) == 0;

    free (path);
    stepd_watch_unlink (sw);
    free (sw);
    log_verbose ("stepd %u.%u (pid %d) from before has exited", si.job_id,
                 si.step_id, (int)si.pid);
    stepd_ended (nd, &si, died, 1, "died");
}

/* The pid listening on 'path' (SO_PEERCRED of a connection to it). The
 * connection is left in *fdp (-1 on failure) for the caller. */
static pid_t stepd_socket_pid (const char *path, int *fdp, int *errnum)
{
    struct ucred cred;
    socklen_t len = sizeof (cred);
    arbor_error_t err;
    int fd = net_connect_unix (path, &err);

    *errnum = fd < 0 ? errno : 0;
    *fdp = fd;
    if (fd < 0)
        return -1;
    if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
        *errnum = errno;
        cred.pid = -1;
        close (fd);
        *fdp = -1;
    }
    return cred.pid;
}

/* On the attached connection: the answer to STEPD_ATTACH, and the
 * stepd's STEP_COMPLETE. */
static void stepd_watch_frame_cb (struct conn *c, const struct frame *f,
                                  void *arg)
{
    struct stepd_watch *sw = arg;
    uint32_t job = sw->info.job_id, step = sw->info.step_id;
    struct msg_rc rc;

    if (stepd_relay_frame (sw->nd, c, f, job, step)
        || stepd_mesh_frame (sw->nd, c, f, job, step))
        return;
    if (f->type != MSG_RC || !(f->flags & FRAME_F_RESPONSE)
        || proto_decode (MSG_RC, f->body, f->body_len, &rc, NULL) < 0) {
        log_debug ("stepd %u.%u: ignoring %s", job, step,
                   proto_msg_name (f->type) ? proto_msg_name (f->type)
                                            : "unknown frame");
        return;
    }
    if (rc.errnum == 0)
        log_debug ("stepd %u.%u: attached", job, step);
    else {
        /* An older stepd: it reports to the ctld itself. */
        log_verbose ("stepd %u.%u refused STEPD_ATTACH: %s", job, step,
                     rc.text ? rc.text : "");
        conn_close_after_flush (c);
    }
    proto_clear (MSG_RC, &rc);
}

static void stepd_watch_closed_cb (struct conn *c, const arbor_error_t *err,
                                   void *arg)
{
    ((struct stepd_watch *)arg)->conn = NULL; /* the pidfd says the rest */
}

static const struct conn_ops stepd_watch_ops = {
    .frame = stepd_watch_frame_cb,
    .closed = stepd_watch_closed_cb,
};

/* Keep the connection 'fd' to the stepd's socket and tell the stepd that
 * we are its noded now. Without it, the stepd reports to the ctld
 * itself: logged, not an error. Takes fd. */
static void stepd_watch_attach (struct stepd_watch *sw, int fd)
{
    struct msg_stepd_attach m = { .node = (char *)sw->nd->name };

    if (!(sw->conn =
              conn_create_unix (sw->nd->loop, fd, &stepd_watch_ops, sw))) {
        close (fd);
    } else if (conn_send (sw->conn, MSG_STEPD_ATTACH, 1, 0, &m) < 0) {
        conn_destroy (sw->conn);
        sw->conn = NULL;
    } else
        return;
    log_warn ("stepd %u.%u: cannot attach: %s", sw->info.job_id,
              sw->info.step_id, strerror (errno));
}

void stepd_watch_each_of_user (struct noded *nd, uid_t uid, stepd_each_f f,
                               void *arg)
{
    for (struct stepd_watch *sw = nd->stepds->watches; sw; sw = sw->next)
        if (sw->info.uid == uid)
            f (sw->info.job_id, sw->info.step_id, sw->started_ms, arg);
}

/* Takes conn_fd (the connection to its socket). */
static int stepd_watch_start (struct noded *nd, const struct stepd_info *si,
                              uint64_t started_ms, int conn_fd)
{
    struct stepd_watch *sw = calloc (1, sizeof (*sw));
    int fd = (int)syscall (SYS_pidfd_open, si->pid, 0);

    if (!sw || fd < 0) {
        int e = errno;
        free (sw);
        if (fd >= 0)
            close (fd);
        close (conn_fd);
        errno = e;
        return -1;
    }
    fcntl (fd, F_SETFD, FD_CLOEXEC);
    sw->nd = nd;
    sw->info = *si;
    sw->started_ms = started_ms;
    ev_io_init (&sw->w, stepd_watch_cb, fd, EV_READ);
    sw->w.data = sw;
    ev_io_start (nd->loop, &sw->w);
    sw->next = nd->stepds->watches;
    nd->stepds->watches = sw;
    stepd_watch_attach (sw, conn_fd);
    return 0;
}

/* One stepd socket found at start. */
static void stepd_rescan_one (struct noded *nd, uint32_t job, uint32_t step)
{
    char *path = stepd_socket_path (nd, job, step);
    struct stepd_info si;
    struct stat st;
    uint64_t started_ms = 0;
    int errnum, fd;
    pid_t pid;

    if (!path)
        return;
    if (stat (path, &st) == 0)
        started_ms = (uint64_t)st.st_mtim.tv_sec * 1000
                     + (uint64_t)st.st_mtim.tv_nsec / 1000000;
    log_info ("found stepd %u.%u from before (%s)", job, step, path);
    pid = stepd_socket_pid (path, &fd, &errnum);
    if (pid < 0 && errnum == ECONNREFUSED)
        stepd_socket_dead (nd, job, step, path);
    else if (pid < 0)
        log_warn ("stepd %u.%u: %s: %s", job, step, path, strerror (errnum));
    else if (stepd_info_read (nd, job, step, &si) < 0) {
        log_warn ("stepd %u.%u: no record of it (%s): its death would go "
                  "unnoticed",
                  job, step, strerror (errno));
        close (fd);
    } else {
        si.pid = pid; /* the one behind the socket is authoritative */
        if (stepd_watch_start (nd, &si, started_ms, fd) < 0)
            log_warn ("stepd %u.%u: cannot watch pid %d: %s", job, step,
                      (int)pid, strerror (errno));
    }
    free (path);
}

/* A record with no socket: the step ended while no noded ran. */
static void stepd_rescan_record (struct noded *nd, uint32_t job, uint32_t step)
{
    char *path = stepd_socket_path (nd, job, step);
    struct stepd_info si;
    struct stat st;

    if (path && stat (path, &st) < 0 && errno == ENOENT
        && stepd_info_read (nd, job, step, &si) == 0) {
        log_verbose ("step %u.%u ended while the noded was down: revoked", job,
                     step);
        stepd_ended (nd, &si, false, 0, "ended");
    }
    free (path);
}

/* spool_scan_f: a stepd socket, counted. */
static int stepd_scan_socket (const char *path, uint32_t job, uint32_t step,
                              void *arg)
{
    stepd_rescan_one (arg, job, step);
    return 1;
}

/* spool_scan_f: a stepd record. */
static int stepd_scan_record (const char *path, uint32_t job, uint32_t step,
                              void *arg)
{
    stepd_rescan_record (arg, job, step);
    return 0;
}

int stepd_scan (struct noded *nd)
{
    return spool_scan (nd->spool, stepd_scan_socket, stepd_scan_record, nd);
}
