/* assoc.c - the site's policy's entities and their rules. See assoc.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc.h"

/* ---- string lists --------------------------------------------------------
 */

bool assoc_list_has (char *const *v, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcasecmp (v[i], name))
            return true;
    return false;
}

int assoc_list_add (char ***v, uint32_t *n, const char *name)
{
    char **nv;

    if (assoc_list_has (*v, *n, name))
        return 0;
    if (!(nv = realloc (*v, (*n + 2) * sizeof (*nv)))
        || !(nv[*n] = strdup (name))) {
        if (nv)
            *v = nv;
        errno = ENOMEM;
        return -1;
    }
    *v = nv;
    nv[++*n] = NULL;
    return 0;
}

int assoc_list_push (char ***v, uint32_t *n, const char *s)
{
    char **nv = realloc (*v, (*n + 2) * sizeof (*nv));

    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup (s)))
        return -1;
    nv[++*n] = NULL;
    return 0;
}

void assoc_list_drop (char **v, uint32_t *n, const char *name)
{
    for (uint32_t i = 0; i < *n; i++)
        if (!strcasecmp (v[i], name)) {
            free (v[i]);
            memmove (&v[i], &v[i + 1], (*n - i - 1) * sizeof (*v));
            (*n)--;
            return;
        }
}

/* ---- the sets --------------------------------------------------------------
 */

static struct msg_assoc_rec **set_of (const struct assoc *a, const char *kind,
                                      size_t **n)
{
    struct assoc *m = (struct assoc *)a;

    if (!strcmp (kind, "cluster"))
        return *n = &m->nclusters, &m->clusters;
    if (!strcmp (kind, "account"))
        return *n = &m->naccounts, &m->accounts;
    if (!strcmp (kind, "user"))
        return *n = &m->nusers, &m->users;
    if (!strcmp (kind, "qos"))
        return *n = &m->nqos, &m->qos;
    return NULL;
}

struct msg_assoc_rec *assoc_find (const struct assoc *a, const char *kind,
                                  const char *name)
{
    size_t *n;
    struct msg_assoc_rec **v = set_of (a, kind, &n);

    for (size_t i = 0; v && name && i < *n; i++)
        if (!strcasecmp ((*v)[i].name, name))
            return &(*v)[i];
    return NULL;
}

bool assoc_name_ok (const char *name)
{
    size_t n = strlen (name);

    if (n == 0 || n > ASSOC_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum ((unsigned char)name[i]) && !strchr ("-_.", name[i]))
            return false;
    return true;
}

static void lower (char *s)
{
    for (; s && *s; s++)
        *s = (char)tolower ((unsigned char)*s);
}

static void lower_list (char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        lower (v[i]);
}

/* ---- the tree --------------------------------------------------------------
 */

bool assoc_under (const struct assoc *a, const char *acct, const char *anc)
{
    /* a tree of naccounts: more steps than that is a loop */
    for (size_t steps = 0; acct && *acct && steps <= a->naccounts; steps++) {
        const struct msg_assoc_rec *r = assoc_find (a, "account", acct);
        if (!strcasecmp (acct, anc))
            return true;
        acct = r ? r->parent : NULL;
    }
    return false;
}

bool assoc_user_in (const struct msg_assoc_rec *u, const char *acct)
{
    return u && assoc_list_has (u->accounts, u->accounts_count, acct);
}

bool assoc_coordinates (const struct assoc *a, const char *user,
                        const char *acct)
{
    for (size_t steps = 0; acct && *acct && steps <= a->naccounts; steps++) {
        const struct msg_assoc_rec *r = assoc_find (a, "account", acct);
        if (!r)
            return false;
        if (assoc_list_has (r->coordinators, r->coordinators_count, user))
            return true;
        acct = r->parent;
    }
    return false;
}

/* ---- rules -----------------------------------------------------------------
 */

