/* assoc_serve.c - sacctmgr's requests. See assoc_serve.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assoc/assoc_serve.h"
#include "assoc/assoc_req.h"
#include "assoc/assoc_show.h"
#include "assoc/policy.h"
#include "acct/acct_private.h"
#include "conf.h"
#include "conn.h"
#include "ctld.h"
#include "log.h"

/* Who sent f: root and ArborUser are administrators, others as their
 * user record says. name is filled (buf of len). */
static void actor (const struct ctld *ctx, uid_t uid, struct assoc_actor *who,
                   char *buf, size_t len)
{
    struct passwd pw, *res = NULL;
    char pwbuf[1024];
    const struct msg_assoc_rec *u;

    if (getpwuid_r (uid, &pw, pwbuf, sizeof (pwbuf), &res) == 0 && res)
        snprintf (buf, len, "%s", pw.pw_name);
    else
        snprintf (buf, len, "%u", (unsigned)uid);
    who->name = buf;
    u = assoc_find (&ctx->policy->assoc, "user", buf);
    who->level = u ? (enum assoc_admin)u->admin_level : ASSOC_ADMIN_NONE;
    if (uid == 0 || uid == ctx->priv_uid)
        who->level = ASSOC_ADMIN_ADMINISTRATOR;
}

static void reply (struct conn *c, const struct frame *f,
                   struct msg_assoc_reply *r)
{
    if (conn_send (c, MSG_ASSOC_REPLY, f->matchtag, FRAME_F_RESPONSE, r) < 0)
        log_err ("ASSOC_REPLY to %s: %s", conn_peer (c), strerror (errno));
    proto_clear (MSG_ASSOC_REPLY, r);
}

static void serve_show (struct ctld *ctx, struct conn *c, const struct frame *f,
                        const struct msg_assoc_req *req)
{
    char port[16], rpc[16];
    struct assoc_here here = { .port = port, .rpc = rpc };
    struct msg_assoc_reply r;
    arbor_error_t err;

    here.host = ctx->conf->control_addr ? ctx->conf->control_addr : "127.0.0.1";
    snprintf (port, sizeof (port), "%u", (unsigned)ctx->conf->ctld_port);
    snprintf (rpc, sizeof (rpc), "%d.%d", PROTO_VERSION_MAJOR,
              PROTO_VERSION_MINOR);
    if (assoc_show (&ctx->policy->assoc, &here, req, &r, &err) < 0) {
        (void)conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        return;
    }
    reply (c, f, &r);
}

/* Apply req on a copy; its text into *said. The copy into *out. */
static int change (struct ctld *ctx, const struct assoc_actor *who,
                   const struct msg_assoc_req *req, struct assoc *out,
                   struct assoc_touched *t, char **said, arbor_error_t *err)
{
    size_t len = 0;
    FILE *fp;
    int rc;

    if (assoc_copy (out, &ctx->policy->assoc) < 0)
        return errprintf (err, "out of memory");
    if (!(fp = open_memstream (said, &len))) {
        assoc_clear (out);
        return errprintf (err, "out of memory");
    }
    rc = assoc_apply (out, who, req, fp, t, err);
    if (fclose (fp) != 0 && rc == 0) {
        errno = ENOMEM;
        rc = errprintf (err, "out of memory");
    }
    if (rc < 0) {
        int e = errno;
        assoc_clear (out);
        free (*said);
        *said = NULL;
        errno = e;
    }
    return rc;
}

static void serve_change (struct ctld *ctx, struct conn *c,
                          const struct frame *f,
                          const struct msg_assoc_req *req)
{
    struct msg_assoc_reply r = { 0 };
    struct assoc_touched t = { 0 };
    struct assoc_actor who;
    struct assoc next;
    char name[256];
    arbor_error_t err;

    if (ctx->acct && !ctx->acct->db) {
        (void)conn_send_rc (c, f->matchtag, ENOTSUP,
                            "no accounting database "
                            "(AccountingStorageType=accounting_storage/none): "
                            "the site's policy is kept in it");
        return;
    }
    actor (ctx, f->uid, &who, name, sizeof (name));
    if (change (ctx, &who, req, &next, &t, &r.said, &err) < 0) {
        log_verbose ("sacctmgr %s %s by %s refused: %s", req->verb, req->entity,
                     name, err.text);
        (void)conn_send_rc (c, f->matchtag, errno, "%s", err.text);
        return;
    }
    if (req->dry_run || !t.n)
        assoc_clear (&next);
    else {
        assoc_clear (&ctx->policy->assoc);
        ctx->policy->assoc = next;
        policy_save (ctx, &t);
        log_info ("sacctmgr %s %s by %s: %u changed", req->verb, req->entity,
                  name, t.n);
    }
    if (!t.n) { /* nothing changed: nothing to tell */
        free (r.said);
        r.said = strdup ("");
    }
    assoc_touched_clear (&t);
    reply (c, f, &r);
}

void assoc_rpc_cb (struct conn *c, const struct frame *f, void *msg, void *arg)
{
    struct ctld *ctx = arg;
    const struct msg_assoc_req *req = msg;

    arbor_error_t err;

    if (!req->verb || !req->entity) {
        (void)conn_send_rc (c, f->matchtag, EINVAL, "sacctmgr: no %s given",
                            req->verb ? "entity" : "verb");
        return;
    }
    if (assoc_req_bounded (req, &err) < 0) {
        (void)conn_send_rc (c, f->matchtag, EINVAL, "%s", err.text);
        return;
    }
    if (!strcmp (req->verb, "show"))
        serve_show (ctx, c, f, req);
    else
        serve_change (ctx, c, f, req);
}
