/* info_rows.c - sinfo's lines. See info_rows.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "info_rows.h"
#include "jobsel.h"
#include "states.h"

#define ST(s) (1u << (s))
#define INFO_NO_RESPOND (1u << 30)

/* -t's words: sinfo's state names and abbreviations. A mask of 0 is a
 * state Arbor's nodes are never in. */
static const struct {
    const char *name;
    uint32_t mask;
} info_state_words[] = {
    { "alloc", ST (NODE_STATE_ALLOCATED) },
    { "allocated", ST (NODE_STATE_ALLOCATED) },
    { "comp", ST (NODE_STATE_COMPLETING) },
    { "completing", ST (NODE_STATE_COMPLETING) },
    { "down", ST (NODE_STATE_DOWN) },
    { "drain", ST (NODE_STATE_DRAIN) | ST (NODE_STATE_DRAINING) },
    { "drained", ST (NODE_STATE_DRAIN) },
    { "draining", ST (NODE_STATE_DRAINING) },
    { "drng", ST (NODE_STATE_DRAINING) },
    { "idle", ST (NODE_STATE_IDLE) },
    { "mix", ST (NODE_STATE_MIXED) },
    { "mixed", ST (NODE_STATE_MIXED) },
    { "unk", ST (NODE_STATE_UNKNOWN) },
    { "unknown", ST (NODE_STATE_UNKNOWN) },
    { "no_respond", INFO_NO_RESPOND },
    { "cloud", 0 },
    { "fail", 0 },
    { "failing", 0 },
    { "future", 0 },
    { "futr", 0 },
    { "maint", 0 },
    { "npc", 0 },
    { "perfctrs", 0 },
    { "planned", 0 },
    { "power_down", 0 },
    { "powering_down", 0 },
    { "powered_down", 0 },
    { "powering_up", 0 },
    { "reboot_issued", 0 },
    { "reboot_requested", 0 },
    { "resv", 0 },
    { "reserved", 0 },
};

static int info_state_word (const char *w, size_t len, uint32_t *mask)
{
    for (size_t k = 0;
         k < sizeof (info_state_words) / sizeof (*info_state_words); k++) {
        if (strlen (info_state_words[k].name) == len
            && !strncasecmp (info_state_words[k].name, w, len)) {
            *mask = info_state_words[k].mask;
            return 0;
        }
    }
    return -1;
}

int info_states_parse (const char *list, struct info_states *out,
                       arbor_error_t *err)
{
    const char *s = list;

    *out = (struct info_states){ .all = strchr (list, '&') != NULL };
    if (out->all && strchr (list, ',')) {
        errno = EINVAL;
        return errprintf (err, "states may be separated by ',' or by '&', "
                               "not both");
    }
    while (*s) {
        size_t len = strcspn (s, ",&");
        uint32_t mask;
        if (len > 0 && info_state_word (s, len, &mask) < 0) {
            errno = EINVAL;
            return errprintf (err, "Invalid node state specified: %.*s",
                              (int)len, s);
        }
        if (len > 0 && out->n < INFO_STATES_MAX)
            out->masks[out->n++] = mask;
        s += len + (s[len] != '\0');
    }
    return 0;
}

static uint32_t info_node_bits (const struct msg_node_info_reply *r, uint32_t i)
{
    int st = info_node_state (r, i);

    return (st < NODE_STATE_COUNT ? ST (st) : 0)
           | (info_node_responding (r, i) ? 0 : INFO_NO_RESPOND);
}

static bool info_states_match (const struct info_states *s, uint32_t bits)
{
    for (size_t k = 0; k < s->n; k++) {
        bool hit = (s->masks[k] & bits) != 0;
        if (hit && !s->all)
            return true;
        if (!hit && s->all)
            return false;
    }
    return s->all && s->n > 0;
}

bool info_node_wanted (const struct msg_node_info_reply *r, uint32_t i,
                       const struct info_filter *flt)
{
    uint32_t bits = info_node_bits (r, i);
    bool responding = info_node_responding (r, i);

    if (flt->reasons
        && !(bits
             & (ST (NODE_STATE_DOWN) | ST (NODE_STATE_DRAIN)
                | ST (NODE_STATE_DRAINING))))
        return false;
    if (flt->responding >= 0 && responding != (flt->responding > 0))
        return false;
    return !flt->states || info_states_match (flt->states, bits);
}

bool info_part_wanted (const struct info_filter *flt, const char *name)
{
    return !flt->partitions || jobsel_in_list (flt->partitions, name, false);
}

bool info_node_in (const struct msg_node_info_reply *r, uint32_t i,
                   const char *name)
{
    return i < r->partitions_count && r->partitions[i]
           && jobsel_in_list (r->partitions[i], name, false);
}

/* In some partition that -p lets through ("any" without -p). */
static bool info_node_in_wanted (const struct info_data *d, uint32_t i,
                                 const struct info_filter *flt)
{
    if (!flt->partitions)
        return true;
    for (size_t p = 0; d->conf && p < d->conf->nparts; p++)
        if (info_part_wanted (flt, d->conf->parts[p].name)
            && info_node_in (d->r, i, d->conf->parts[p].name))
            return true;
    return false;
}

