/* acctmgr_args.c - sacctmgr's command words sorted into an ASSOC_REQ
 * (acctmgr_args.h says which word goes where).
 *
 * A chain of small steps: the verb, the entity, then each word by its
 * shape (keyword, KEY=VALUE, bare name) in the section it falls in
 * (before where/set, after where, after set), then the checks that need
 * the whole command. The request owns copies of every word, so that
 * names split at commas and keys folded to lower case need no second
 * kind of storage.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acctmgr_args.h"

enum acctmgr_section { SEC_NONE, SEC_WHERE, SEC_SET };

struct acctmgr_word {
    const char *spelling; /* as typed, any case */
    const char *wire;     /* as sent */
};

static const struct acctmgr_word acctmgr_verbs[] = {
    { "add", "add" },       { "create", "add" },    { "modify", "modify" },
    { "update", "modify" }, { "delete", "delete" }, { "remove", "delete" },
    { "show", "show" },     { "list", "show" },     { NULL, NULL },
};

static const struct acctmgr_word acctmgr_entities[] = {
    { "account", "account" },
    { "accounts", "account" },
    { "user", "user" },
    { "users", "user" },
    { "cluster", "cluster" },
    { "clusters", "cluster" },
    { "coordinator", "coordinator" },
    { "coordinators", "coordinator" },
    { "association", "association" },
    { "associations", "association" },
    { "assoc", "association" },
    { "qos", "qos" }, /* Slurm's plural is "qos" too */
    { NULL, NULL },
};

#define ACCTMGR_ENTITIES "account, user, cluster, coordinator, association, qos"

/* Where the words go while parsing. */
struct acctmgr_parse {
    struct acctmgr_cmd *c;
    enum acctmgr_section sec;
    arbor_error_t *err;
};

static const char *acctmgr_lookup (const struct acctmgr_word *tab,
                                   const char *s)
{
    for (; tab->spelling; tab++)
        if (!strcasecmp (tab->spelling, s))
            return tab->wire;
    return NULL;
}

static bool acctmgr_is (const struct acctmgr_cmd *c, const char *verb)
{
    return !strcmp (c->req.verb, verb);
}

/* Append a copy of s[0..len) to a string list. 0, or -1 with ENOMEM. */
static int acctmgr_push (char ***list, uint32_t *n, const char *s, size_t len)
{
    char **grown = realloc (*list, (*n + 1) * sizeof (**list));

    if (!grown)
        return -1;
    *list = grown;
    if (!(grown[*n] = strndup (s, len)))
        return -1;
    (*n)++;
    return 0;
}

/* Each non-empty comma-separated part of 'list', as a name. */
static int acctmgr_push_names (struct acctmgr_cmd *c, const char *list)
{
    while (*list) {
        size_t len = strcspn (list, ",");

        if (len > 0
            && acctmgr_push (&c->req.names, &c->req.names_count, list, len) < 0)
            return -1;
        list += len;
        if (*list == ',')
            list++;
    }
    return 0;
}

/* "key=value" with the key (word[0..keylen)) folded to lower case. */
static int acctmgr_push_pair (char ***list, uint32_t *n, const char *word,
                              size_t keylen)
{
    if (acctmgr_push (list, n, word, strlen (word)) < 0)
        return -1;
    for (size_t i = 0; i < keylen; i++)
        (*list)[*n - 1][i] = (char)tolower ((unsigned char)word[i]);
    return 0;
}

/* Is 'key' (lower case) one that names the entities before where/set? */
static bool acctmgr_name_key (const char *entity, const char *key)
{
    static const char *const own[][2] = {
        { "user", "user" },       { "user", "users" },
        { "account", "account" }, { "account", "accounts" },
        { "cluster", "cluster" }, { "cluster", "clusters" },
    };

    if (!strcmp (key, "name") || !strcmp (key, "names"))
        return true;
    for (size_t i = 0; i < sizeof (own) / sizeof (own[0]); i++)
        if (!strcmp (entity, own[i][0]) && !strcmp (key, own[i][1]))
            return true;
    return false;
}

