/* local_netns.h - the network namespaces of --netns (local_netns.c;
 * docs/netns.md). Private to cli/local/.
 */
#ifndef ARBOR_CLI_LOCAL_NETNS_H
#define ARBOR_CLI_LOCAL_NETNS_H

#include <stddef.h>
#include <sys/types.h>

struct local;

/* --netns, each node and the ctld in its own network and
 * UTS namespace on a private bridge. Setup makes them (removing those of
 * clusters that died first); enter runs in a daemon's child before exec
 * (node < 0: the ctld), -1 with the reason on stderr; destroy removes
 * them. local_netns_addr: NET.host into buf (nodeK is host K). */
#define LOCAL_NETNS_MAX_NODES 250
#define LOCAL_NETNS_CTLD_HOST 253
int local_netns_setup (struct local *l);
int local_netns_enter (const struct local *l, ssize_t node);
void local_netns_destroy (struct local *l);
int local_netns_addr (const struct local *l, unsigned host, char *buf,
                      size_t len);

#endif
