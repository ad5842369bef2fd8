/* local_proc.h - the cluster's processes (local_proc.c): spawn the
 * daemons, wait for them to come up, reap them, and tear everything down.
 * Private to cli/local/.
 */
#ifndef ARBOR_CLI_LOCAL_PROC_H
#define ARBOR_CLI_LOCAL_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct local;

long local_now_ms (void); /* CLOCK_MONOTONIC, milliseconds */
void local_sleep_ms (int ms);
int local_spawn_daemons (struct local *l);
/* (Re)start the ctld (node < 0) or the noded of conf node 'node'. */
int local_spawn_one (struct local *l, ssize_t node);
/* NODE_INFO for every node into *r (cleared first when *have). 0 / -1. */
struct auth;
struct msg_node_info_reply;
int local_query_nodes (struct local *l, struct auth *a,
                       struct msg_node_info_reply *r, bool *have);
int local_wait_ready (struct local *l);
pid_t local_spawn_cmd (struct local *l);
void local_reap (struct local *l);
void local_teardown (struct local *l);
void local_print_tail (const char *path, int lines);

#endif
