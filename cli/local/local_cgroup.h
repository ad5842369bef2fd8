/* local_cgroup.h - the cluster's cgroups, killed and removed at the end
 * (local_cgroup.c). Private to cli/local/.
 */
#ifndef ARBOR_CLI_LOCAL_CGROUP_H
#define ARBOR_CLI_LOCAL_CGROUP_H

struct local;

void local_cgroup_cleanup (struct local *l);
/* SIGKILL whatever still runs in the cluster's cgroups (as root). */
void local_cgroup_kill (struct local *l);

#endif
