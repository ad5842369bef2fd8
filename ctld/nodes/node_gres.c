/* node_gres.c - a node's generic resources in the controller; see
 * node_gres.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gresspec.h"
#include "job/cores.h"
#include "nodes/node_gres.h"
#include "proto.h"

static void item_clear (struct node_gres_item *it)
{
    free (it->name);
    free (it->type);
    free (it->used);
    for (uint32_t k = 0; it->files && k < it->count; k++)
        free (it->files[k]);
    free (it->files);
    free (it->cores);
    memset (it, 0, sizeof (*it));
}

static void items_free (struct node_gres_item *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        item_clear (&v[i]);
    free (v);
}

/* Number the units of each name across its items; an item is indexed
 * when its name has at most GRESALLOC_IDX_MAX units. -1 ENOMEM. */
static int items_index (struct node_gres_item *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t base = 0, total = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp (v[k].name, v[i].name) != 0)
                continue;
            if (k < i)
                base += v[k].count;
            total += v[k].count;
        }
        v[i].base = base > UINT32_MAX ? UINT32_MAX : (uint32_t)base;
        v[i].indexed = total <= GRESALLOC_IDX_MAX;
        if (v[i].indexed && v[i].count && !(v[i].used = calloc (v[i].count, 1)))
            return -1;
    }
    return 0;
}

int node_gres_init (struct node_gres *g, const char *cfg, arbor_error_t *err)
{
    struct gresspec spec;

    memset (g, 0, sizeof (*g));
    if (!cfg || !*cfg)
        return 0;
    if (gresspec_parse_as ("Gres", cfg, &spec, err) < 0)
        return -1;
    if (!(g->cfg = strdup (cfg)) || !(g->v = calloc (spec.n, sizeof (*g->v))))
        goto nomem;
    for (size_t i = 0; i < spec.n; i++, g->n++) {
        struct node_gres_item *it = &g->v[i];
        it->name = strdup (spec.v[i].name);
        it->type = spec.v[i].type[0] ? strdup (spec.v[i].type) : NULL;
        it->count = spec.v[i].count > UINT32_MAX ? UINT32_MAX
                                                 : (uint32_t)spec.v[i].count;
        if (!it->name || (spec.v[i].type[0] && !it->type))
            goto nomem;
    }
    if (items_index (g->v, g->n) < 0)
        goto nomem;
    return 0;
nomem:
    node_gres_clear (g);
    errno = ENOMEM;
    return errprintf (err, "out of memory");
}

void node_gres_clear (struct node_gres *g)
{
    if (!g)
        return;
    items_free (g->v, g->n);
    free (g->cfg);
    memset (g, 0, sizeof (*g));
}

/* Item i of the registration; its files split at ','. */
static int item_from_msg (const struct msg_node_register *m, uint32_t i,
                          struct node_gres_item *it, arbor_error_t *err)
{
    const char *files = PROTO_STR (m, gres_files, i);
    const char *type = PROTO_STR (m, gres_types, i);
    const char *cores = PROTO_STR (m, gres_cores, i);

    it->count = PROTO_NUM (m, gres_counts, i);
    if (!*PROTO_STR (m, gres_names, i) || it->count == 0) {
        errno = EINVAL;
        return errprintf (err,
                          "NODE_REGISTER: resource %u has no name or "
                          "count",
                          i);
    }
    if (!(it->name = strdup (m->gres_names[i]))
        || (*type && !(it->type = strdup (type)))
        || (*cores && !(it->cores = strdup (cores))))
        goto nomem;
    if (!*files)
        return 0;
    if (!(it->files = calloc (it->count, sizeof (char *))))
        goto nomem;
    for (uint32_t k = 0; k < it->count; k++) {
        size_t len = strcspn (files, ",");
        if (!len || !(it->files[k] = strndup (files, len)))
            goto bad_files;
        files += len + (files[len] == ',');
    }
    if (*files)
        goto bad_files;
    return 0;
bad_files:
    if (errno != ENOMEM) {
        errno = EINVAL;
        return errprintf (err,
                          "NODE_REGISTER: resource %s: %u units but "
                          "not as many files",
                          it->name, it->count);
    }
nomem:
    errno = ENOMEM;
    return errprintf (err, "out of memory");
}

/* What the registration has of name (and type; NULL any). */
static uint64_t msg_total (const struct node_gres_item *v, size_t n,
                           const char *name, const char *type)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < n; i++)
        if (!strcmp (v[i].name, name)
            && (!type || (v[i].type && !strcmp (v[i].type, type))))
            sum += v[i].count;
    return sum;
}

