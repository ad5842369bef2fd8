/* assoc_words.c - what sacctmgr's changes share (assoc_private.h): the
 * request's words, what a change touched, admin levels, who may. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc_private.h"

void assoc_touched_clear (struct assoc_touched *t)
{
    assoc_names_free (t->v, t->n);
    memset (t, 0, sizeof (*t));
}

int assoc_touch (struct assoc_touched *t, const char *kind, const char *name)
{
    char *key;
    int rc;

    if (asprintf (&key, "%s/%s", kind, name) < 0)
        return -1;
    for (char *p = key; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    rc = assoc_list_add (&t->v, &t->n, key);
    free (key);
    return rc;
}

/* ---- admin levels ------------------------------------------------------ */

static const char *const admin_names[] = { "None", "Operator",
                                           "Administrator" };

const char *assoc_admin_name (enum assoc_admin l)
{
    return l <= ASSOC_ADMIN_ADMINISTRATOR ? admin_names[l] : "?";
}

int assoc_admin_parse (const char *s, enum assoc_admin *out)
{
    size_t n = strlen (s);

    for (int l = ASSOC_ADMIN_NONE; l <= ASSOC_ADMIN_ADMINISTRATOR; l++)
        if (n >= (l ? 4 : 1) && !strncasecmp (s, admin_names[l], n)) {
            *out = (enum assoc_admin)l;
            return 0;
        }
    errno = EINVAL;
    return -1;
}

/* ---- the request's words -------------------------------------------------
 */

const char *assoc_key (char *const *v, uint32_t n, const char *const *keys)
{
    for (uint32_t i = 0; i < n; i++)
        for (const char *const *k = keys; *k; k++) {
            size_t len = strlen (*k);
            if (!strncasecmp (v[i], *k, len) && v[i][len] == '=')
                return v[i] + len + 1;
        }
    return NULL;
}

int assoc_keys_known (char *const *v, uint32_t n, const char *const *keys,
                      const struct msg_assoc_req *req, arbor_error_t *err)
{
    for (uint32_t i = 0; i < n; i++) {
        const char *eq = strchr (v[i], '=');
        const char *const *k = keys;
        for (; eq && *k; k++)
            if (strlen (*k) == (size_t)(eq - v[i])
                && !strncasecmp (v[i], *k, (size_t)(eq - v[i])))
                break;
        if (!eq || !*k) {
            char known[512] = "";
            for (k = keys; *k; k++)
                snprintf (known + strlen (known),
                          sizeof (known) - strlen (known), "%s%s",
                          k == keys ? "" : ", ", *k);
            errno = EINVAL;
            return errprintf (err, "unknown %s '%s' for %s %s (known: %s)",
                              eq ? "key" : "word", v[i], req->verb, req->entity,
                              known);
        }
    }
    return 0;
}

int assoc_split (const char *list, char ***v, uint32_t *n)
{
    char *copy = strdup (list ? list : ""), *save = NULL;

    if (!copy)
        return -1;
    for (char *w = strtok_r (copy, ",", &save); w;
         w = strtok_r (NULL, ",", &save))
        if (assoc_list_add (v, n, w) < 0) {
            free (copy);
            return -1;
        }
    free (copy);
    return 0;
}

void assoc_names_free (char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free (v[i]);
    free (v);
}

int assoc_targets (const struct msg_assoc_req *req, const char *const *keys,
                   char ***v, uint32_t *n, arbor_error_t *err)
{
    const char *w = assoc_key (req->where, req->where_count, keys);

    *v = NULL;
    *n = 0;
    for (uint32_t i = 0; i < req->names_count; i++)
        if (assoc_split (req->names[i], v, n) < 0)
            return errprintf (err, "out of memory");
    if (w && assoc_split (w, v, n) < 0)
        return errprintf (err, "out of memory");
    if (*n == 0) {
        errno = EINVAL;
        return errprintf (err, "%s %s: no %s named", req->verb, req->entity,
                          req->entity);
    }
    return 0;
}

/* ---- bounds ---------------------------------------------------------------
 */

int assoc_req_bounded (const struct msg_assoc_req *req, arbor_error_t *err)
{
    char *const *lists[] = { req->names, req->where, req->set };
    uint32_t counts[] = { req->names_count, req->where_count, req->set_count };
    size_t items = 0;

    for (int k = 0; k < 3; k++)
        for (uint32_t i = 0; i < counts[k]; i++) {
            if (strlen (lists[k][i]) > ASSOC_WORD_MAX) {
                errno = EINVAL;
                return errprintf (err, "a word of over %d characters",
                                  ASSOC_WORD_MAX);
            }
            items++;
            for (const char *p = lists[k][i]; *p; p++)
                items += *p == ',';
        }
    if (items > ASSOC_ITEMS_MAX) {
        errno = EINVAL;
        return errprintf (err, "too many names and values (%zu, at most %d)",
                          items, ASSOC_ITEMS_MAX);
    }
    return 0;
}

/* ---- who may --------------------------------------------------------------
 */

int assoc_may (const struct assoc *a, const struct assoc_actor *who,
               const char *acct, const char *what, arbor_error_t *err)
{
    if (who->level >= ASSOC_ADMIN_OPERATOR)
        return 0;
    if (acct && assoc_coordinates (a, who->name, acct))
        return 0;
    errno = EPERM;
    return errprintf (err,
                      "Access/permission denied: %s needs an operator or "
                      "administrator%s%s",
                      what, acct ? ", or a coordinator of account " : "",
                      acct ? acct : "");
}
