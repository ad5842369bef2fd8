/* assoc_show.c - sacctmgr show. See assoc_show.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc_show.h"
#include "assoc/assoc_private.h"
#include "assoc/assoc_tree.h"
#include "timestr.h"

#define SHOW_LISTS 8 /* where conditions remembered, split once */

struct show {
    const struct assoc *a;
    const struct msg_assoc_req *req;
    struct msg_assoc_reply *out;
    bool nomem;
    char **names; /* the request's names, split once */
    uint32_t nnames;
    struct {
        const char *const *keys; /* a condition's keys, and its names */
        char **v;
        uint32_t n;
    } lists[SHOW_LISTS];
    size_t nlists;
};

static void cell (struct show *s, const char *v)
{
    if (assoc_list_push (&s->out->cells, &s->out->cells_count, v ? v : "") < 0)
        s->nomem = true;
}

static void columns (struct show *s, const char *const *names)
{
    for (; *names; names++)
        if (assoc_list_push (&s->out->columns, &s->out->columns_count, *names)
            < 0)
            s->nomem = true;
}

/* Does 'v' pass the condition "key=a,b" given for 'keys' (none given:
 * yes)? */
static bool pass (struct show *s, const char *const *keys, const char *v)
{
    const char *w = assoc_key (s->req->where, s->req->where_count, keys);
    size_t i = 0;

    if (!w)
        return true;
    while (i < s->nlists && s->lists[i].keys != keys)
        i++;
    if (i == s->nlists) { /* split once a show, not once a row */
        if (i == SHOW_LISTS) {
            s->nomem = true; /* more kinds of condition than any entity has */
            return false;
        }
        s->lists[i].keys = keys;
        s->nlists++;
        if (assoc_split (w, &s->lists[i].v, &s->lists[i].n) < 0)
            s->nomem = true;
    }
    return assoc_list_has (s->lists[i].v, s->lists[i].n, v ? v : "");
}

/* Is 'name' among the request's names (none: every name)? */
static bool named (const struct show *s, const char *name)
{
    return s->req->names_count == 0
           || assoc_list_has (s->names, s->nnames, name);
}

static char *joined (char *const *v, uint32_t n)
{
    size_t len = 1;
    char *out;

    for (uint32_t i = 0; i < n; i++)
        len += strlen (v[i]) + 1;
    if (!(out = calloc (1, len)))
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            strcat (out, ",");
        strcat (out, v[i]);
    }
    return out;
}

/* An account's or user's QOS and default QOS: its own, or (none set)
 * what it takes from its parents: "" for all of them. */
static void qos_cells (struct show *s, const struct msg_assoc_rec *r)
{
    char *q = joined (r->qos, r->qos_count);

    cell (s, q);
    cell (s, r->default_qos);
    s->nomem |= !q;
    free (q);
}

static void show_clusters (struct show *s, const struct assoc_here *h)
{
    static const char *const cols[] = { "Cluster", "ControlHost", "ControlPort",
                                        "RPC", NULL };
    static const char *const k_name[] = { "name", "names", "cluster",
                                          "clusters", NULL };

    columns (s, cols);
    for (size_t i = 0; i < s->a->nclusters; i++) {
        const char *name = s->a->clusters[i].name;
        if (!named (s, name) || !pass (s, k_name, name))
            continue;
        bool here = i == 0;
        cell (s, name);
        cell (s, here ? h->host : "");
        cell (s, here ? h->port : "0");
        cell (s, here ? h->rpc : "0");
    }
}