void info_rows_free (struct info_rows *rows)
{
    if (!rows)
        return;
    for (size_t k = 0; k < rows->n; k++) {
        free (rows->v[k].nodes);
        free (rows->v[k].key);
        free (rows->v[k].names);
        free (rows->v[k].addrs);
    }
    free (rows->v);
    *rows = (struct info_rows){ 0 };
}

static bool info_keyed (const struct info_data *d, int id)
{
    enum info_kind k = info_field_kind (id);

    return k == INFO_NODE || (k == INFO_RANGE && d->exact);
}

/* What node i prints in the per-node fields of 'f': nodes with the
 * same key share a line. Caller frees. */
static char *info_key (const struct info_data *d, const struct fmt *f, int part,
                       uint32_t i)
{
    struct info_row one = { .d = d, .part = part, .nodes = &i, .nnodes = 1 };
    char *key = NULL, buf[1024];
    size_t len = 0;
    FILE *m = open_memstream (&key, &len);

    if (!m)
        return NULL;
    for (size_t k = 0; k < f->n; k++)
        if (f->v[k].id >= 0 && info_keyed (d, f->v[k].id))
            fprintf (m, "%s\037",
                     info_field_value (f->v[k].id, &one, buf, sizeof (buf)));
    if (fclose (m) != 0) {
        free (key);
        return NULL;
    }
    return key;
}

static struct info_row *info_row_find (struct info_rows *rows, int part,
                                       const char *key)
{
    for (size_t k = rows->n; k-- > 0;)
        if (rows->v[k].part == part && !strcmp (rows->v[k].key, key))
            return &rows->v[k];
    return NULL;
}

/* Node i onto its line of partition 'part' (a new one if none; with
 * -N always a new one, which needs no key). */
static int info_row_add (const struct info_data *d, const struct fmt *f,
                         struct info_rows *rows, int part, uint32_t i,
                         bool node_view)
{
    char *key = node_view ? NULL : info_key (d, f, part, i);
    struct info_row *row = NULL, *v;
    uint32_t *nodes;

    if (!node_view && !key)
        return -1;
    if (node_view || !(row = info_row_find (rows, part, key))) {
        if (!(v = realloc (rows->v, (rows->n + 1) * sizeof (*v)))) {
            free (key);
            return -1;
        }
        rows->v = v;
        row = &v[rows->n];
        *row = (struct info_row){ .d = d, .part = part, .seq = rows->n };
        rows->n++;
        row->key = key;
    } else
        free (key);
    if (!(nodes = realloc (row->nodes, (row->nnodes + 1) * sizeof (*nodes))))
        return -1;
    row->nodes = nodes;
    row->nodes[row->nnodes++] = i;
    return 0;
}

static bool info_per_part (const struct fmt *f)
{
    for (size_t k = 0; k < f->n; k++)
        if (f->v[k].id >= 0 && info_field_kind (f->v[k].id) == INFO_PART)
            return true;
    return false;
}

/* Each partition's lines; with -N (and no -p) nodes in no partition
 * too, as "n/a". */
static int info_rows_parts (const struct info_data *d, const struct fmt *f,
                            const struct info_filter *flt, bool node_view,
                            struct info_rows *out)
{
    const struct msg_node_info_reply *r = d->r;

    for (size_t p = 0; d->conf && p < d->conf->nparts; p++) {
        const char *name = d->conf->parts[p].name;
        if (!info_part_wanted (flt, name))
            continue;
        for (uint32_t i = 0; i < r->names_count; i++)
            if (info_node_in (r, i, name) && info_node_wanted (r, i, flt)
                && info_row_add (d, f, out, (int)p, i, node_view) < 0)
                return -1;
    }
    for (uint32_t i = 0; node_view && !flt->partitions && i < r->names_count;
         i++)
        if (!*(i < r->partitions_count && r->partitions[i] ? r->partitions[i]
                                                           : "")
            && info_node_wanted (r, i, flt)
            && info_row_add (d, f, out, -1, i, node_view) < 0)
            return -1;
    return 0;
}

int info_rows_build (const struct info_data *d, const struct fmt *f,
                     const struct info_filter *flt, bool node_view,
                     struct info_rows *out)
{
    const struct msg_node_info_reply *r = d->r;
    int rc = 0;

    *out = (struct info_rows){ 0 };
    if (info_per_part (f))
        rc = info_rows_parts (d, f, flt, node_view, out);
    else
        for (uint32_t i = 0; i < r->names_count && rc == 0; i++)
            if (info_node_in_wanted (d, i, flt) && info_node_wanted (r, i, flt))
                rc = info_row_add (d, f, out, -1, i, node_view);
    for (size_t k = 0; k < out->n && rc == 0; k++)
        if (!(out->v[k].names = info_ranged (&out->v[k], false))
            || !(out->v[k].addrs = info_ranged (&out->v[k], true)))
            rc = -1;
    if (rc < 0) {
        info_rows_free (out);
        errno = ENOMEM;
    }
    return rc;
}

