/* assoc_add.c - sacctmgr add: clusters, accounts, users (or a user's
 * new accounts), coordinators. See assoc_req.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc_private.h"

static const char *const k_account[] = { "account", "accounts", NULL };
static const char *const k_names[] = { "name", "names", "user", "users", NULL };

static int add_clusters (struct assoc *a, const struct assoc_actor *who,
                         const struct msg_assoc_req *req, char **names,
                         uint32_t n, FILE *said, struct assoc_touched *t,
                         arbor_error_t *err)
{
    static const char *const keys[] = { NULL };

    if (assoc_keys_known (req->set, req->set_count, keys, req, err) < 0
        || assoc_may (a, who, NULL, "adding a cluster", err) < 0)
        return -1;
    fprintf (said, " Adding Cluster(s)\n");
    for (uint32_t i = 0; i < n; i++) {
        struct msg_assoc_rec r = { .kind = "cluster", .name = names[i] };
        if (assoc_add (a, &r, err) < 0
            || assoc_touch (t, "cluster", names[i]) < 0)
            return -1;
        fprintf (said, "  Name           = %s\n", names[i]);
    }
    return 0;
}

static int add_accounts (struct assoc *a, const struct assoc_actor *who,
                         const struct msg_assoc_req *req, char **names,
                         uint32_t n, FILE *said, struct assoc_touched *t,
                         arbor_error_t *err)
{
    static const char *const keys[] = { "description", "organization",
                                        "parent",      "cluster",
                                        "clusters",    "qos",
                                        "defaultqos",  NULL };
    static const char *const k_desc[] = { "description", NULL };
    static const char *const k_org[] = { "organization", NULL };
    static const char *const k_parent[] = { "parent", NULL };
    const char *parent = assoc_key (req->set, req->set_count, k_parent);
    const char *desc = assoc_key (req->set, req->set_count, k_desc);
    const char *org = assoc_key (req->set, req->set_count, k_org);

    parent = parent && *parent ? parent : ASSOC_ROOT;
    if (assoc_keys_known (req->set, req->set_count, keys, req, err) < 0
        || assoc_may (a, who, parent, "adding an account", err) < 0)
        return -1;
    fprintf (said, " Adding Account(s)\n");
    for (uint32_t i = 0; i < n; i++) {
        struct msg_assoc_rec r = {
            .kind = "account",
            .name = names[i],
            .parent = (char *)parent,
            .description = (char *)(desc ? desc : names[i]),
            .organization =
                (char *)(org                               ? org
                         : strcasecmp (parent, ASSOC_ROOT) ? parent
                                                           : names[i]),
        };
        struct msg_assoc_rec *made;
        if (assoc_add (a, &r, err) < 0
            || !(made = assoc_find (a, "account", names[i]))
            || assoc_qos_fields (a, who, made, req->set, req->set_count, err)
                   < 0
            || assoc_check (a, made, err) < 0
            || assoc_touch (t, "account", names[i]) < 0)
            return -1;
        fprintf (said, "  %s\n", names[i]);
    }
    fprintf (said, " Settings\n  Description     = %s\n",
             desc ? desc : "(name)");
    fprintf (said, "  Organization    = %s\n", org ? org : "(parent)");
    fprintf (said, " Associations\n");
    for (uint32_t i = 0; i < n; i++)
        fprintf (said, "  A = %-10.10s C = %-10.10s\n", names[i],
                 a->clusters[0].name);
    return 0;
}

/* User 'name' joins 'accts' (made first when new). */
static int user_join (struct assoc *a, const char *name, char **accts,
                      uint32_t na, const char *def, enum assoc_admin level,
                      bool set_level, arbor_error_t *err)
{
    struct msg_assoc_rec *u = assoc_find (a, "user", name);

    if (!u) {
        struct msg_assoc_rec r = { .kind = "user",
                                   .name = (char *)name,
                                   .default_account = "",
                                   .admin_level = level };
        if (assoc_add (a, &r, err) < 0)
            return -1;
        u = assoc_find (a, "user", name);
    } else if (set_level)
        u->admin_level = level;
    for (uint32_t i = 0; i < na; i++)
        if (!assoc_find (a, "account", accts[i])) {
            errno = ENOENT;
            return errprintf (err, "account '%s' does not exist", accts[i]);
        } else if (assoc_list_add (&u->accounts, &u->accounts_count, accts[i])
                   < 0)
            return errprintf (err, "out of memory");
    if (def || !u->default_account || !*u->default_account) {
        free (u->default_account);
        u->default_account = strdup (def ? def : na ? accts[0] : "");
        if (!u->default_account)
            return errprintf (err, "out of memory");
        for (char *p = u->default_account; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    }
    return assoc_check (a, u, err);
}

/* May who put users in each of accts, at 'level'? */
static int may_add_users (const struct assoc *a, const struct assoc_actor *who,
                          char **accts, uint32_t na, bool set_level,
                          enum assoc_admin level, arbor_error_t *err)
{
    if (set_level && level > ASSOC_ADMIN_NONE
        && assoc_may (a, who, NULL, "setting an admin level", err) < 0)
        return -1;
    if (set_level && level == ASSOC_ADMIN_ADMINISTRATOR
        && who->level < ASSOC_ADMIN_ADMINISTRATOR) {
        errno = EPERM;
        return errprintf (err, "Access/permission denied: only an "
                               "administrator makes an administrator");
    }
    for (uint32_t i = 0; i < na; i++)
        if (assoc_may (a, who, accts[i], "adding users", err) < 0)
            return -1;
    return na || who->level >= ASSOC_ADMIN_OPERATOR
               ? 0
               : assoc_may (a, who, NULL, "adding a user", err);
}

static int add_users (struct assoc *a, const struct assoc_actor *who,
                      const struct msg_assoc_req *req, char **names, uint32_t n,
                      FILE *said, struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const keys[] = {
        "account",  "accounts", "defaultaccount", "adminlevel", "cluster",
        "clusters", "qos",      "defaultqos",     NULL
    };
    static const char *const k_def[] = { "defaultaccount", NULL };
    static const char *const k_level[] = { "adminlevel", NULL };
    const char *def = assoc_key (req->set, req->set_count, k_def);
    const char *lv = assoc_key (req->set, req->set_count, k_level);
    enum assoc_admin level = ASSOC_ADMIN_NONE;
    char **accts = NULL;
    uint32_t na = 0;
    int rc = -1;

    if (assoc_keys_known (req->set, req->set_count, keys, req, err) < 0)
        return -1;
    if (lv && assoc_admin_parse (lv, &level) < 0)
        return errprintf (err, "AdminLevel=%s: None, Operator or Administrator",
                          lv);
    if (assoc_split (assoc_key (req->set, req->set_count, k_account), &accts,
                     &na)
        < 0)
        return errprintf (err, "out of memory");
    if (may_add_users (a, who, accts, na, lv != NULL, level, err) < 0)
        goto out;
    for (uint32_t i = 0; i < n && !na; i++)
        if (!assoc_find (a, "user", names[i])) { /* as sacctmgr says it */
            errno = EINVAL;
            errprintf (err,
                       "Need name of account to add user %s to "
                       "(Account=)",
                       names[i]);
            goto out;
        }
    fprintf (said, " Adding User(s)\n");
    for (uint32_t i = 0; i < n; i++) {
        if (user_join (a, names[i], accts, na, def, level, lv != NULL, err) < 0
            || assoc_qos_fields (a, who, assoc_find (a, "user", names[i]),
                                 req->set, req->set_count, err)
                   < 0
            || assoc_check (a, assoc_find (a, "user", names[i]), err) < 0
            || assoc_touch (t, "user", names[i]) < 0)
            goto out;
        fprintf (said, "  %s\n", names[i]);
    }
    if (def)
        fprintf (said, " Settings =\n  Default Account = %s\n", def);
    fprintf (said, " Associations =\n");
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < na; k++)
            fprintf (said, "  U = %-9.9s A = %-10.10s C = %-10.10s\n", names[i],
                     accts[k], a->clusters[0].name);
    rc = 0;
out:
    assoc_names_free (accts, na);
    return rc;
}

