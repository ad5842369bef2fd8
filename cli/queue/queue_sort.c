/* queue_sort.c - squeue's --sort (and SQUEUE_SORT). See queue_sort.h.
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
#include "queue_sort.h"

#define QUEUE_SORT_MAX (sizeof (((struct queue_sort *)0)->ids) / sizeof (int))

static int queue_letter_id (char c)
{
    size_t n;
    const struct fmt_def *defs = queue_field_defs (&n);

    for (size_t i = 0; c && i < n; i++)
        if (defs[i].letter == c)
            return defs[i].id;
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

static int queue_key_cmp (int id, const struct queue_row *a,
                          const struct queue_row *b)
{
    char ba[1024], bb[1024];
    double va, vb;

    if (queue_field_number (id, a, &va) && queue_field_number (id, b, &vb))
        return va < vb ? -1 : va > vb;
    return strcmp (queue_field_value (id, a, ba, sizeof (ba)),
                   queue_field_value (id, b, bb, sizeof (bb)));
}

static int queue_row_cmp (const void *pa, const void *pb, void *arg)
{
    const struct queue_sort *s = arg;
    const struct queue_row *a = pa, *b = pb;

    for (size_t k = 0; k < s->n; k++) {
        int d = queue_key_cmp (s->ids[k], a, b);
        if (d)
            return s->desc[k] ? -d : d;
    }
    /* the views of one listing lie in one array, in the controller's
     * order: their addresses are that order */
    return a->job < b->job ? -1 : a->job > b->job;
}

void queue_sort_rows (struct queue_row *v, size_t n, const struct queue_sort *s)
{
    /* qsort_r's context is not const */
    qsort_r (v, n, sizeof (*v), queue_row_cmp, (void *)s);
}