/* Slurm's words for a node short of a configured resource. */
static void short_reason (const struct node_gres *cfg,
                          const struct node_gres_item *v, size_t n, char *why,
                          size_t len)
{
    why[0] = '\0';
    for (size_t i = 0; i < cfg->n; i++) {
        const struct node_gres_item *c = &cfg->v[i];
        uint64_t have = msg_total (v, n, c->name, c->type);
        if (have < c->count) {
            snprintf (why, len,
                      "gres/%s%s%s count reported lower than configured "
                      "(%llu < %u)",
                      c->name, c->type ? ":" : "", c->type ? c->type : "",
                      (unsigned long long)have, c->count);
            return;
        }
    }
}

static int units_walk (struct node_gres *g, const struct gresalloc *a,
                       bool take, bool check);

int node_gres_register (struct node_gres *g, const struct msg_node_register *m,
                        char *why, size_t len, arbor_error_t *err)
{
    uint32_t n = m->gres_names_count;
    struct node_gres_item *v;
    struct node_gres cfg = { 0 };

    why[0] = '\0';
    if (n > 256) {
        errno = EINVAL;
        return errprintf (err, "NODE_REGISTER: %u resources, at most 256", n);
    }
    if (!(v = calloc (n ? n : 1, sizeof (*v)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++)
        if (item_from_msg (m, i, &v[i], err) < 0) {
            items_free (v, n);
            return -1;
        }
    if (items_index (v, n) < 0 || node_gres_init (&cfg, g->cfg, err) < 0) {
        items_free (v, n);
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    short_reason (&cfg, v, n, why, len);
    node_gres_clear (&cfg);
    /* What jobs hold stays held, by index: restored jobs took it against
     * the configuration's items, before the node said its own. */
    struct gresalloc held = { 0 };
    for (size_t i = 0; i < g->n; i++) {
        const struct node_gres_item *it = &g->v[i];
        struct gresalloc_item *h = gresalloc_get (&held, it->name, it->indexed);
        for (uint32_t k = 0; h && it->indexed && k < it->count; k++)
            if (it->used[k])
                gresalloc_set (h, it->base + k);
        if (h && !it->indexed)
            h->count += it->nused;
    }
    items_free (g->v, g->n);
    g->v = v;
    g->n = n;
    (void)units_walk (g, &held, true, false);
    return 0;
}

static bool item_matches (const struct node_gres_item *it, const char *name,
                          const char *type)
{
    return !strcmp (it->name, name)
           && (!type || !*type || (it->type && !strcmp (it->type, type)));
}

uint64_t node_gres_avail (const struct node_gres *g, const char *name,
                          const char *type, bool all)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < g->n; i++)
        if (item_matches (&g->v[i], name, type))
            sum += all ? g->v[i].count : g->v[i].count - g->v[i].nused;
    return sum;
}

/* Take unit k of item it (indexed) into out. */
static void take_unit (struct node_gres_item *it, uint32_t k,
                       struct gresalloc_item *o)
{
    it->used[k] = 1;
    it->nused++;
    gresalloc_set (o, it->base + k);
}

int node_gres_take (struct node_gres *g, const char *name, const char *type,
                    uint64_t count, struct gresalloc *out)
{
    struct gresalloc_item *o;
    uint64_t left = count;
    bool indexed = true;

    if (node_gres_avail (g, name, type, false) < count) {
        errno = ENOSPC;
        return -1;
    }
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp (g->v[i].name, name))
            indexed &= g->v[i].indexed;
    if (!(o = gresalloc_get (out, name, indexed))) {
        errno = E2BIG;
        return -1;
    }
    for (size_t i = 0; i < g->n && left; i++) {
        struct node_gres_item *it = &g->v[i];
        if (!item_matches (it, name, type))
            continue;
        if (!it->indexed) {
            uint64_t take =
                it->count - it->nused < left ? it->count - it->nused : left;
            it->nused += (uint32_t)take;
            o->count += take;
            left -= take;
            continue;
        }
        for (uint32_t k = 0; k < it->count && left; k++)
            if (!it->used[k]) {
                take_unit (it, k, o);
                left--;
            }
    }
    return 0;
}

