/* control_hosts.c - show hostnames and show hostlist; see control_hosts.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "control_hosts.h"
#include "hostlist.h"

int control_hostnames (const char *expr, FILE *f, arbor_error_t *err)
{
    struct hostlist *hl = hostlist_create (expr, err);

    if (!hl)
        return -1;
    for (size_t i = 0; i < hostlist_count (hl); i++)
        fprintf (f, "%s\n", hostlist_nth (hl, i));
    hostlist_destroy (hl);
    return 0;
}

int control_hostlist (const char *expr, FILE *f, arbor_error_t *err)
{
    struct hostlist *hl = hostlist_create (expr, err);
    char *ranged;

    if (!hl)
        return -1;
    if (!(ranged = hostlist_ranged (hl))) {
        hostlist_destroy (hl);
        return errprintf (err, "out of memory");
    }
    fprintf (f, "%s\n", ranged);
    free (ranged);
    hostlist_destroy (hl);
    return 0;
}