static void show_qos (struct show *s)
{
    static const char *const cols[] = {
        "Name",  "Priority",    "GraceTime", "Preempt", "PreemptMode",
        "Flags", "UsageFactor", "MaxWall",   "Descr",   NULL
    };
    static const char *const k_name[] = { "name", "names", NULL };

    columns (s, cols);
    for (size_t i = 0; i < s->a->nqos; i++) {
        const struct msg_assoc_rec *q = &s->a->qos[i];
        char num[32], grace[32], wall[32] = "";
        char *pre;
        if (!named (s, q->name) || !pass (s, k_name, q->name))
            continue;
        pre = joined (q->preempt, q->preempt_count);
        snprintf (num, sizeof (num), "%u", q->priority);
        snprintf (grace, sizeof (grace), "%02u:%02u:%02u", q->grace_time / 3600,
                  q->grace_time / 60 % 60, q->grace_time % 60);
        if (q->max_wall)
            timestr_format (q->max_wall, wall, sizeof (wall));
        cell (s, q->name);
        cell (s, num);
        cell (s, grace);
        cell (s, pre);
        cell (s, q->preempt_mode);
        cell (s, q->flags);
        cell (s, q->usage_factor);
        cell (s, wall);
        cell (s, q->description);
        s->nomem |= !pre;
        free (pre);
    }
}

static void show_accounts (struct show *s)
{
    static const char *const cols[] = { "Account",      "Descr",
                                        "Org",          "ParentName",
                                        "Coordinators", "QOS",
                                        "DefaultQOS",   NULL };
    static const char *const k_name[] = { "name", "names", "account",
                                          "accounts", NULL };
    static const char *const k_parent[] = { "parent", "parentname", NULL };
    static const char *const k_org[] = { "organization", NULL };
    static const char *const k_desc[] = { "description", NULL };

    columns (s, cols);
    for (size_t i = 0; i < s->a->naccounts; i++) {
        const struct msg_assoc_rec *r = &s->a->accounts[i];
        char *coords;
        if (!named (s, r->name) || !pass (s, k_name, r->name)
            || !pass (s, k_parent, r->parent)
            || !pass (s, k_org, r->organization)
            || !pass (s, k_desc, r->description))
            continue;
        coords = joined (r->coordinators, r->coordinators_count);
        cell (s, r->name);
        cell (s, r->description);
        cell (s, r->organization);
        cell (s, r->parent);
        cell (s, coords);
        qos_cells (s, r);
        s->nomem |= !coords;
        free (coords);
    }
}

static void show_users (struct show *s)
{
    static const char *const cols[] = { "User",         "DefaultAccount",
                                        "AdminLevel",   "Accounts",
                                        "Coordinators", "QOS",
                                        "DefaultQOS",   NULL };
    static const char *const k_name[] = { "name", "names", "user", "users",
                                          NULL };
    static const char *const k_def[] = { "defaultaccount", NULL };
    static const char *const k_level[] = { "adminlevel", NULL };
    static const char *const k_acct[] = { "account", "accounts", NULL };
    const char *acct = assoc_key (s->req->where, s->req->where_count, k_acct);

    columns (s, cols);
    for (size_t i = 0; i < s->a->nusers; i++) {
        const struct msg_assoc_rec *u = &s->a->users[i];
        const char *level = assoc_admin_name (u->admin_level);
        char *accts, **coord = NULL;
        uint32_t nc = 0;
        if (!named (s, u->name) || !pass (s, k_name, u->name)
            || !pass (s, k_def, u->default_account) || !pass (s, k_level, level)
            || (acct && !assoc_user_in (u, acct)))
            continue;
        for (size_t k = 0; k < s->a->naccounts; k++)
            if (assoc_list_has (s->a->accounts[k].coordinators,
                                s->a->accounts[k].coordinators_count, u->name))
                s->nomem |=
                    assoc_list_add (&coord, &nc, s->a->accounts[k].name) < 0;
        accts = joined (u->accounts, u->accounts_count);
        char *coords = joined (coord, nc);
        cell (s, u->name);
        cell (s, u->default_account);
        cell (s, level);
        cell (s, accts);
        cell (s, coords);
        qos_cells (s, u);
        s->nomem |= !accts || !coords;
        free (accts);
        free (coords);
        assoc_names_free (coord, nc);
    }
}

/* ---- associations, in tree order ------------------------------------------
 */

