/* assoc_change.c - sacctmgr modify and delete. See assoc_req.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc_private.h"

static const char *const k_name[] = { "name", "names", NULL };

/* Replace *field with v (lower case when 'low'). -1 ENOMEM. */
static int set_text (char **field, const char *v, bool low)
{
    char *c = strdup (v);

    if (!c)
        return -1;
    for (char *p = c; low && *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    free (*field);
    *field = c;
    return 0;
}

static int modify_account (struct assoc *a, const struct assoc_actor *who,
                           const struct msg_assoc_req *req, const char *name,
                           FILE *said, struct assoc_touched *t,
                           arbor_error_t *err)
{
    static const char *const k_desc[] = { "description", NULL };
    static const char *const k_org[] = { "organization", NULL };
    static const char *const k_parent[] = { "parent", NULL };
    const char *desc = assoc_key (req->set, req->set_count, k_desc);
    const char *org = assoc_key (req->set, req->set_count, k_org);
    const char *parent = assoc_key (req->set, req->set_count, k_parent);
    struct msg_assoc_rec *r = assoc_find (a, "account", name);

    if (!r) {
        errno = ENOENT;
        return errprintf (err, "account '%s' does not exist", name);
    }
    if (assoc_may (a, who, r->parent, "changing an account", err) < 0
        || (parent && assoc_may (a, who, parent, "moving an account", err) < 0))
        return -1;
    if ((desc && set_text (&r->description, desc, false) < 0)
        || (org && set_text (&r->organization, org, false) < 0)
        || (parent && set_text (&r->parent, parent, true) < 0))
        return errprintf (err, "out of memory");
    if (assoc_qos_fields (a, who, r, req->set, req->set_count, err) < 0)
        return -1;
    if (assoc_check (a, r, err) < 0 || assoc_touch (t, "account", r->name) < 0)
        return -1;
    fprintf (said, "  %s\n", r->name);
    return 0;
}

/* May who change user u's default account (to one of its accounts)? A
 * coordinator of an account u is in may. */
static int may_change_user (const struct assoc *a,
                            const struct assoc_actor *who,
                            const struct msg_assoc_rec *u, arbor_error_t *err)
{
    for (uint32_t i = 0; i < u->accounts_count; i++)
        if (assoc_coordinates (a, who->name, u->accounts[i]))
            return 0;
    return assoc_may (a, who, NULL, "changing a user", err);
}

static int modify_user (struct assoc *a, const struct assoc_actor *who,
                        const struct msg_assoc_req *req, const char *name,
                        FILE *said, struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const k_def[] = { "defaultaccount", NULL };
    static const char *const k_level[] = { "adminlevel", NULL };
    const char *def = assoc_key (req->set, req->set_count, k_def);
    const char *lv = assoc_key (req->set, req->set_count, k_level);
    struct msg_assoc_rec *u = assoc_find (a, "user", name);
    enum assoc_admin level;

    if (!u) {
        errno = ENOENT;
        return errprintf (err, "user '%s' does not exist", name);
    }
    if (lv && assoc_admin_parse (lv, &level) < 0)
        return errprintf (err, "AdminLevel=%s: None, Operator or Administrator",
                          lv);
    if (lv && assoc_may (a, who, NULL, "setting an admin level", err) < 0)
        return -1;
    if (lv
        && (level == ASSOC_ADMIN_ADMINISTRATOR
            || u->admin_level == ASSOC_ADMIN_ADMINISTRATOR)
        && who->level < ASSOC_ADMIN_ADMINISTRATOR) {
        errno = EPERM;
        return errprintf (err, "Access/permission denied: only an "
                               "administrator makes or unmakes an "
                               "administrator");
    }
    if (def && may_change_user (a, who, u, err) < 0)
        return -1;
    if (lv)
        u->admin_level = level;
    if (def && set_text (&u->default_account, def, true) < 0)
        return errprintf (err, "out of memory");
    if (assoc_qos_fields (a, who, u, req->set, req->set_count, err) < 0)
        return -1;
    if (assoc_check (a, u, err) < 0 || assoc_touch (t, "user", u->name) < 0)
        return -1;
    fprintf (said, "  %s\n", u->name);
    return 0;
}

int assoc_modify_req (struct assoc *a, const struct assoc_actor *who,
                      const struct msg_assoc_req *req, FILE *said,
                      struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const k_acct[] = { "description", "organization",
                                          "parent",      "qos",
                                          "defaultqos",  NULL };
    static const char *const k_user[] = { "defaultaccount", "adminlevel", "qos",
                                          "defaultqos", NULL };
    bool user = !strcmp (req->entity, "user");
    char **names = NULL;
    uint32_t n = 0;
    int rc = 0;

    if (!user && strcmp (req->entity, "account")) {
        errno = EINVAL;
        return errprintf (err, "modify %s: accounts and users are modified",
                          req->entity);
    }
    if (assoc_keys_known (req->where, req->where_count, k_name, req, err) < 0
        || assoc_keys_known (req->set, req->set_count, user ? k_user : k_acct,
                             req, err)
               < 0
        || assoc_targets (req, k_name, &names, &n, err) < 0)
        return -1;
    if (!req->set_count) {
        errno = EINVAL;
        rc = errprintf (err, "modify %s: nothing to set", req->entity);
    }
    if (rc == 0)
        fprintf (said, " Modified %ss...\n", req->entity);
    for (uint32_t i = 0; i < n && rc == 0; i++)
        rc = user ? modify_user (a, who, req, names[i], said, t, err)
                  : modify_account (a, who, req, names[i], said, t, err);
    assoc_names_free (names, n);
    return rc;
}

/* ---- delete --------------------------------------------------------------
 */

/* Take user 'name' out of 'accts' (all: none given); gone from its last
 * one, the user goes. */
static int delete_user (struct assoc *a, const struct assoc_actor *who,
                        const char *name, char **accts, uint32_t na, FILE *said,
                        struct assoc_touched *t, arbor_error_t *err)
{
    struct msg_assoc_rec *u = assoc_find (a, "user", name);

    if (!u) {
        errno = ENOENT;
        return errprintf (err, "user '%s' does not exist", name);
    }
    if (na == 0)
        return assoc_may (a, who, NULL, "deleting a user", err) < 0
                       || assoc_remove (a, "user", name, err) < 0
                       || assoc_touch (t, "user", name) < 0
                   ? -1
                   : (fprintf (said, "  %s\n", name), 0);
    for (uint32_t i = 0; i < na; i++) {
        if (!assoc_user_in (u, accts[i])) {
            errno = ENOENT;
            return errprintf (err, "user '%s' is not in account '%s'", name,
                              accts[i]);
        }
        if (assoc_may (a, who, accts[i], "removing a user", err) < 0)
            return -1;
        assoc_list_drop (u->accounts, &u->accounts_count, accts[i]);
        fprintf (said, "  U = %-9.9s A = %s\n", name, accts[i]);
    }
    if (assoc_touch (t, "user", name) < 0)
        return -1;
    if (!u->accounts_count)
        return assoc_remove (a, "user", name, err);
    if (!assoc_user_in (u, u->default_account)
        && set_text (&u->default_account, u->accounts[0], true) < 0)
        return errprintf (err, "out of memory");
    return 0;
}

static int delete_one (struct assoc *a, const struct assoc_actor *who,
                       const struct msg_assoc_req *req, const char *name,
                       char **accts, uint32_t na, FILE *said,
                       struct assoc_touched *t, arbor_error_t *err)
{
    const struct msg_assoc_rec *r = assoc_find (a, req->entity, name);

    if (!strcmp (req->entity, "user"))
        return delete_user (a, who, name, accts, na, said, t, err);
    if (!strcmp (req->entity, "cluster") && a->nclusters == 1 && r) {
        errno = EBUSY;
        return errprintf (err, "cannot delete cluster '%s': it is this one",
                          name);
    }
    if (assoc_may (a, who, r ? r->parent : NULL, "deleting", err) < 0
        || assoc_remove (a, req->entity, name, err) < 0
        || assoc_touch (t, req->entity, name) < 0)
        return -1;
    fprintf (said, "  %s\n", name);
    return 0;
}

int assoc_delete_req (struct assoc *a, const struct assoc_actor *who,
                      const struct msg_assoc_req *req, FILE *said,
                      struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const k_where[] = { "name",     "names",   "account",
                                           "accounts", "cluster", NULL };
    static const char *const k_acct[] = { "account", "accounts", NULL };
    bool user = !strcmp (req->entity, "user");
    const char *av =
        user ? assoc_key (req->where, req->where_count, k_acct) : NULL;
    char **names = NULL, **accts = NULL;
    uint32_t n = 0, na = 0;
    int rc = 0;

    if (!strcmp (req->entity, "coordinator"))
        return assoc_coord_req (a, who, req, false, said, t, err);
    if (strcmp (req->entity, "cluster") && strcmp (req->entity, "account")
        && !user) {
        errno = EINVAL;
        return errprintf (err,
                          "delete %s: clusters, accounts, users and "
                          "coordinators are deleted",
                          req->entity);
    }
    if (assoc_keys_known (req->where, req->where_count, k_where, req, err) < 0
        || assoc_targets (req, user ? k_name : k_where, &names, &n, err) < 0)
        return -1;
    if (av && assoc_split (av, &accts, &na) < 0)
        rc = errprintf (err, "out of memory");
    if (rc == 0)
        fprintf (said, " Deleting %ss...\n", req->entity);
    for (uint32_t i = 0; i < n && rc == 0; i++)
        rc = delete_one (a, who, req, names[i], accts, na, said, t, err);
    assoc_names_free (names, n);
    assoc_names_free (accts, na);
    return rc;
}