/* The item holding unit 'idx' of name, and its place there; NULL none. */
static struct node_gres_item *unit_item (const struct node_gres *g,
                                         const char *name, uint32_t idx,
                                         uint32_t *k)
{
    for (size_t i = 0; i < g->n; i++) {
        struct node_gres_item *it = &g->v[i];
        if (it->indexed && !strcmp (it->name, name) && idx >= it->base
            && idx - it->base < it->count) {
            *k = idx - it->base;
            return it;
        }
    }
    return NULL;
}

/* Give back (or, 'take', take) what 'a' holds; with 'check', only say
 * whether every unit is free (0) or not (-1). */
static int units_walk (struct node_gres *g, const struct gresalloc *a,
                       bool take, bool check)
{
    for (size_t n = 0; n < a->n; n++) {
        const struct gresalloc_item *ai = &a->v[n];
        uint64_t left = ai->indexed ? 0 : ai->count;
        for (uint32_t idx = 0; ai->indexed && idx < GRESALLOC_IDX_MAX; idx++) {
            uint32_t k;
            struct node_gres_item *it;
            if (!gresalloc_has (ai, idx)
                || !(it = unit_item (g, ai->name, idx, &k)))
                continue;
            if (check && it->used[k])
                return -1;
            if (!check && take != (bool)it->used[k]) {
                it->used[k] = take;
                it->nused += take ? 1 : (uint32_t)-1;
            }
        }
        for (size_t i = 0; i < g->n && left; i++) {
            struct node_gres_item *it = &g->v[i];
            uint64_t room = take ? it->count - it->nused : it->nused;
            uint64_t step = room < left ? room : left;
            if (it->indexed || strcmp (it->name, ai->name))
                continue;
            if (check && step < left)
                return -1;
            if (!check)
                it->nused = take ? it->nused + (uint32_t)step
                                 : it->nused - (uint32_t)step;
            left -= step;
        }
    }
    return 0;
}

int node_gres_retake (struct node_gres *g, const struct gresalloc *a)
{
    if (units_walk (g, a, true, true) < 0) {
        errno = ENOSPC;
        return -1;
    }
    return units_walk (g, a, true, false);
}

void node_gres_give (struct node_gres *g, const struct gresalloc *a)
{
    (void)units_walk (g, a, false, false);
}

void node_gres_all (const struct node_gres *g, struct gresalloc *a)
{
    for (size_t i = 0; i < g->n; i++) {
        const struct node_gres_item *it = &g->v[i];
        struct gresalloc_item *o = gresalloc_get (a, it->name, it->indexed);
        if (!o)
            return;
        if (!it->indexed)
            o->count += it->count;
        for (uint32_t k = 0; it->indexed && k < it->count; k++)
            gresalloc_set (o, it->base + k);
    }
}

uint32_t node_gres_cpus (const struct node_gres *g, const struct gresalloc *a,
                         uint8_t *mask, uint32_t ncpus)
{
    uint8_t *tmp = calloc (ncpus ? ncpus : 1, 1);
    uint32_t marked = 0;

    if (!tmp)
        return 0;
    for (size_t n = 0; n < a->n; n++) {
        const struct gresalloc_item *ai = &a->v[n];
        for (uint32_t idx = 0; ai->indexed && idx < GRESALLOC_IDX_MAX; idx++) {
            uint32_t k;
            const struct node_gres_item *it;
            if (!gresalloc_has (ai, idx)
                || !(it = unit_item (g, ai->name, idx, &k)) || !it->cores
                || cores_mask_parse (it->cores, tmp, ncpus) < 0)
                continue; /* no CPUs said, or not this node's numbering */
            for (uint32_t c = 0; c < ncpus; c++)
                if (tmp[c] && !mask[c]) {
                    mask[c] = 1;
                    marked++;
                }
        }
    }
    free (tmp);
    return marked;
}

uint32_t node_gres_near_cpus (const struct node_gres *g, const char *name,
                              uint64_t units, bool all, const uint8_t *used,
                              uint32_t ncpus)
{
    uint8_t *near = calloc (ncpus ? ncpus : 1, 1);
    uint8_t *tmp = calloc (ncpus ? ncpus : 1, 1);
    uint32_t n = 0;
    bool said = false;

    if (!near || !tmp) {
        free (near);
        free (tmp);
        return UINT32_MAX;
    }
    for (size_t i = 0; i < g->n && units; i++) {
        const struct node_gres_item *it = &g->v[i];
        uint64_t take = all ? it->count : it->count - it->nused;
        if (strcmp (it->name, name) || !take)
            continue;
        units -= take < units ? take : units; /* these would be taken */
        if (!it->cores || cores_mask_parse (it->cores, tmp, ncpus) < 0)
            continue;
        said = true;
        for (uint32_t c = 0; c < ncpus; c++)
            near[c] |= tmp[c];
    }
    for (uint32_t c = 0; c < ncpus; c++)
        n += near[c] && (!used || !used[c]);
    free (near);
    free (tmp);
    return said ? n : UINT32_MAX;
}

