/* queue_sort.c - squeue's --sort (and SQUEUE_SORT). See queue_fields.h.
 *
 * A key is a -o letter, '+' (the default) ascending or '-' descending.
 * Numbers (ids, counts, times, priorities) compare as numbers, states in
 * their order (PENDING first), the rest as text. Ties keep the
 * controller's order (submission).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "queue_fields.h"

#define QUEUE_SORT_MAX (sizeof (((struct queue_sort *)0)->ids) / sizeof (int))

static int queue_letter_id (char c)
{
    for (size_t i = 0; c && i < queue_nfields; i++)
        if (queue_fields[i].letter == c)
            return queue_fields[i].id;
    return -1;
}

int queue_sort_parse (const char *spec, struct queue_sort *out,
                      arbor_error_t *err)
{
    const char *s = spec;

    out->n = 0;
    while (*s) {
        bool desc = false;
        int id;
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '+' || *s == '-')
            desc = *s++ == '-';
        if ((id = queue_letter_id (*s)) < 0 || out->n == QUEUE_SORT_MAX) {
            errno = EINVAL;
            return errprintf (err, "invalid sort key '%.1s' in '%s'",
                              *s ? s : "", spec);
        }
        out->ids[out->n] = id;
        out->desc[out->n++] = desc;
        s++;
    }
    return 0;
}

struct queue_sort_ctx {
    const struct msg_job_info_reply *r;
    const struct queue_sort *s;
    time_t now;
};

static int queue_key_cmp (const struct queue_sort_ctx *c, int id, uint32_t a,
                          uint32_t b)
{
    struct queue_row ra = { c->r, a, c->now, NULL };
    struct queue_row rb = { c->r, b, c->now, NULL };
    char ba[1024], bb[1024];
    double va, vb;

    if (queue_field_number (id, &ra, &va) && queue_field_number (id, &rb, &vb))
        return va < vb ? -1 : va > vb;
    return strcmp (queue_field_value (id, &ra, ba, sizeof (ba)),
                   queue_field_value (id, &rb, bb, sizeof (bb)));
}

static int queue_row_cmp (const void *pa, const void *pb, void *arg)
{
    const struct queue_sort_ctx *c = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

    for (size_t k = 0; k < c->s->n; k++) {
        int d = queue_key_cmp (c, c->s->ids[k], a, b);
        if (d)
            return c->s->desc[k] ? -d : d;
    }
    return a < b ? -1 : a > b;
}

void queue_sort_rows (const struct msg_job_info_reply *r,
                      const struct queue_sort *s, time_t now, uint32_t *idx)
{
    struct queue_sort_ctx c = { r, s, now };

    for (uint32_t i = 0; i < r->job_ids_count; i++)
        idx[i] = i;
    qsort_r (idx, r->job_ids_count, sizeof (*idx), queue_row_cmp, &c);
}
