/* queue_sort.h - squeue's --sort and SQUEUE_SORT (queue_sort.c).
 */
#ifndef ARBOR_CLI_QUEUE_SORT_H
#define ARBOR_CLI_QUEUE_SORT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "queue_fields.h"

/* --sort: compare two rows by a list like "-t,+i" or "P,-p" (letters of
 * the -o fields, '-' descending; queue_sort.c). Parsed once by
 * queue_sort_parse (-1 with err naming a bad letter). squeue's default
 * is QUEUE_SORT: partition, then state, then priority descending. */
#define QUEUE_SORT "P,t,-p"
struct queue_sort {
    int ids[16];
    bool desc[16];
    size_t n;
};
int queue_sort_parse (const char *spec, struct queue_sort *out,
                      arbor_error_t *err);
/* Sort the n lines of v in place; ties keep the controller's order
 * (their views' places in the one job_list they all point into). */
void queue_sort_rows (struct queue_row *v, size_t n,
                      const struct queue_sort *s);

#endif
