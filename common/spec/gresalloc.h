/* gresalloc.h - the generic resources a job or a step holds on one node,
 * as the controller writes them into a step's credential and the node's
 * step daemon reads them (issue 35).
 *
 *   gpu=0-1,3;nic=0;mps*100
 *
 * One item per resource name, ';' between them: NAME=INDICES for the
 * devices held by their index on the node (the numbering of
 * common/conf/gresnode.h: units of one name across its items, from 0),
 * NAME*COUNT for a count of a resource kept by count only. "" holds
 * nothing. Bounded: GRESALLOC_MAX items, indices below GRESALLOC_IDX_MAX.
 */
#ifndef ARBOR_GRESALLOC_H
#define ARBOR_GRESALLOC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define GRESALLOC_MAX 16
#define GRESALLOC_IDX_MAX 1024 /* indices 0..1023 */
#define GRESALLOC_NAME_MAX 31

struct gresalloc_item {
    char name[GRESALLOC_NAME_MAX + 1];
    bool indexed;   /* devices by index (bits), else a count */
    uint64_t count; /* units held: the bits set, or the count */
    uint64_t bits[GRESALLOC_IDX_MAX / 64];
};

struct gresalloc {
    struct gresalloc_item v[GRESALLOC_MAX];
    size_t n;
};

/* Parse 's' (NULL or "": nothing). 0, or -1 with errno EINVAL and err
 * ("invalid resources \"gpu=x\": ..."); *out is then empty. */
int gresalloc_parse (const char *s, struct gresalloc *out, arbor_error_t *err);
/* As text; "" for nothing. Writes at most len bytes, NUL included (a
 * text that does not fit is cut: size len for the worst case,
 * GRESALLOC_TEXT_MAX). Returns buf. */
#define GRESALLOC_TEXT_MAX 8192
const char *gresalloc_text (const struct gresalloc *a, char *buf, size_t len);
/* Item 'name', or NULL. */
const struct gresalloc_item *gresalloc_find (const struct gresalloc *a,
                                             const char *name);
/* Item 'name', added (empty, indexed or not) when missing; NULL when
 * full. */
struct gresalloc_item *gresalloc_get (struct gresalloc *a, const char *name,
                                      bool indexed);
/* Index i held by item it? */
bool gresalloc_has (const struct gresalloc_item *it, uint32_t i);
/* Hold index i (i < GRESALLOC_IDX_MAX), counted once. */
void gresalloc_set (struct gresalloc_item *it, uint32_t i);
/* The indices of 'it' as a list "0-1,3" (Slurm's IDX: form; "" none).
 * Returns buf. */
const char *gresalloc_indices (const struct gresalloc_item *it, char *buf,
                               size_t len);

#endif
