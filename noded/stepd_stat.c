/* stepd_stat.c - STEP_STAT for sstat: what a step's tasks use here now.
 *
 * Any user may ask (serve.c); only the step's owner, root and ArborUser
 * are answered, the owner being the one the stepd was started for (our
 * table, or the record a previous noded left in the spool). The stepd
 * measures (stepd/stat.c) and we relay its STEP_STAT_REPLY with the
 * asker's matchtag. A request in flight is kept in nd->stats, so that a
 * client that hangs up first (serve.c's closed callback) cancels its.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "noded.h"
#include "request.h"
#include "stepd_table.h"

#define STAT_TIMEOUT 10.0 /* s: a stepd reads /proc, it never blocks */

struct stat_relay {
    struct noded *nd;
    struct stat_relay *next;
    struct conn *asker;
    uint32_t matchtag;
    struct request *req;
};

static void stat_unlink (struct stat_relay *sr)
{
    for (struct stat_relay **pp = &sr->nd->stats; *pp; pp = &(*pp)->next)
        if (*pp == sr) {
            *pp = sr->next;
            return;
        }
}

static void stat_done_cb (const struct request_result *res, void *arg)
{
    struct stat_relay *sr = arg;

    stat_unlink (sr);
    if (res->outcome == REQUEST_ANSWERED)
        conn_send (sr->asker, MSG_STEP_STAT_REPLY, sr->matchtag,
                   FRAME_F_RESPONSE, res->msg);
    else
        conn_send_rc (sr->asker, sr->matchtag,
                      res->errnum ? res->errnum : EPROTO, "%s", res->err.text);
    free (sr);
}

/* The uid the step runs as, or -1 when it has no stepd here. */
static long stat_owner (struct noded *nd, uint32_t job, uint32_t step)
{
    struct stepd_rec *s = stepd_table_find (nd->stepds, job, step);
    struct stepd_info si;

    if (s && s->state != STEPD_FAILED)
        return (long)s->uid;
    if (!s && stepd_exists (nd, job, step)
        && stepd_info_read (nd, job, step, &si) == 0)
        return (long)si.uid;
    return -1;
}

void stepd_stat_handle (struct noded *nd, struct conn *c, const struct frame *f,
                        const struct msg_step_stat *m)
{
    struct request_opts opts = { .timeout = STAT_TIMEOUT,
                                 .resp_type = MSG_STEP_STAT_REPLY };
    long owner = stat_owner (nd, m->job_id, m->step_id);
    struct stat_relay *sr;
    char *path;

    if (owner < 0) {
        conn_send_rc (c, f->matchtag, ESRCH, "no step %u.%u on %s", m->job_id,
                      m->step_id, nd->name);
        return;
    }
    if (f->uid != (uid_t)owner && f->uid != 0 && f->uid != nd->arbor_uid) {
        log_security ("STEP_STAT of %u.%u from uid %u refused: not its owner",
                      m->job_id, m->step_id, (unsigned)f->uid);
        conn_send_rc (c, f->matchtag, EPERM, "Access/permission denied");
        return;
    }
    if (!(sr = calloc (1, sizeof (*sr)))
        || !(path = stepd_socket_path (nd, m->job_id, m->step_id))) {
        free (sr);
        conn_send_rc (c, f->matchtag, ENOMEM, "out of memory");
        return;
    }
    *sr = (struct stat_relay){ nd, nd->stats, c, f->matchtag, NULL };
    sr->req = request_unix (nd->loop, path, MSG_STEP_STAT, m, &opts,
                            stat_done_cb, sr);
    free (path);
    if (!sr->req) {
        conn_send_rc (c, f->matchtag, errno, "asking stepd %u.%u: %s",
                      m->job_id, m->step_id, strerror (errno));
        free (sr);
        return;
    }
    nd->stats = sr;
}

void stepd_stat_conn_closed (struct noded *nd, struct conn *c)
{
    for (struct stat_relay **pp = &nd->stats; *pp;) {
        struct stat_relay *sr = *pp;
        if (sr->asker != c) {
            pp = &sr->next;
            continue;
        }
        *pp = sr->next;
        request_cancel (sr->req);
        free (sr);
    }
}

void stepd_stat_destroy_all (struct noded *nd)
{
    while (nd->stats) {
        struct stat_relay *sr = nd->stats;
        nd->stats = sr->next;
        request_cancel (sr->req);
        free (sr);
    }
}
