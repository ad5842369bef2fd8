/* gresnode.c - the generic resources one node has; see gresnode.h.
 *
 * Three sources, merged as slurmd merges them (gres.conf(5), the GRES
 * guide's "AutoDetect" section):
 *   1. gres.conf lines for the node: they describe devices (File=,
 *      Cores=) and counts;
 *   2. detection (AutoDetect=nvml): when it ran, what it found replaces
 *      the node's Name=gpu lines, which may still name (Type=) and flag
 *      (Flags=) the devices they match; Arbor does not keep a configured
 *      GPU that detection did not find (Slurm keeps it unchecked): a node
 *      then reports fewer GPUs than its Gres= and the controller sees it;
 *   3. the node's Gres= in arbor.conf: a resource it names that neither
 *      source describes is count-only, as configured.
 * A configured type matches a detected one when it is part of it, in any
 * case: Type=a100 or Gres=gpu:a100:2 names "nvidia_a100-sxm4-40gb".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "gresconf.h"
#include "gresnode.h"
#include "gresspec.h"
#include "hostlist.h"

static void item_clear (struct gres_item *it)
{
    for (size_t i = 0; i < it->nfiles; i++)
        free (it->files[i]);
    free (it->files);
    free (it->name);
    free (it->type);
    free (it->cores);
    free (it->flags);
}

void gresnode_clear (struct gresnode *g)
{
    int e = errno;

    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++)
        item_clear (&g->v[i]);
    free (g->v);
    g->v = NULL;
    g->n = 0;
    errno = e;
}

/* strdup that keeps NULL; *ok false when a copy failed. */
static char *dup_opt (const char *s, bool *ok)
{
    char *d = s ? strdup (s) : NULL;

    if (s && !d)
        *ok = false;
    return d;
}

