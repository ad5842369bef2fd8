/* credkey.c - the credential key: kept in the state directory, handed to
 * nodeds (see credkey.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "authpool.h"
#include "credkey.h"
#include "ctld.h"
#include "log.h"
#include "nodes/node.h"
#include "nodes/nodecomm.h"

#define CREDKEY_FILE "cred.key"
#define CREDKEY_TTL 60 /* s: the token is sent at once */

/* One node's key on its way: at most one encode in flight per node. */
struct credkey_send {
    struct credkey *ck;
    size_t node;
    struct auth_job *job;
};

struct credkey {
    struct ctld *ctx;
    struct cred_key key;
    struct credkey_send *sends; /* one per node */
    size_t nsends;
};

/* The key file: ours alone, exactly CRED_KEY_SIZE bytes. */
static int credkey_read (int fd, const char *path, struct cred_key *k,
                         arbor_error_t *err)
{
    unsigned char raw[CRED_KEY_SIZE + 1];
    struct stat st;
    ssize_t n;
    int rc;

    if (fstat (fd, &st) < 0)
        return errprintf (err, "%s: %s", path, strerror (errno));
    if (!S_ISREG (st.st_mode) || st.st_uid != geteuid ()
        || (st.st_mode & 077)) {
        errno = EPERM;
        return errprintf (err,
                          "%s must be a file of uid %u readable by it alone"
                          " (chmod 600)",
                          path, (unsigned)geteuid ());
    }
    n = read (fd, raw, sizeof (raw));
    if (n < 0)
        return errprintf (err, "%s: %s", path, strerror (errno));
    if (n != CRED_KEY_SIZE) {
        errno = EINVAL;
        return errprintf (err,
                          "%s holds %zd bytes, not %d (remove it for a new"
                          " key: credentials issued before then stop opening)",
                          path, n, CRED_KEY_SIZE);
    }
    rc = cred_key_set (k, raw, CRED_KEY_SIZE, err);
    sodium_memzero (raw, sizeof (raw));
    return rc;
}

/* A new key, written to a temporary file then renamed into place. */
static int credkey_make (const char *path, struct cred_key *k,
                         arbor_error_t *err)
{
    char tmp[4200];
    int fd;

    if (cred_key_new (k, err) < 0)
        return -1;
    snprintf (tmp, sizeof (tmp), "%s.tmp", path);
    (void)unlink (tmp);
    fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return errprintf (err, "%s: %s", tmp, strerror (errno));
    if (write (fd, k->key, CRED_KEY_SIZE) != CRED_KEY_SIZE || fsync (fd) < 0
        || close (fd) < 0 || rename (tmp, path) < 0) {
        int e = errno ? errno : EIO;
        (void)unlink (tmp);
        errno = e;
        return errprintf (err, "cannot write %s: %s", path, strerror (e));
    }
    log_info ("made a new credential key %s in %s", k->id, path);
    return 0;
}

static int credkey_load (const char *dir, struct cred_key *k,
                         arbor_error_t *err)
{
    char path[4096];
    int fd, rc;

    if (!dir)
        return cred_key_new (k, err);
    snprintf (path, sizeof (path), "%s/%s", dir, CREDKEY_FILE);
    fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return credkey_make (path, k, err);
    if (fd < 0)
        return errprintf (err, "%s: %s", path, strerror (errno));
    rc = credkey_read (fd, path, k, err);
    close (fd);
    return rc;
}

struct credkey *credkey_create (struct ctld *ctx, const char *dir,
                                arbor_error_t *err)
{
    struct credkey *ck = calloc (1, sizeof (*ck));

    if (!ck
        || !(ck->sends =
                 calloc (ctx->nnodes ? ctx->nnodes : 1, sizeof (*ck->sends)))) {
        free (ck);
        errno = ENOMEM;
        errprintf (err, "out of memory");
        return NULL;
    }
    ck->ctx = ctx;
    ck->nsends = ctx->nnodes;
    if (credkey_load (dir, &ck->key, err) < 0) {
        int e = errno;
        credkey_destroy (ck);
        errno = e;
        return NULL;
    }
    return ck;
}

void credkey_destroy (struct credkey *ck)
{
    if (!ck)
        return;
    for (size_t i = 0; i < ck->nsends; i++)
        auth_job_cancel (ck->sends[i].job);
    sodium_memzero (&ck->key, sizeof (ck->key));
    free (ck->sends);
    free (ck);
}

const struct cred_key *credkey_key (const struct credkey *ck)
{
    return &ck->key;
}

static void credkey_sent_cb (struct ctld *ctx,
                             const struct nodecomm_result *res, void *arg)
{
    if (res->errnum)
        log_warn ("credential key to %s: %s", ctx->nodes[res->node].name,
                  res->text ? res->text : strerror (res->errnum));
}

static void credkey_encoded_cb (struct auth_result *res, void *arg)
{
    struct credkey_send *s = arg;
    struct credkey *ck = s->ck;
    struct msg_cred_key m = { .token = res->token, .key_id = ck->key.id };

    s->job = NULL;
    if (res->errnum) {
        log_err ("credential key for %s: %s", ck->ctx->nodes[s->node].name,
                 res->err.text);
        return;
    }
    nodecomm_send (ck->ctx, s->node, MSG_CRED_KEY, &m, credkey_sent_cb, NULL);
}

void credkey_registered (struct credkey *ck, size_t node, uid_t uid,
                         const char *held)
{
    struct credkey_send *s;

    if (!ck || node >= ck->nsends || !ck->ctx->pool
        || (held && !strcmp (held, ck->key.id)))
        return;
    s = &ck->sends[node];
    if (s->job)
        return; /* on its way */
    s->ck = ck;
    s->node = node;
    s->job = auth_pool_encode (ck->ctx->pool, ck->key.key, CRED_KEY_SIZE,
                               CREDKEY_TTL, uid, credkey_encoded_cb, s);
    if (!s->job)
        log_err ("credential key for %s: cannot queue a munge encode: %s",
                 ck->ctx->nodes[node].name, strerror (errno));
}
