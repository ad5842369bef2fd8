/* assoc_qos.c - sacctmgr's QOS (issue 36 item 3): add, modify and delete
 * a QOS, and the QOS an account or a user may use (QOS=, DefaultQOS=).
 * Operators and administrators only. See assoc_req.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc_private.h"
#include "timestr.h"

static const char *const qos_keys[] = {
    "description", "priority",  "usagefactor", "flags", "preempt",
    "preemptmode", "gracetime", "maxwall",     NULL
};

/* A number of at most UINT32_MAX - 1 into *out. */
static int number (const char *key, const char *v, uint32_t *out,
                   arbor_error_t *err)
{
    char *end;
    unsigned long long n;

    errno = 0;
    n = strtoull (v, &end, 10);
    if (!*v || *end || errno || n >= UINT32_MAX || *v == '-') {
        errno = EINVAL;
        return errprintf (err, "%s=%s: a number", key, v);
    }
    *out = (uint32_t)n;
    return 0;
}

static int text (char **field, const char *v)
{
    char *c = strdup (v);

    if (!c)
        return -1;
    free (*field);
    *field = c;
    return 0;
}

/* "a,b" replaces list *v. */
static int list (char ***v, uint32_t *n, const char *value)
{
    assoc_names_free (*v, *n);
    *v = NULL;
    *n = 0;
    return assoc_split (value, v, n);
}

/* One "key=value" of qos_keys onto QOS r. */
static int qos_set (struct msg_assoc_rec *r, const char *kv, arbor_error_t *err)
{
    const char *v = strchr (kv, '=') + 1;
    size_t k = (size_t)(v - 1 - kv);
    uint32_t minutes;

#define IS(name) (k == strlen (name) && !strncasecmp (kv, name, k))
    if (IS ("priority"))
        return number ("Priority", v, &r->priority, err);
    if (IS ("gracetime"))
        return number ("GraceTime", v, &r->grace_time, err);
    if (IS ("maxwall")) {
        if (timestr_parse (v, &minutes, err) < 0)
            return -1;
        r->max_wall = minutes;
        return 0;
    }
    if (IS ("preempt"))
        return list (&r->preempt, &r->preempt_count, v) < 0 ? -1 : 0;
    return text (IS ("description")   ? &r->description
                 : IS ("usagefactor") ? &r->usage_factor
                 : IS ("flags")       ? &r->flags
                                      : &r->preempt_mode,
                 v);
#undef IS
}

static int qos_apply (struct assoc *a, struct msg_assoc_rec *r,
                      const struct msg_assoc_req *req, arbor_error_t *err)
{
    for (uint32_t i = 0; i < req->set_count; i++)
        if (qos_set (r, req->set[i], err) < 0)
            return errno == EINVAL ? -1 : errprintf (err, "out of memory");
    for (char *p = r->preempt_mode; p && *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    return assoc_check (a, r, err);
}

static int qos_add (struct assoc *a, const struct msg_assoc_req *req,
                    char **names, uint32_t n, FILE *said,
                    struct assoc_touched *t, arbor_error_t *err)
{
    fprintf (said, " Adding QOS(s)\n");
    for (uint32_t i = 0; i < n; i++) {
        struct msg_assoc_rec r = { .kind = "qos",
                                   .name = names[i],
                                   .description = names[i],
                                   .usage_factor = "1",
                                   .preempt_mode = "cluster" };
        if (assoc_add (a, &r, err) < 0
            || qos_apply (a, assoc_find (a, "qos", names[i]), req, err) < 0
            || assoc_touch (t, "qos", names[i]) < 0)
            return -1;
        fprintf (said, "  %s\n", names[i]);
    }
    for (uint32_t i = 0; i < req->set_count; i++)
        fprintf (said, "%s  %s\n", i ? "" : " Settings\n", req->set[i]);
    return 0;
}

static int qos_modify (struct assoc *a, const struct msg_assoc_req *req,
                       char **names, uint32_t n, FILE *said,
                       struct assoc_touched *t, arbor_error_t *err)
{
    if (!req->set_count) {
        errno = EINVAL;
        return errprintf (err, "modify qos: nothing to set");
    }
    fprintf (said, " Modified qos...\n");
    for (uint32_t i = 0; i < n; i++) {
        struct msg_assoc_rec *r = assoc_find (a, "qos", names[i]);
        if (!r) {
            errno = ENOENT;
            return errprintf (err, "QOS '%s' does not exist", names[i]);
        }
        if (qos_apply (a, r, req, err) < 0
            || assoc_touch (t, "qos", r->name) < 0)
            return -1;
        fprintf (said, "  %s\n", r->name);
    }
    return 0;
}

static int qos_delete (struct assoc *a, char **names, uint32_t n, FILE *said,
                       struct assoc_touched *t, arbor_error_t *err)
{
    fprintf (said, " Deleting QOS(s)...\n");
    for (uint32_t i = 0; i < n; i++) {
        if (assoc_remove (a, "qos", names[i], err) < 0
            || assoc_touch (t, "qos", names[i]) < 0)
            return -1;
        fprintf (said, "  %s\n", names[i]);
    }
    return 0;
}

int assoc_qos_req (struct assoc *a, const struct assoc_actor *who,
                   const struct msg_assoc_req *req, FILE *said,
                   struct assoc_touched *t, arbor_error_t *err)
{
    static const char *const k_name[] = { "name", "names", NULL };
    bool del = !strcmp (req->verb, "delete");
    char **names = NULL;
    uint32_t n = 0;
    int rc;

    if (assoc_may (a, who, NULL, "changing a QOS", err) < 0
        || assoc_keys_known (req->where, req->where_count, k_name, req, err) < 0
        || assoc_keys_known (req->set, req->set_count, qos_keys, req, err) < 0
        || assoc_targets (req, k_name, &names, &n, err) < 0)
        return -1;
    if (del && req->set_count) {
        errno = EINVAL;
        rc = errprintf (err, "delete qos takes no settings");
    } else if (!strcmp (req->verb, "add"))
        rc = qos_add (a, req, names, n, said, t, err);
    else if (!strcmp (req->verb, "modify"))
        rc = qos_modify (a, req, names, n, said, t, err);
    else
        rc = qos_delete (a, names, n, said, t, err);
    assoc_names_free (names, n);
    return rc;
}

int assoc_qos_fields (const struct assoc *a, const struct assoc_actor *who,
                      struct msg_assoc_rec *r, char *const *set, uint32_t n,
                      arbor_error_t *err)
{
    static const char *const k_qos[] = { "qos", NULL };
    static const char *const k_def[] = { "defaultqos", NULL };
    const char *q = assoc_key (set, n, k_qos);
    const char *d = assoc_key (set, n, k_def);

    if (!q && !d)
        return 0;
    if (assoc_may (a, who, NULL, "setting QOS", err) < 0)
        return -1;
    if ((q && list (&r->qos, &r->qos_count, q) < 0)
        || (d && text (&r->default_qos, d) < 0))
        return errprintf (err, "out of memory");
    for (uint32_t i = 0; i < r->qos_count; i++)
        for (char *p = r->qos[i]; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    for (char *p = r->default_qos; p && *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    return 0;
}
