/* local_munge.h - the cluster's munged: found, or started in DIR/munge
 * (local_munge.c). Private to cli/local/.
 */
#ifndef ARBOR_CLI_LOCAL_MUNGE_H
#define ARBOR_CLI_LOCAL_MUNGE_H

#include <stdbool.h>

struct local;

int local_munge_setup (struct local *l);
void local_munge_stop (struct local *l);
/* Did we start the cluster's munged (in DIR/munge)? */
bool local_munge_ours (const struct local *l);
/* Start our munged again, with its key (after local_ctl.c stopped it):
 * 0 once it answers; -1 with errno EPERM when the munged is not ours. */
int local_munge_restart (struct local *l);

#endif