static bool same_kind (const struct node_gres_item *a,
                       const struct node_gres_item *b)
{
    return !strcmp (a->name, b->name)
           && (a->type ? b->type && !strcmp (a->type, b->type) : !b->type);
}

/* How many units of item it are taken: by any job, or (held non-NULL)
 * in held; their indices are added to idx (when not NULL). A name held by count
 * is given to its items in order ('left': what the earlier items did not take).
 */
static uint64_t units_taken (const struct node_gres_item *it,
                             const struct gresalloc *held, uint64_t *left,
                             struct gresalloc_item *idx)
{
    const struct gresalloc_item *h =
        held ? gresalloc_find (held, it->name) : NULL;
    uint64_t n = 0;

    if (held && !h)
        return 0;
    if (!held && !it->indexed)
        return it->nused;
    if (held && !h->indexed) {
        n = *left < it->count ? *left : it->count;
        *left -= n;
        return n;
    }
    for (uint32_t x = 0; x < it->count; x++) {
        bool t = held ? gresalloc_has (h, it->base + x) : it->used[x] != 0;
        if (t && idx)
            gresalloc_set (idx, it->base + x);
        n += t;
    }
    return n;
}

/* The items of item i's name and type (from i on, i the first of them)
 * as one entry of Gres=, GresUsed= (used) or a job's GRES= (held): their
 * units in all, or those taken with their indices. 0 (nothing written)
 * for a kind a job holds none of. */
static size_t kind_text (const struct node_gres *g, size_t i, bool used,
                         const struct gresalloc *held, char *buf, size_t len)
{
    const struct node_gres_item *first = &g->v[i];
    struct gresalloc_item a = { .indexed = true };
    const struct gresalloc_item *h =
        held ? gresalloc_find (held, first->name) : NULL;
    uint64_t count = 0, taken = 0, left = h && !h->indexed ? h->count : 0;
    bool indexed = first->indexed;
    char idx[256] = "";
    int n;

    for (size_t k = 0; k < g->n; k++) { /* a count goes to earlier items */
        const struct node_gres_item *it = &g->v[k];
        uint64_t t;
        bool mine;
        if (strcmp (it->name, first->name))
            continue;
        mine = k >= i && same_kind (it, first);
        t = units_taken (it, held, &left, mine ? &a : NULL);
        if (!mine)
            continue;
        count += it->count;
        taken += t;
    }
    if (held && !taken)
        return 0;
    if (used && indexed && taken) {
        snprintf (idx, sizeof (idx), "(IDX:");
        gresalloc_indices (&a, idx + 5, sizeof (idx) - 6);
        strcat (idx, ")");
    } else if (used && indexed)
        snprintf (idx, sizeof (idx), "(IDX:N/A)");
    n = snprintf (buf, len, "%s%s%s:%llu%s", first->name,
                  first->type ? ":" : "", first->type ? first->type : "",
                  (unsigned long long)(used ? taken : count), idx);
    return n < 0 ? 0 : (size_t)n;
}

static const char *gres_text (const struct node_gres *g, bool used,
                              const struct gresalloc *held, char *buf,
                              size_t len)
{
    size_t at = 0;

    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < g->n && at + 1 < len; i++) {
        bool seen = false;
        size_t w;
        for (size_t k = 0; k < i && !seen; k++)
            seen = same_kind (&g->v[k], &g->v[i]);
        if (seen)
            continue; /* written with the first of its kind */
        if (at)
            buf[at++] = ',';
        if (!(w = kind_text (g, i, used, held, buf + at, len - at)) && at)
            buf[--at] = '\0'; /* a kind the job holds none of */
        at += w;
    }
    if (at >= len && len)
        buf[len - 1] = '\0';
    return buf;
}

const char *node_gres_text (const struct node_gres *g, bool used, char *buf,
                            size_t len)
{
    return gres_text (g, used, NULL, buf, len);
}

const char *node_gres_held_text (const struct node_gres *g,
                                 const struct gresalloc *held, char *buf,
                                 size_t len)
{
    return gres_text (g, true, held, buf, len);
}