static int acctmgr_nomem (arbor_error_t *err)
{
    errno = ENOMEM;
    return errprintf (err, "out of memory");
}

/* Entity names from a comma-separated list. -1 with err on ENOMEM. */
static int acctmgr_add_names (struct acctmgr_parse *p, const char *list)
{
    return acctmgr_push_names (p->c, list) < 0 ? acctmgr_nomem (p->err) : 0;
}

/* "key=value" (the key word[0..keylen)) as a condition (SEC_WHERE) or a
 * setting (SEC_SET). -1 with err on ENOMEM. */
static int acctmgr_add_pair (struct acctmgr_parse *p, enum acctmgr_section sec,
                             const char *word, size_t keylen)
{
    struct msg_assoc_req *r = &p->c->req;
    int rc = sec == SEC_WHERE
                 ? acctmgr_push_pair (&r->where, &r->where_count, word, keylen)
                 : acctmgr_push_pair (&r->set, &r->set_count, word, keylen);

    return rc < 0 ? acctmgr_nomem (p->err) : 0;
}

/* where, set and the show-only flags: 1 when 'word' was one, 0 when it
 * is not a keyword, -1 when it is one out of place. */
static int acctmgr_keyword (struct acctmgr_parse *p, const char *word)
{
    const struct acctmgr_cmd *c = p->c;

    if (!strcasecmp (word, "where")) {
        if (acctmgr_is (c, "add")) {
            errno = EINVAL;
            return errprintf (p->err, "'where' is not valid in an add command");
        }
        p->sec = SEC_WHERE;
        return 1;
    }
    if (!strcasecmp (word, "set")) {
        if (!acctmgr_is (c, "modify")) {
            errno = EINVAL;
            return errprintf (p->err,
                              "'set' is only valid in a modify command");
        }
        p->sec = SEC_SET;
        return 1;
    }
    if (strcasecmp (word, "withassoc") && strcasecmp (word, "withcoord")
        && strcasecmp (word, "withdeleted"))
        return 0;
    if (!acctmgr_is (c, "show")) {
        errno = EINVAL;
        return errprintf (p->err, "'%s' is only valid in a show command", word);
    }
    return 1; /* every show lists what these would add */
}

/* format= of show: the CLI's column choice; several are joined. */
static int acctmgr_format (struct acctmgr_parse *p, const char *value)
{
    struct acctmgr_cmd *c = p->c;
    char *joined;

    if (!acctmgr_is (c, "show")) {
        errno = EINVAL;
        return errprintf (p->err, "format= is only valid in a show command");
    }
    if (!c->format)
        joined = strdup (value);
    else if (asprintf (&joined, "%s,%s", c->format, value) < 0)
        joined = NULL;
    if (!joined)
        return acctmgr_nomem (p->err);
    free (c->format);
    c->format = joined;
    return 0;
}

/* KEY=VALUE before where/set: names, format, or the verb's default
 * section (add: a setting; show, delete: a condition; modify: none). */
static int acctmgr_pair_first (struct acctmgr_parse *p, const char *word,
                               const char *key, const char *value)
{
    if (!strcmp (key, "format"))
        return acctmgr_format (p, value);
    if (acctmgr_is (p->c, "modify")) {
        errno = EINVAL;
        return errprintf (p->err,
                          "modify needs 'where' before its conditions and "
                          "'set' before its settings ('%s')",
                          word);
    }
    if (acctmgr_name_key (p->c->req.entity, key))
        return acctmgr_add_names (p, value);
    return acctmgr_add_pair (p, acctmgr_is (p->c, "add") ? SEC_SET : SEC_WHERE,
                             word, strlen (key));
}