static void assoc_row (struct show *s, const char *acct, const char *user,
                       const char *parent)
{
    static const char *const k_acct[] = { "account", "accounts", NULL };
    static const char *const k_user[] = { "user", "users", NULL };
    static const char *const k_cluster[] = { "cluster", "clusters", NULL };
    static const char *const k_part[] = { "partition", NULL };
    const char *cluster = s->a->nclusters ? s->a->clusters[0].name : "";

    if (!pass (s, k_acct, acct) || !pass (s, k_user, user)
        || !pass (s, k_cluster, cluster) || !pass (s, k_part, "")
        || (s->req->names_count && !named (s, acct) && !named (s, user)))
        return;
    cell (s, cluster);
    cell (s, acct);
    cell (s, user);
    cell (s, "");
    cell (s, "1");
    cell (s, parent);
}

static void assoc_walk (struct show *s, const struct assoc_tree *t, size_t i,
                        size_t depth)
{
    const struct msg_assoc_rec *acct = &s->a->accounts[i];

    if (depth > s->a->naccounts)
        return; /* assoc_check keeps the tree a tree; never loop */
    assoc_row (s, acct->name, "", acct->parent);
    for (size_t k = t->user_at[i]; k < t->user_at[i + 1]; k++)
        assoc_row (s, acct->name, s->a->users[t->user[k]].name, "");
    for (size_t k = t->child_at[i]; k < t->child_at[i + 1]; k++)
        assoc_walk (s, t, t->child[k], depth + 1);
}

static void show_assocs (struct show *s)
{
    static const char *const cols[] = { "Cluster",   "Account", "User",
                                        "Partition", "Share",   "ParentName",
                                        NULL };
    struct assoc_tree t;

    columns (s, cols);
    if (assoc_tree_build (s->a, &t) < 0) {
        s->nomem = true;
        return;
    }
    if (t.root < s->a->naccounts)
        assoc_walk (s, &t, t.root, 0);
    assoc_tree_free (&t);
}

int assoc_show (const struct assoc *a, const struct assoc_here *here,
                const struct msg_assoc_req *req, struct msg_assoc_reply *out,
                arbor_error_t *err)
{
    static const char *const k_cluster[] = { "name", "names", "cluster",
                                             "clusters", NULL };
    static const char *const k_account[] = {
        "name",       "names",        "account",     "accounts", "parent",
        "parentname", "organization", "description", NULL
    };
    static const char *const k_user[] = {
        "name",       "names",   "user",     "users", "defaultaccount",
        "adminlevel", "account", "accounts", NULL
    };
    static const char *const k_assoc[] = { "account",   "accounts", "user",
                                           "users",     "cluster",  "clusters",
                                           "partition", NULL };
    static const char *const k_qos[] = { "name", "names", NULL };
    struct show s = { .a = a, .req = req, .out = out };
    const char *e = req->entity;
    const char *const *keys = !strcmp (e, "cluster")       ? k_cluster
                              : !strcmp (e, "account")     ? k_account
                              : !strcmp (e, "user")        ? k_user
                              : !strcmp (e, "association") ? k_assoc
                              : !strcmp (e, "qos")         ? k_qos
                                                           : NULL;

    memset (out, 0, sizeof (*out));
    if (!keys) {
        errno = EINVAL;
        return errprintf (err,
                          "show %s: clusters, accounts, users, QOS and "
                          "associations are shown",
                          e);
    }
    if (assoc_keys_known (req->where, req->where_count, keys, req, err) < 0)
        return -1;
    if (!(out->said = strdup ("")))
        s.nomem = true;
    for (uint32_t i = 0; i < req->names_count; i++)
        if (assoc_split (req->names[i], &s.names, &s.nnames) < 0)
            s.nomem = true;
    if (keys == k_cluster)
        show_clusters (&s, here);
    else if (keys == k_account)
        show_accounts (&s);
    else if (keys == k_user)
        show_users (&s);
    else if (keys == k_qos)
        show_qos (&s);
    else
        show_assocs (&s);
    assoc_names_free (s.names, s.nnames);
    for (size_t i = 0; i < s.nlists; i++)
        assoc_names_free (s.lists[i].v, s.lists[i].n);
    if (s.nomem) {
        proto_clear (MSG_ASSOC_REPLY, out);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    return 0;
}