static int item_copy (struct gres_item *d, const struct gres_item *s)
{
    bool ok = true;

    memset (d, 0, sizeof (*d));
    d->name = dup_opt (s->name, &ok);
    d->type = dup_opt (s->type, &ok);
    d->cores = dup_opt (s->cores, &ok);
    d->flags = dup_opt (s->flags, &ok);
    d->count = s->count;
    if (ok && s->nfiles && !(d->files = calloc (s->nfiles, sizeof (char *))))
        ok = false;
    for (size_t i = 0; ok && i < s->nfiles; i++, d->nfiles++)
        d->files[i] = dup_opt (s->files[i], &ok);
    if (!ok) {
        item_clear (d);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int gresnode_add (struct gresnode *g, const struct gres_item *it)
{
    struct gres_item *v;

    if (g->n >= GRESNODE_ITEMS_MAX) {
        errno = E2BIG;
        return -1;
    }
    if (!(v = realloc (g->v, (g->n + 1) * sizeof (*v)))) {
        errno = ENOMEM;
        return -1;
    }
    g->v = v;
    if (item_copy (&g->v[g->n], it) < 0)
        return -1;
    g->n++;
    return 0;
}

/* gresnode_add failed (errno ENOMEM or E2BIG) while adding for 'what'. */
static int add_fail (arbor_error_t *err, const char *what)
{
    if (errno == E2BIG)
        return errprintf (err, "%s: more than %d resource items", what,
                          GRESNODE_ITEMS_MAX);
    return errprintf (err, "%s: out of memory", what);
}

/* Does line l apply to 'node'? 0 with *yes, or -1 (bad NodeName=). */
static int line_applies (const struct gresconf_line *l, const char *node,
                         bool *yes, arbor_error_t *err)
{
    arbor_error_t herr = { "" };
    struct hostlist *hl;

    *yes = true;
    if (!l->nodes)
        return 0;
    if (!(hl = hostlist_create (l->nodes, &herr))) {
        if (errno == ENOMEM)
            return errprintf (err, "out of memory");
        errno = EINVAL;
        return errprintf (err, "gres.conf line %u: NodeName= %s", l->lineno,
                          herr.text);
    }
    *yes = hostlist_find (hl, node) >= 0;
    hostlist_destroy (hl);
    return 0;
}

/* Keep the AutoDetect= of line l in *slot (*at its line number), or fail
 * when an earlier line of the same scope said otherwise. */
static int autodetect_keep (const struct gresconf_line *l, const char **slot,
                            unsigned *at, arbor_error_t *err)
{
    if (*slot && strcasecmp (*slot, l->autodetect)) {
        errno = EINVAL;
        return errprintf (err,
                          "gres.conf line %u: AutoDetect=%s disagrees with "
                          "line %u (AutoDetect=%s)",
                          l->lineno, l->autodetect, *at, *slot);
    }
    *slot = l->autodetect;
    *at = l->lineno;
    return 0;
}

int gresnode_autodetect (const struct gresconf *gc, const char *node,
                         const char **mech, arbor_error_t *err)
{
    const char *global = NULL, *local = NULL, *m;
    unsigned gat = 0, lat = 0;

    *mech = NULL;
    for (size_t i = 0; gc && i < gc->n; i++) {
        const struct gresconf_line *l = &gc->v[i];
        bool yes;
        if (!l->autodetect)
            continue;
        if (!l->nodes) {
            if (autodetect_keep (l, &global, &gat, err) < 0)
                return -1;
            continue;
        }
        if (line_applies (l, node, &yes, err) < 0)
            return -1;
        if (yes && autodetect_keep (l, &local, &lat, err) < 0)
            return -1;
    }
    m = local ? local : global;
    *mech = m && strcasecmp (m, "off") ? m : NULL;
    return 0;
}

/* Every resource gres.conf names must be in GresTypes, gpu included, as
 * slurmd insists. All lines are checked, not only this node's: the file
 * is the cluster's, and a typo should show on every node at once. */
static int check_types (const struct conf *c, const struct gresconf *gc,
                        arbor_error_t *err)
{
    for (size_t i = 0; i < gc->n; i++) {
        const struct gresconf_line *l = &gc->v[i];
        if (l->name && !conf_gres_type (c, l->name)) {
            errno = EINVAL;
            return errprintf (err,
                              "gres.conf line %u: Name=%s is not in "
                              "GresTypes (add GresTypes=%s)",
                              l->lineno, l->name, l->name);
        }
    }
    return 0;
}

/* The node's gres.conf lines, in order; its gpu lines left out when
 * detection replaces them. */
static int add_lines (struct gresnode *g, const struct gresconf *gc,
                      const char *node, bool skip_gpu, arbor_error_t *err)
{
    for (size_t i = 0; i < gc->n; i++) {
        const struct gresconf_line *l = &gc->v[i];
        struct gres_item it = {
            .name = l->name,
            .type = l->type,
            .count = l->count,
            .files = l->files,
            .nfiles = l->nfiles,
            .cores = l->cores,
            .flags = l->flags,
        };
        bool yes;
        if (!l->name || (skip_gpu && !strcasecmp (l->name, "gpu")))
            continue;
        if (line_applies (l, node, &yes, err) < 0)
            return -1;
        if (yes && gresnode_add (g, &it) < 0)
            return add_fail (err, "gres.conf");
    }
    return 0;
}

static bool has_file (const struct gresconf_line *l, const char *file)
{
    for (size_t i = 0; file && i < l->nfiles; i++)
        if (!strcmp (l->files[i], file))
            return true;
    return false;
}

/* The node's Name=gpu line that describes detected device d: its File=
 * (if given) holds d's file and its Type= (if given) is part of d's
 * type. The first such line, or NULL. */
static const struct gresconf_line *match_line (const struct gresconf *gc,
                                               const char *node,
                                               const struct gres_item *d)
{
    const char *file = d->nfiles ? d->files[0] : NULL;

    for (size_t i = 0; gc && i < gc->n; i++) {
        const struct gresconf_line *l = &gc->v[i];
        bool yes;
        if (!l->name || strcasecmp (l->name, "gpu"))
            continue;
        if (line_applies (l, node, &yes, NULL) < 0 || !yes)
            continue; /* a bad NodeName= failed in add_lines already */
        if (l->nfiles && !has_file (l, file))
            continue;
        if (l->type && !(d->type && strcasestr (d->type, l->type)))
            continue;
        return l;
    }
    return NULL;
}

/* The first gpu type of the node's Gres= that is part of 'type'. */
static const char *match_spec (const struct gresspec *spec, const char *type)
{
    for (size_t i = 0; type && i < spec->n; i++)
        if (!strcasecmp (spec->v[i].name, "gpu") && spec->v[i].type[0]
            && strcasestr (type, spec->v[i].type))
            return spec->v[i].type;
    return NULL;
}

static int add_detected (struct gresnode *g, const struct gresconf *gc,
                         const char *node, const struct gresspec *spec,
                         const struct gresnode *detected, arbor_error_t *err)
{
    for (size_t i = 0; i < detected->n; i++) {
        struct gres_item it = detected->v[i];
        const struct gresconf_line *l = match_line (gc, node, &it);
        const char *t = match_spec (spec, it.type);
        if (l && l->type)
            it.type = l->type;
        else if (t)
            it.type = (char *)t; /* borrowed: gresnode_add copies it */
        if (l && l->flags)
            it.flags = l->flags;
        if (gresnode_add (g, &it) < 0)
            return add_fail (err, "AutoDetect=nvml");
    }
    return 0;
}

/* Gres= entries whose resource no item describes, as count-only items.
 * A name with any item is left alone: what gres.conf or detection says
 * of it is the node's truth, and padding it would invent devices. */
static int add_leftovers (struct gresnode *g, const struct gresspec *spec,
                          arbor_error_t *err)
{
    size_t described = g->n;

    for (size_t i = 0; i < spec->n; i++) {
        const struct gres_req *r = &spec->v[i];
        struct gres_item it = { .name = (char *)r->name,
                                .type = r->type[0] ? (char *)r->type : NULL,
                                .count = r->count };
        bool found = false;
        for (size_t k = 0; k < described && !found; k++)
            found = !strcasecmp (g->v[k].name, r->name);
        if (!found && gresnode_add (g, &it) < 0)
            return add_fail (err, "arbor.conf Gres=");
    }
    return 0;
}

/* The node's Gres= and, with gres.conf, its AutoDetect= mechanism. */
static int build_inputs (const struct conf *c, const char *node,
                         const struct gresconf *gc, struct gresspec *spec,
                         const char **mech, arbor_error_t *err)
{
    const struct conf_node *cn = conf_node_find (c, node);

    memset (spec, 0, sizeof (*spec));
    *mech = NULL;
    if (!cn) {
        errno = EINVAL;
        return errprintf (err, "node %s is not in %s", node,
                          c->path ? c->path : "arbor.conf");
    }
    if (cn->gres && gresspec_parse (cn->gres, spec, err) < 0)
        return -1; /* conf_load refuses it already */
    if (gc
        && (check_types (c, gc, err) < 0
            || gresnode_autodetect (gc, node, mech, err) < 0))
        return -1;
    return 0;
}

int gresnode_build (const struct conf *c, const char *node,
                    const struct gresconf *gc, const struct gresnode *detected,
                    struct gresnode *out, arbor_error_t *err)
{
    struct gresnode g = { NULL, 0 };
    struct gresspec spec;
    const char *mech;
    bool replace;

    memset (out, 0, sizeof (*out));
    if (build_inputs (c, node, gc, &spec, &mech, err) < 0)
        return -1;
    replace = detected && mech && !strcasecmp (mech, "nvml");
    if (replace && detected->n && !conf_gres_type (c, "gpu")) {
        errno = EINVAL;
        return errprintf (err, "AutoDetect=nvml found GPUs but gpu is not "
                               "in GresTypes (add GresTypes=gpu)");
    }
    if ((gc && add_lines (&g, gc, node, replace, err) < 0)
        || (replace && add_detected (&g, gc, node, &spec, detected, err) < 0)
        || add_leftovers (&g, &spec, err) < 0) {
        gresnode_clear (&g);
        return -1;
    }
    *out = g;
    return 0;
}

/* Items [i, j) are written as one: one name and type, all with files. */
static size_t text_run (const struct gresnode *g, size_t i)
{
    const struct gres_item *a = &g->v[i];
    size_t j = i + 1;

    while (
        a->nfiles && j < g->n && g->v[j].nfiles
        && !strcmp (g->v[j].name, a->name)
        && !strcmp (g->v[j].type ? g->v[j].type : "", a->type ? a->type : ""))
        j++;
    return j;
}

/* The files of items [i, j), ranged when they read as a host list. */
static void text_files (FILE *f, const struct gresnode *g, size_t i, size_t j)
{
    struct hostlist *hl = hostlist_create ("", NULL);
    char *ranged = NULL;
    bool ok = hl != NULL;

    for (size_t k = i; ok && k < j; k++)
        for (size_t n = 0; ok && n < g->v[k].nfiles; n++)
            ok = hostlist_append (hl, g->v[k].files[n]) == 0;
    if (ok && (ranged = hostlist_ranged (hl))) {
        fprintf (f, "(%s)", ranged);
    } else {
        const char *sep = "(";
        for (size_t k = i; k < j; k++)
            for (size_t n = 0; n < g->v[k].nfiles; n++, sep = ",")
                fprintf (f, "%s%s", sep, g->v[k].files[n]);
        fputc (')', f);
    }
    free (ranged);
    hostlist_destroy (hl);
}

char *gresnode_text (const struct gresnode *g)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&buf, &size);

    if (!f)
        return NULL;
    for (size_t i = 0, j; g && i < g->n; i = j) {
        const struct gres_item *a = &g->v[i];
        uint64_t count = 0;
        j = text_run (g, i);
        for (size_t k = i; k < j; k++)
            count += g->v[k].count;
        fprintf (f, "%s%s%s%s:%llu", i ? "," : "", a->name, a->type ? ":" : "",
                 a->type ? a->type : "", (unsigned long long)count);
        if (a->nfiles)
            text_files (f, g, i, j);
    }
    if (fclose (f) != 0 || !buf) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}
