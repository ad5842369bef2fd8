/* policy.c - the site policy's state in the controller. See policy.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/policy.h"
#include "assoc/assoc_private.h"
#include "acct/acct_private.h"
#include "acct/acct_db.h"
#include "conf.h"
#include "ctld.h"
#include "job/job.h"
#include "log.h"

int policy_enforce_parse (const char *s, unsigned *out, arbor_error_t *err)
{
    static const struct {
        const char *name;
        unsigned flags;
    } words[] = {
        { "associations", POLICY_ASSOCIATIONS },
        { "limits", POLICY_ASSOCIATIONS | POLICY_LIMITS },
        { "qos", POLICY_ASSOCIATIONS | POLICY_QOS },
        { "safe", POLICY_ASSOCIATIONS | POLICY_LIMITS | POLICY_SAFE },
        { "nojobs", 0 },
        { "nosteps", 0 },
        { "wckeys", 0 },
        { "none", 0 },
    };
    char *copy = strdup (s ? s : ""), *save = NULL;

    *out = 0;
    if (!copy)
        return errprintf (err, "out of memory");
    for (char *w = strtok_r (copy, ",", &save); w; w = strtok_r (NULL, ",", &save)) {
        size_t i = 0;
        while (i < sizeof (words) / sizeof (words[0])
               && strcasecmp (w, words[i].name))
            i++;
        if (i == sizeof (words) / sizeof (words[0])) {
            errprintf (err,
                       "AccountingStorageEnforce: unknown '%s' (associations, "
                       "limits, qos, safe, nojobs, nosteps, wckeys)",
                       w);
            free (copy);
            return -1;
        }
        *out |= words[i].flags;
    }
    free (copy);
    return 0;
}

static struct acct_db *policy_db (const struct ctld *ctx)
{
    return ctx->acct ? ctx->acct->db : NULL;
}

static int load_one (const char *rec, size_t len, void *arg)
{
    struct msg_assoc_rec r;
    arbor_error_t err;

    if (proto_decode (MSG_ASSOC_REC, rec, len, &r, &err) < 0)
        return -1;
    if (assoc_adopt (arg, &r) < 0) {
        proto_clear (MSG_ASSOC_REC, &r);
        return -1;
    }
    return 0;
}

/* Every record read back keeps the rules (a damaged database is said
 * so, naming the record). */
static int check_all (const struct assoc *a, arbor_error_t *err)
{
    const struct msg_assoc_rec *sets[] = { a->accounts, a->users };
    size_t ns[] = { a->naccounts, a->nusers };
    arbor_error_t why;

    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < ns[k]; i++)
            if (assoc_check (a, &sets[k][i], &why) < 0)
                return errprintf (err, "accounting database: %s %s: %s",
                                  sets[k][i].kind, sets[k][i].name, why.text);
    return 0;
}

/* Write entity kind/name as it is now (gone: deleted). */
static void save_one (struct ctld *ctx, const char *key)
{
    char kind[16];
    const char *slash = strchr (key, '/');
    struct msg_assoc_rec *r;
    char *buf = NULL;
    size_t len = 0;

    if (!slash || (size_t)(slash - key) >= sizeof (kind))
        return;
    memcpy (kind, key, (size_t)(slash - key));
    kind[slash - key] = '\0';
    r = assoc_find (&ctx->policy->assoc, kind, slash + 1);
    if ((r && proto_encode (MSG_ASSOC_REC, r, &buf, &len) < 0)
        || acct_db_put_assoc (ctx->acct->db, key, buf, len) < 0)
        log_err ("site policy: cannot write %s: out of memory", key);
}

void policy_save (struct ctld *ctx, const struct assoc_touched *t)
{
    if (!policy_db (ctx))
        return;
    for (uint32_t i = 0; i < t->n; i++)
        save_one (ctx, t->v[i]);
}

/* The cluster and root account, when missing (a new database). */
static int policy_defaults (struct ctld *ctx, arbor_error_t *err)
{
    struct assoc *a = &ctx->policy->assoc;
    const char *cluster =
        ctx->conf->cluster_name ? ctx->conf->cluster_name : "arbor";
    struct assoc_touched t = { 0 };
    struct assoc fresh;
    int rc = 0;

    if (assoc_find (a, "cluster", cluster)
        && assoc_find (a, "account", ASSOC_ROOT))
        return 0;
    if (assoc_init (&fresh, cluster) < 0)
        return errprintf (err, "out of memory");
    for (size_t i = 0; i < fresh.nclusters + fresh.naccounts && rc == 0; i++) {
        struct msg_assoc_rec *r = i < fresh.nclusters
                                      ? &fresh.clusters[i]
                                      : &fresh.accounts[i - fresh.nclusters];
        struct msg_assoc_rec c;
        if (assoc_find (a, r->kind, r->name))
            continue;
        if (proto_copy (MSG_ASSOC_REC, r, &c) < 0)
            rc = -1;
        else if (assoc_adopt (a, &c) < 0) {
            proto_clear (MSG_ASSOC_REC, &c);
            rc = -1;
        } else
            rc = assoc_touch (&t, r->kind, r->name);
    }
    assoc_clear (&fresh);
    if (rc == 0)
        policy_save (ctx, &t);
    assoc_touched_clear (&t);
    return rc == 0 ? 0 : errprintf (err, "out of memory");
}

int policy_open (struct ctld *ctx, arbor_error_t *err)
{
    struct policy *p = calloc (1, sizeof (*p));

    if (!p)
        return errprintf (err, "out of memory");
    ctx->policy = p;
    if (policy_enforce_parse (ctx->conf->acct_storage_enforce, &p->enforce,
                              err)
        < 0)
        return -1;
    if (p->enforce && ctx->acct && !ctx->acct->db)
        return errprintf (err,
                          "AccountingStorageEnforce=%s needs the accounting "
                          "database (AccountingStorageType is "
                          "accounting_storage/none)",
                          ctx->conf->acct_storage_enforce);
    if (policy_db (ctx)
        && (acct_db_assoc_each (policy_db (ctx), load_one, &p->assoc, err) < 0
            || check_all (&p->assoc, err) < 0))
        return -1;
    return policy_defaults (ctx, err);
}

void policy_close (struct ctld *ctx)
{
    if (!ctx->policy)
        return;
    assoc_clear (&ctx->policy->assoc);
    free (ctx->policy);
    ctx->policy = NULL;
}

int policy_job_account (const struct ctld *ctx, struct job *j,
                        arbor_error_t *err)
{
    const struct policy *p = ctx->policy;
    const struct msg_assoc_rec *u =
        p ? assoc_find (&p->assoc, "user", j->user) : NULL;

    if (!j->account[0] && u && u->default_account && *u->default_account) {
        char *d = strdup (u->default_account);
        if (!d) {
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
        free (j->account);
        j->account = d;
    }
    if (!p || !(p->enforce & POLICY_ASSOCIATIONS))
        return 0;
    if (!u || !j->account[0] || !assoc_user_in (u, j->account)
        || !assoc_find (&p->assoc, "account", j->account)) {
        errno = EINVAL;
        return errprintf (err, "Invalid account or account/partition "
                               "combination specified");
    }
    return 0;
}
