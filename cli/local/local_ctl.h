/* local_ctl.h - the control socket of a running cluster, DIR/local.sock
 * (local_ctl.c): its server, which restarts one daemon on request, and its
 * client, "arbor local --restart" (cmd_local.c).
 */
#ifndef ARBOR_CLI_LOCAL_CTL_H
#define ARBOR_CLI_LOCAL_CTL_H

struct local;

/* The server, in the cluster's process. */
int local_ctl_listen (struct local *l);
void local_ctl_serve (struct local *l); /* one request, when readable */
void local_ctl_close (struct local *l);

/* The client of a running cluster's control socket (--restart): restart
 * daemon 'name' (the ctld or a node's noded) of the cluster in 'dir'
 * (NULL: the directory holding $ARBOR_CONF), stopping the old one with
 * signal 'sig' (a name or number; NULL: TERM), and wait for it. Returns
 * the exit status for "arbor local --restart": 0 done, 1 failed, 2 bad
 * arguments (each said on stderr). */
int local_ctl_request (const char *dir, const char *name, const char *sig);

#endif
