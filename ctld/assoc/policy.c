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
    for (char *w = strtok_r (copy, ",", &save); w;
         w = strtok_r (NULL, ",", &save)) {
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

/* The cluster, the root account and QOS normal, when missing (a new
 * database). */
static int policy_defaults (struct ctld *ctx, arbor_error_t *err)
{
    struct assoc *a = &ctx->policy->assoc;
    const char *cluster =
        ctx->conf->cluster_name ? ctx->conf->cluster_name : "arbor";
    struct assoc_touched t = { 0 };
    struct assoc fresh;
    int rc = 0;

    if (assoc_find (a, "cluster", cluster)
        && assoc_find (a, "account", ASSOC_ROOT)
        && assoc_find (a, "qos", ASSOC_QOS_NORMAL))
        return 0;
    if (assoc_init (&fresh, cluster) < 0)
        return errprintf (err, "out of memory");
    for (size_t i = 0;
         i < fresh.nclusters + fresh.naccounts + fresh.nqos && rc == 0; i++) {
        struct msg_assoc_rec *r =
            i < fresh.nclusters ? &fresh.clusters[i]
            : i < fresh.nclusters + fresh.naccounts
                ? &fresh.accounts[i - fresh.nclusters]
                : &fresh.qos[i - fresh.nclusters - fresh.naccounts];
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
    if (policy_enforce_parse (ctx->conf->acct_storage_enforce, &p->enforce, err)
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

/* The first default QOS of u, then of acct and its parents; "normal". */
static const char *default_qos (const struct assoc *a,
                                const struct msg_assoc_rec *u, const char *acct)
{
    if (u && u->default_qos && *u->default_qos)
        return u->default_qos;
    for (size_t steps = 0; acct && *acct && steps <= a->naccounts; steps++) {
        const struct msg_assoc_rec *r = assoc_find (a, "account", acct);
        if (!r)
            break;
        if (r->default_qos && *r->default_qos)
            return r->default_qos;
        acct = r->parent;
    }
    return ASSOC_QOS_NORMAL;
}

/* May u, charged to acct, use QOS q? Its own list, else the first list
 * of acct and its parents; none anywhere: every QOS. */
static bool qos_allowed (const struct assoc *a, const struct msg_assoc_rec *u,
                         const char *acct, const char *q)
{
    if (u && u->qos_count)
        return assoc_list_has (u->qos, u->qos_count, q);
    for (size_t steps = 0; acct && *acct && steps <= a->naccounts; steps++) {
        const struct msg_assoc_rec *r = assoc_find (a, "account", acct);
        if (!r)
            break;
        if (r->qos_count)
            return assoc_list_has (r->qos, r->qos_count, q);
        acct = r->parent;
    }
    return true;
}

/* *field = v, lower case. -1 ENOMEM. */
static int set_lower (char **field, const char *v)
{
    char *c = strdup (v);

    if (!c)
        return -1;
    for (char *p = c; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    free (*field);
    *field = c;
    return 0;
}

static int fail (arbor_error_t *err, const char *text)
{
    errno = EINVAL;
    return errprintf (err, "%s", text);
}

int policy_request (const struct ctld *ctx, const char *user,
                    struct msg_job_alloc *req, arbor_error_t *err)
{
    const struct policy *p = ctx->policy;
    const struct assoc *a = p ? &p->assoc : NULL;
    const struct msg_assoc_rec *u = a ? assoc_find (a, "user", user) : NULL;
    bool assoc = p && (p->enforce & POLICY_ASSOCIATIONS);
    const char *acct = req->account && *req->account ? req->account : NULL;

    if (!a)
        return 0;
    if (!acct && u && u->default_account && *u->default_account)
        acct = u->default_account;
    if (acct && set_lower (&req->account, acct) < 0)
        return errprintf (err, "out of memory");
    if (assoc
        && (!u || !req->account || !assoc_user_in (u, req->account)
            || !assoc_find (a, "account", req->account)))
        return fail (err, "Invalid account or account/partition combination "
                          "specified");
    if (!req->qos || !*req->qos) {
        if (set_lower (&req->qos, default_qos (a, u, req->account)) < 0)
            return errprintf (err, "out of memory");
    } else if (set_lower (&req->qos, req->qos) < 0)
        return errprintf (err, "out of memory");
    if (!assoc_find (a, "qos", req->qos)
        || ((p->enforce & POLICY_QOS)
            && !qos_allowed (a, u, req->account, req->qos)))
        return fail (err, "Invalid qos specification");
    return 0;
}

uint32_t policy_qos_priority (const struct ctld *ctx, const char *qos)
{
    const struct msg_assoc_rec *q =
        ctx->policy ? assoc_find (&ctx->policy->assoc, "qos", qos) : NULL;

    return q ? q->priority : 0;
}

uint32_t policy_qos_top (const struct ctld *ctx)
{
    uint32_t top = 0;

    for (size_t i = 0; ctx->policy && i < ctx->policy->assoc.nqos; i++)
        if (ctx->policy->assoc.qos[i].priority > top)
            top = ctx->policy->assoc.qos[i].priority;
    return top;
}
