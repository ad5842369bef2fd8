/* control_hosts.h - arbor control show hostnames | hostlist: host lists
 * expanded or ranged, locally (no controller).
 *
 *     show hostnames node[1-3],login  ->  node1 node2 node3 login
 *                                         (one a line)
 *     show hostlist node1,node2,node3  ->  node[1-3]
 *
 * Order is kept as written (common/util/hostlist.h). Pure functions, unit
 * tested.
 */
#ifndef ARBOR_CLI_CONTROL_HOSTS_H
#define ARBOR_CLI_CONTROL_HOSTS_H

#include <stdio.h>

#include "error.h"

/* Write each host of 'expr' on its own line to f. 0, or -1 with errno
 * and err (EINVAL: a malformed list, named as hostlist.h names it). */
int control_hostnames (const char *expr, FILE *f, arbor_error_t *err);

/* Write the ranged form of the hosts of 'expr' (a comma-separated list,
 * itself possibly ranged) and a newline to f. 0, or -1 with errno and
 * err. */
int control_hostlist (const char *expr, FILE *f, arbor_error_t *err);

#endif
