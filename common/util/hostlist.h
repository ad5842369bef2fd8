/* hostlist.h - ordered lists of host names and their ranged form.
 *
 * "n[001-003,010],login1" <-> n001 n002 n003 n010 login1. Order is kept as
 * written (no sorting); duplicates are kept. Several bracket groups in one
 * name ("r[1-2]n[1-2]") expand as a cross product, leftmost slowest.
 * Zero padding is kept: "n[08-10]" gives n08 n09 n10. Used for NodeName,
 * NodeAddr and Nodes in arbor.conf and for -w/-x on the command line.
 */
#ifndef ARBOR_HOSTLIST_H
#define ARBOR_HOSTLIST_H

#include <stddef.h>
#include "error.h"

struct hostlist;

/* Parse 'expr' (NULL or "" gives an empty list). Returns NULL with errno
 * EINVAL and 'err' naming the problem on a malformed expression, ENOMEM on
 * allocation failure. Expansions over 1,000,000 hosts are refused. */
struct hostlist *hostlist_create (const char *expr, arbor_error_t *err);
void hostlist_destroy (struct hostlist *hl);

size_t hostlist_count (const struct hostlist *hl);
/* Borrowed; valid until the list is changed or destroyed. NULL if out of
 * range. */
const char *hostlist_nth (const struct hostlist *hl, size_t i);
/* Index of the first 'host', or -1. */
int hostlist_find (const struct hostlist *hl, const char *host);
/* For many lookups in one list (a launch checks each node of its slice
 * against the credential's list): hostlist_find's answer in O(log n),
 * after an O(n log n) build. Valid while 'hl' is not changed. NULL with
 * errno ENOMEM. */
struct hostlist_index;
struct hostlist_index *hostlist_index_create (const struct hostlist *hl);
int hostlist_index_find (const struct hostlist_index *ix, const char *host);
void hostlist_index_destroy (struct hostlist_index *ix);
/* Append one plain host name (no brackets). 0 or -1 with errno. */
int hostlist_append (struct hostlist *hl, const char *host);
/* Append every host of 'expr'. 0 or -1 with errno and err. */
int hostlist_append_expr (struct hostlist *hl, const char *expr,
                          arbor_error_t *err);

/* The ranged form, order preserved: consecutive hosts with the same prefix,
 * suffix-free numeric tail and width merge ("n1 n2 n3 x n5" -> "n[1-3],x,n5").
 * Caller frees. NULL with errno ENOMEM. An empty list gives "". */
char *hostlist_ranged (const struct hostlist *hl);

#endif