/* add coordinator Account=A Names=u,v (or the names as words). */
int assoc_coord_req (struct assoc *a, const struct assoc_actor *who,
                     const struct msg_assoc_req *req, bool add, FILE *said,
                     struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const keys[] = { "account", "accounts", "name", "names",
                                        "user",    "users",    NULL };
    char *const *kv = add ? req->set : req->where;
    uint32_t nkv = add ? req->set_count : req->where_count;
    char **accts = NULL, **users = NULL;
    uint32_t na = 0, nu = 0;
    int rc = -1;

    if (assoc_keys_known (kv, nkv, keys, req, err) < 0)
        return -1;
    for (uint32_t i = 0; i < req->names_count; i++)
        if (assoc_split (req->names[i], &users, &nu) < 0)
            goto nomem;
    if (assoc_split (assoc_key (kv, nkv, k_names), &users, &nu) < 0
        || assoc_split (assoc_key (kv, nkv, k_account), &accts, &na) < 0)
        goto nomem;
    if (!na || !nu) {
        errno = EINVAL;
        errprintf (err, "%s coordinator needs Account= and Names=", req->verb);
        goto out;
    }
    if (assoc_may (a, who, NULL, "choosing coordinators", err) < 0)
        goto out;
    fprintf (said, " %s Coordinator(s)\n", add ? "Adding" : "Removing");
    for (uint32_t k = 0; k < na; k++) {
        struct msg_assoc_rec *r = assoc_find (a, "account", accts[k]);
        if (!r) {
            errno = ENOENT;
            errprintf (err, "account '%s' does not exist", accts[k]);
            goto out;
        }
        for (uint32_t i = 0; i < nu; i++) {
            if (!assoc_find (a, "user", users[i])) {
                errno = ENOENT;
                errprintf (err, "user '%s' does not exist", users[i]);
                goto out;
            }
            if (add
                && assoc_list_add (&r->coordinators, &r->coordinators_count,
                                   users[i])
                       < 0)
                goto nomem;
            if (!add)
                assoc_list_drop (r->coordinators, &r->coordinators_count,
                                 users[i]);
            fprintf (said, "  User = %-10s Account = %s\n", users[i], r->name);
        }
        if (assoc_touch (t, "account", r->name) < 0)
            goto nomem;
    }
    rc = 0;
    goto out;
nomem:
    errno = ENOMEM;
    errprintf (err, "out of memory");
out:
    assoc_names_free (accts, na);
    assoc_names_free (users, nu);
    return rc;
}

int assoc_add_req (struct assoc *a, const struct assoc_actor *who,
                   const struct msg_assoc_req *req, FILE *said,
                   struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const none[] = { NULL };
    char **names = NULL;
    uint32_t n = 0;
    int rc;

    if (!strcmp (req->entity, "coordinator"))
        return assoc_coord_req (a, who, req, true, said, t, err);
    if (assoc_targets (req, none, &names, &n, err) < 0)
        return -1;
    if (!strcmp (req->entity, "cluster"))
        rc = add_clusters (a, who, req, names, n, said, t, err);
    else if (!strcmp (req->entity, "account"))
        rc = add_accounts (a, who, req, names, n, said, t, err);
    else if (!strcmp (req->entity, "user"))
        rc = add_users (a, who, req, names, n, said, t, err);
    else {
        errno = EINVAL;
        rc = errprintf (err,
                        "add %s: clusters, accounts, users and "
                        "coordinators are added",
                        req->entity);
    }
    assoc_names_free (names, n);
    return rc;
}