/* A KEY=VALUE word ('eq' at its '='), by section. */
static int acctmgr_pair (struct acctmgr_parse *p, const char *word,
                         const char *eq)
{
    size_t keylen = (size_t)(eq - word);
    char *key;
    int rc;

    if (keylen == 0) {
        errno = EINVAL;
        return errprintf (p->err, "Bad '%s': KEY=VALUE needs a key", word);
    }
    if (!(key = strndup (word, keylen)))
        return acctmgr_nomem (p->err);
    for (char *k = key; *k; k++)
        *k = (char)tolower ((unsigned char)*k);
    if (p->sec == SEC_NONE)
        rc = acctmgr_pair_first (p, word, key, eq + 1);
    else if (!strcmp (key, "format") && acctmgr_is (p->c, "show"))
        rc = acctmgr_format (p, eq + 1);
    else
        rc = acctmgr_add_pair (p, p->sec, word, keylen);
    free (key);
    return rc;
}

/* A word without '=': a keyword, or entity names (not after set). */
static int acctmgr_bare (struct acctmgr_parse *p, const char *word)
{
    int rc = acctmgr_keyword (p, word);

    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (p->sec == SEC_SET) {
        errno = EINVAL;
        return errprintf (p->err, "Bad setting '%s': 'set' takes KEY=VALUE",
                          word);
    }
    return acctmgr_add_names (p, word);
}

/* What needs the whole command: something to act on, something to set. */
static int acctmgr_check (const struct acctmgr_cmd *c, arbor_error_t *err)
{
    const struct msg_assoc_req *r = &c->req;

    errno = EINVAL;
    if (acctmgr_is (c, "add") && r->names_count == 0)
        return errprintf (err, "Nothing to add: no %s name given", r->entity);
    if (!acctmgr_is (c, "add") && !acctmgr_is (c, "show") && r->names_count == 0
        && r->where_count == 0)
        return errprintf (err,
                          "Nothing to %s: no names and no 'where' "
                          "conditions given",
                          r->verb);
    if (acctmgr_is (c, "modify") && r->set_count == 0)
        return errprintf (err, "Nothing to modify: no 'set' settings given");
    return 0;
}

/* The verb and the entity, the first two words. */
static int acctmgr_head (struct acctmgr_cmd *c, int argc, char **argv,
                         arbor_error_t *err)
{
    errno = EINVAL;
    if (argc < 1)
        return errprintf (err, "No command given (add, modify, delete or "
                               "show)");
    if (!(c->req.verb = (char *)acctmgr_lookup (acctmgr_verbs, argv[0])))
        return errprintf (err,
                          "Unknown command '%s' (valid: add, modify, "
                          "delete, show)",
                          argv[0]);
    if (argc < 2)
        return errprintf (
            err, "No entity given after '%s' (valid: " ACCTMGR_ENTITIES ")",
            argv[0]);
    if (!(c->req.entity = (char *)acctmgr_lookup (acctmgr_entities, argv[1])))
        return errprintf (
            err, "Unknown entity '%s' (valid: " ACCTMGR_ENTITIES ")", argv[1]);
    return 0;
}

int acctmgr_args_parse (struct acctmgr_cmd *c, int argc, char **argv,
                        arbor_error_t *err)
{
    struct acctmgr_parse p = { .c = c, .sec = SEC_NONE, .err = err };
    int rc;

    memset (c, 0, sizeof (*c));
    if (acctmgr_head (c, argc, argv, err) < 0)
        goto fail;
    for (int i = 2; i < argc; i++) {
        const char *eq = strchr (argv[i], '=');

        rc = eq ? acctmgr_pair (&p, argv[i], eq) : acctmgr_bare (&p, argv[i]);
        if (rc < 0)
            goto fail;
    }
    if (acctmgr_check (c, err) < 0)
        goto fail;
    return 0;
fail:
    acctmgr_cmd_clear (c);
    return -1;
}

static void acctmgr_list_free (char **list, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free (list[i]);
    free (list);
}

void acctmgr_cmd_clear (struct acctmgr_cmd *c)
{
    int e = errno;

    acctmgr_list_free (c->req.names, c->req.names_count);
    acctmgr_list_free (c->req.where, c->req.where_count);
    acctmgr_list_free (c->req.set, c->req.set_count);
    free (c->format);
    memset (c, 0, sizeof (*c));
    errno = e;
}
