/* credkey_held.c - the credential key, learnt from the controller; see
 * credkey_held.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "authpool.h"
#include "conn.h"
#include "credkey_held.h"
#include "launch.h"
#include "log.h"
#include "noded_base.h"
#include "register.h"
#include "serve.h"

const struct cred_key *credkey_held (const struct noded *nd)
{
    return nd->cred_key;
}

const char *credkey_held_id (const struct noded *nd)
{
    return nd->cred_key ? nd->cred_key->id : "";
}

/* Stage: the token is the controller's, for us alone, and a key. */
static int credkey_accept (struct noded *nd, const struct auth_result *res,
                           struct cred_key *k, arbor_error_t *err)
{
    if (res->errnum)
        return errprintf (err, "%s", res->err.text);
    if (res->uid != nd->arbor_uid)
        return errprintf (err, "minted by uid %u, not ArborUser (uid %u)",
                          (unsigned)res->uid, (unsigned)nd->arbor_uid);
    if (res->restricted_uid != geteuid ())
        return errprintf (err, "not restricted to our uid %u",
                          (unsigned)geteuid ());
    return cred_key_set (k, res->payload, res->payload ? res->len : 0, err);
}

static void credkey_decoded_cb (struct auth_result *res, void *arg)
{
    struct noded *nd = arg;
    struct cred_key k;
    arbor_error_t err;

    nd->cred_key_job = NULL;
    if (credkey_accept (nd, res, &k, &err) < 0) {
        log_security ("credential key refused: %s", err.text);
        return;
    }
    if (!nd->cred_key && !(nd->cred_key = malloc (sizeof (k)))) {
        log_err ("credential key: out of memory");
        return;
    }
    if (strcmp (credkey_held_id (nd), k.id) != 0)
        log_info ("credential key %s from the controller", k.id);
    *nd->cred_key = k;
    sodium_memzero (&k, sizeof (k));
    launch_key_arrived (nd);
    serve_key_arrived (nd);
}

void credkey_handle (struct noded *nd, struct conn *c, const struct frame *f,
                     const struct msg_cred_key *m)
{
    const char *tok = m->token ? m->token : "";

    auth_job_cancel (nd->cred_key_job); /* the newer one wins */
    nd->cred_key_job =
        auth_pool_decode (nd->pool, tok, strlen (tok), credkey_decoded_cb, nd);
    if (!nd->cred_key_job) {
        conn_send_rc (c, f->matchtag, EIO, "cannot queue a munge decode");
        return;
    }
    conn_send_rc (c, f->matchtag, 0, "%s", "");
}

void credkey_wanted (struct noded *nd)
{
    if (!nd->cred_key_job)
        reg_now (nd->reg);
}

void credkey_forget (struct noded *nd)
{
    auth_job_cancel (nd->cred_key_job);
    nd->cred_key_job = NULL;
    if (nd->cred_key) {
        sodium_memzero (nd->cred_key, sizeof (*nd->cred_key));
        free (nd->cred_key);
        nd->cred_key = NULL;
    }
}