static int check_account (const struct assoc *a, const struct msg_assoc_rec *r,
                          arbor_error_t *err)
{
    if (!strcmp (r->name, ASSOC_ROOT))
        return 0;
    if (!assoc_find (a, "account", r->parent)) {
        errno = ENOENT;
        return errprintf (err, "parent account '%s' of '%s' does not exist",
                          r->parent, r->name);
    }
    if (assoc_under (a, r->parent, r->name)) {
        errno = EINVAL;
        return errprintf (err, "account '%s' cannot be under itself ('%s')",
                          r->name, r->parent);
    }
    for (uint32_t i = 0; i < r->coordinators_count; i++)
        if (!assoc_find (a, "user", r->coordinators[i])) {
            errno = ENOENT;
            return errprintf (err, "coordinator '%s' is not a user",
                              r->coordinators[i]);
        }
    return 0;
}

static int check_user (const struct assoc *a, const struct msg_assoc_rec *r,
                       arbor_error_t *err)
{
    for (uint32_t i = 0; i < r->accounts_count; i++)
        if (!assoc_find (a, "account", r->accounts[i])) {
            errno = ENOENT;
            return errprintf (err, "account '%s' does not exist",
                              r->accounts[i]);
        }
    if (r->default_account && *r->default_account
        && !assoc_user_in (r, r->default_account)) {
        errno = EINVAL;
        return errprintf (err,
                          "default account '%s' of user '%s' is not one of "
                          "its accounts",
                          r->default_account, r->name);
    }
    if (r->admin_level > ASSOC_ADMIN_ADMINISTRATOR) {
        errno = EINVAL;
        return errprintf (err, "bad admin level %u", r->admin_level);
    }
    return 0;
}

bool assoc_decimal_ok (const char *s)
{
    size_t digits = 0, dots = 0;

    for (; s && *s; s++) {
        if (*s == '.')
            dots++;
        else if (isdigit ((unsigned char)*s))
            digits++;
        else
            return false;
    }
    return digits > 0 && digits <= 12 && dots <= 1;
}

bool assoc_preempt_mode_ok (const char *s)
{
    static const char *const modes[] = { "cluster", "cancel", "requeue",
                                         "suspend", "off",    NULL };

    for (const char *const *m = modes; s && *m; m++)
        if (!strcasecmp (s, *m))
            return true;
    return false;
}

/* A QOS's own rules: what it may preempt exists (and is not itself). */
static int check_qos (const struct assoc *a, const struct msg_assoc_rec *r,
                      arbor_error_t *err)
{
    errno = EINVAL;
    if (r->usage_factor && *r->usage_factor
        && !assoc_decimal_ok (r->usage_factor))
        return errprintf (err, "UsageFactor=%s: a decimal number, 0 or more",
                          r->usage_factor);
    if (r->preempt_mode && *r->preempt_mode
        && !assoc_preempt_mode_ok (r->preempt_mode))
        return errprintf (err,
                          "PreemptMode=%s: cluster, cancel, requeue, "
                          "suspend or off",
                          r->preempt_mode);
    for (uint32_t i = 0; i < r->preempt_count; i++) {
        if (!strcasecmp (r->preempt[i], r->name))
            return errprintf (err, "QOS '%s' cannot preempt itself", r->name);
        if (!assoc_find (a, "qos", r->preempt[i])) {
            errno = ENOENT;
            return errprintf (err, "QOS '%s' does not exist", r->preempt[i]);
        }
    }
    return 0;
}

/* Why QOS 'name' cannot go: "" when it can. */
static const char *qos_busy (const struct assoc *a, const char *name)
{
    const struct msg_assoc_rec *sets[] = { a->accounts, a->users, a->qos };
    size_t ns[] = { a->naccounts, a->nusers, a->nqos };

    if (!strcasecmp (name, ASSOC_QOS_NORMAL))
        return "it is the default of every association";
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < ns[k]; i++) {
            const struct msg_assoc_rec *r = &sets[k][i];
            if (assoc_list_has (r->qos, r->qos_count, name)
                || (r->default_qos && !strcasecmp (r->default_qos, name)))
                return "accounts or users use it: change them first";
            if (assoc_list_has (r->preempt, r->preempt_count, name))
                return "another QOS preempts it: change that first";
        }
    return "";
}