static const struct fmt_def *info_letter (char c)
{
    for (size_t k = 0; c && k < info_nfields; k++)
        if (info_fields[k].letter == c)
            return &info_fields[k];
    return NULL;
}

int info_sort_parse (const char *spec, struct info_sort *out,
                     arbor_error_t *err)
{
    const char *s = spec;

    *out = (struct info_sort){ 0 };
    while (*s) {
        size_t len = strcspn (s, ",");
        const char *w = s, *end = s + len;
        bool desc = false, conf_order = false;
        const struct fmt_def *d;
        if (w < end && (*w == '+' || *w == '-'))
            desc = *w++ == '-';
        if (w < end && *w == '#')
            conf_order = *w++ == '#';
        d = w + 1 == end ? info_letter (*w) : NULL;
        if (len > 0 && (!d || (conf_order && d->letter != 'P'))) {
            errno = EINVAL;
            return errprintf (err, "Invalid sort specification: %.*s", (int)len,
                              s);
        }
        if (len > 0 && out->n < INFO_SORT_MAX) {
            out->ids[out->n] = d->id;
            out->desc[out->n] = desc;
            out->conf_order[out->n++] = conf_order;
        }
        s += len + (s[len] == ',');
    }
    return 0;
}

/* The first node's name: -N's lines sort by it, numbers as numbers
 * (node2 before node10). */
static const char *info_first_name (const struct info_row *row)
{
    const struct msg_node_info_reply *r = row->d->r;
    uint32_t i = row->nnodes ? row->nodes[0] : UINT32_MAX;

    return i < r->names_count && r->names[i] ? r->names[i] : "";
}

static int info_cmp_key (const struct info_row *a, const struct info_row *b,
                         int id, bool conf_order)
{
    char ba[1024], bb[1024];
    double x, y;
    const struct fmt_def *n = info_letter ('N'), *h = info_letter ('n');

    if (conf_order) { /* lines of no partition last */
        long pa = a->part < 0 ? LONG_MAX : a->part;
        long pb = b->part < 0 ? LONG_MAX : b->part;
        return pa < pb ? -1 : pa > pb;
    }
    if (id == n->id || id == h->id)
        return strverscmp (info_first_name (a), info_first_name (b));
    if (info_field_number (id, a, &x) && info_field_number (id, b, &y))
        return x < y ? -1 : x > y;
    return strcmp (info_field_value (id, a, ba, sizeof (ba)),
                   info_field_value (id, b, bb, sizeof (bb)));
}

static int info_cmp_rows (const void *pa, const void *pb, void *arg)
{
    const struct info_row *a = pa, *b = pb;
    const struct info_sort *s = arg;

    for (size_t k = 0; k < s->n; k++) {
        int c = info_cmp_key (a, b, s->ids[k], s->conf_order[k]);
        if (c)
            return s->desc[k] ? -c : c;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void info_rows_sort (struct info_rows *rows, const struct info_sort *s)
{
    if (rows->n > 1)
        qsort_r (rows->v, rows->n, sizeof (*rows->v), info_cmp_rows, (void *)s);
}

/* 'spec' without the '#' of "%#P" / "%.#P"; auto[k] is set for the
 * k-th field that had one. Caller frees. */
static char *info_strip_auto (const char *spec, bool *autow)
{
    char *out = malloc (strlen (spec) + 1), *o = out;
    size_t k = 0;

    for (const char *s = spec; out && *s;) {
        if (*s != '%' || s[1] == '%') {
            if (*s == '%')
                *o++ = *s++; /* "%%" */
            *o++ = *s++;
            continue;
        }
        *o++ = *s++;
        if (*s == '.')
            *o++ = *s++;
        if ((autow[k++] = *s == '#'))
            s++;
    }
    if (out)
        *o = '\0';
    return out;
}

int info_format_parse (const char *spec, struct fmt *out, arbor_error_t *err)
{
    bool *autow = calloc (strlen (spec) + 1, sizeof (bool));
    char *plain = autow ? info_strip_auto (spec, autow) : NULL;
    size_t k = 0;
    int rc;

    if (!plain) {
        free (autow);
        *out = (struct fmt){ 0 };
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    rc = fmt_parse (plain, info_fields, info_nfields, out, err);
    for (size_t i = 0; rc == 0 && i < out->n; i++)
        if (out->v[i].id >= 0 && autow[k++])
            out->v[i].width = INFO_WIDTH_AUTO;
    free (plain);
    free (autow);
    return rc;
}

void info_format_widths (struct fmt *f, const struct info_rows *rows)
{
    char buf[1024];

    for (size_t i = 0; i < f->n; i++) {
        struct fmt_item *it = &f->v[i];
        size_t w = INFO_WIDTH_MIN;
        if (it->id < 0 || it->width != INFO_WIDTH_AUTO)
            continue;
        if (strlen (it->text) > w)
            w = strlen (it->text);
        for (size_t k = 0; k < rows->n; k++) {
            size_t n = strlen (
                info_field_value (it->id, &rows->v[k], buf, sizeof (buf)));
            w = n > w ? n : w;
        }
        it->width = (int)w;
    }
}
