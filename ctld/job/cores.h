/* cores.h - a node's core mask as text and back (cores.c): how the
 * controller names a job's or step's cores in credentials and records.
 */
#ifndef ARBOR_CTLD_CORES_H
#define ARBOR_CTLD_CORES_H

#include <stdint.h>

/* Ranged text of a core mask: "0-1,4" ("" when empty). Caller frees;
 * NULL with errno ENOMEM. */
char *cores_ranged (const uint8_t *mask, uint32_t n);
/* The mask (n entries) of such a text. -1 with errno EINVAL when it is
 * malformed or names a core >= n. */
int cores_mask_parse (const char *s, uint8_t *mask, uint32_t n);

#endif