/* r's QOS list and default name QOS there are, the default among the
 * list (when it has one). */
static int check_qos_refs (const struct assoc *a, const struct msg_assoc_rec *r,
                           arbor_error_t *err)
{
    for (uint32_t i = 0; i < r->qos_count; i++)
        if (!assoc_find (a, "qos", r->qos[i])) {
            errno = ENOENT;
            return errprintf (err, "QOS '%s' does not exist", r->qos[i]);
        }
    if (r->default_qos && *r->default_qos
        && !assoc_find (a, "qos", r->default_qos)) {
        errno = ENOENT;
        return errprintf (err, "QOS '%s' does not exist", r->default_qos);
    }
    if (r->default_qos && *r->default_qos && r->qos_count
        && !assoc_list_has (r->qos, r->qos_count, r->default_qos)) {
        errno = EINVAL;
        return errprintf (err,
                          "default QOS '%s' of %s '%s' is not one of "
                          "its QOS",
                          r->default_qos, r->kind, r->name);
    }
    return 0;
}

int assoc_check (const struct assoc *a, const struct msg_assoc_rec *r,
                 arbor_error_t *err)
{
    if (!assoc_name_ok (r->name)) {
        errno = EINVAL;
        return errprintf (err,
                          "invalid %s name '%s': letters, digits, '-', '_' "
                          "and '.', at most %d",
                          r->kind, r->name, ASSOC_NAME_MAX);
    }
    if (!strcmp (r->kind, "qos"))
        return check_qos (a, r, err);
    if (check_qos_refs (a, r, err) < 0)
        return -1;
    if (!strcmp (r->kind, "account"))
        return check_account (a, r, err);
    if (!strcmp (r->kind, "user"))
        return check_user (a, r, err);
    return 0;
}

int assoc_add (struct assoc *a, const struct msg_assoc_rec *r,
               arbor_error_t *err)
{
    size_t *n;
    struct msg_assoc_rec **v = set_of (a, r->kind, &n), *nv, c;

    if (!v) {
        errno = EINVAL;
        return errprintf (err, "unknown kind '%s'", r->kind);
    }
    if (assoc_find (a, r->kind, r->name)) {
        errno = EEXIST;
        return errprintf (err, "%s '%s' already exists", r->kind, r->name);
    }
    if (proto_copy (MSG_ASSOC_REC, r, &c) < 0)
        return errprintf (err, "out of memory");
    lower (c.name);
    lower (c.parent);
    lower (c.default_account);
    lower_list (c.accounts, c.accounts_count);
    lower_list (c.coordinators, c.coordinators_count);
    lower_list (c.qos, c.qos_count);
    lower_list (c.preempt, c.preempt_count);
    lower (c.default_qos);
    if (assoc_check (a, &c, err) < 0) {
        int e = errno;
        proto_clear (MSG_ASSOC_REC, &c);
        errno = e;
        return -1;
    }
    if (!(nv = realloc (*v, (*n + 1) * sizeof (*nv)))) {
        proto_clear (MSG_ASSOC_REC, &c);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    nv[(*n)++] = c;
    *v = nv;
    return 0;
}

int assoc_adopt (struct assoc *a, struct msg_assoc_rec *r)
{
    size_t *n;
    struct msg_assoc_rec **v = set_of (a, r->kind ? r->kind : "", &n);
    struct msg_assoc_rec *old = assoc_find (a, r->kind ? r->kind : "", r->name);
    struct msg_assoc_rec *nv;

    if (!v || !r->name) {
        errno = EINVAL;
        return -1;
    }
    if (old) {
        proto_clear (MSG_ASSOC_REC, old);
        *old = *r;
        return 0;
    }
    if (!(nv = realloc (*v, (*n + 1) * sizeof (*nv)))) {
        errno = ENOMEM;
        return -1;
    }
    nv[(*n)++] = *r;
    *v = nv;
    return 0;
}

/* Why account 'name' cannot go: "" when it can. */
static const char *account_busy (const struct assoc *a, const char *name)
{
    if (!strcmp (name, ASSOC_ROOT))
        return "it is the root of every account";
    for (size_t i = 0; i < a->naccounts; i++)
        if (a->accounts[i].parent && !strcasecmp (a->accounts[i].parent, name))
            return "it has sub-accounts: delete them first";
    for (size_t i = 0; i < a->nusers; i++)
        if (assoc_user_in (&a->users[i], name))
            return "it has users: remove them from it first";
    return "";
}

int assoc_remove (struct assoc *a, const char *kind, const char *name,
                  arbor_error_t *err)
{
    size_t *n;
    struct msg_assoc_rec **v = set_of (a, kind, &n);
    struct msg_assoc_rec *r = assoc_find (a, kind, name);
    const char *why = !r                          ? ""
                      : !strcmp (kind, "account") ? account_busy (a, name)
                      : !strcmp (kind, "qos")     ? qos_busy (a, name)
                                                  : "";

    if (!r) {
        errno = ENOENT;
        return errprintf (err, "%s '%s' does not exist", kind, name);
    }
    if (*why) {
        errno = EBUSY;
        return errprintf (err, "cannot delete %s '%s': %s", kind, name, why);
    }
    if (!strcmp (kind, "user")) /* it coordinates nothing any more */
        for (size_t i = 0; i < a->naccounts; i++)
            assoc_list_drop (a->accounts[i].coordinators,
                             &a->accounts[i].coordinators_count, name);
    proto_clear (MSG_ASSOC_REC, r);
    memmove (r, r + 1, (size_t)(*v + *n - r - 1) * sizeof (*r));
    (*n)--;
    return 0;
}

/* ---- whole sets ------------------------------------------------------------
 */

int assoc_init (struct assoc *a, const char *cluster)
{
    struct msg_assoc_rec c = { .kind = "cluster", .name = (char *)cluster };
    struct msg_assoc_rec r = { .kind = "account",
                               .name = ASSOC_ROOT,
                               .parent = "",
                               .description = "default root account",
                               .organization = ASSOC_ROOT };
    struct msg_assoc_rec q = { .kind = "qos",
                               .name = ASSOC_QOS_NORMAL,
                               .description = "Normal QOS default",
                               .usage_factor = "1",
                               .preempt_mode = "cluster" };
    arbor_error_t err;

    memset (a, 0, sizeof (*a));
    if (assoc_add (a, &q, &err) < 0 || assoc_add (a, &c, &err) < 0
        || assoc_add (a, &r, &err) < 0) {
        assoc_clear (a);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static void set_clear (struct msg_assoc_rec *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        proto_clear (MSG_ASSOC_REC, &v[i]);
    free (v);
}

void assoc_clear (struct assoc *a)
{
    set_clear (a->clusters, a->nclusters);
    set_clear (a->accounts, a->naccounts);
    set_clear (a->users, a->nusers);
    set_clear (a->qos, a->nqos);
    memset (a, 0, sizeof (*a));
}

static int set_copy (struct msg_assoc_rec **dst, const struct msg_assoc_rec *v,
                     size_t n)
{
    *dst = calloc (n + 1, sizeof (**dst));
    for (size_t i = 0; *dst && i < n; i++)
        if (proto_copy (MSG_ASSOC_REC, &v[i], &(*dst)[i]) < 0) {
            set_clear (*dst, i);
            *dst = NULL;
        }
    return *dst ? 0 : -1;
}

int assoc_copy (struct assoc *dst, const struct assoc *src)
{
    memset (dst, 0, sizeof (*dst));
    if (set_copy (&dst->clusters, src->clusters, src->nclusters) < 0
        || (dst->nclusters = src->nclusters,
            set_copy (&dst->accounts, src->accounts, src->naccounts) < 0)
        || (dst->naccounts = src->naccounts,
            set_copy (&dst->users, src->users, src->nusers) < 0)
        || (dst->nusers = src->nusers,
            set_copy (&dst->qos, src->qos, src->nqos) < 0)) {
        assoc_clear (dst);
        errno = ENOMEM;
        return -1;
    }
    dst->nqos = src->nqos;
    return 0;
}
