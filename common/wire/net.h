/* net.h - sockets: TCP and unix, listen and connect, fd flags. */
#ifndef ARBOR_NET_H
#define ARBOR_NET_H

#include <stdint.h>
#include <sys/types.h>
#include "error.h"

/* Listen on addr:port (addr NULL or "" for any; port 0 for an ephemeral
 * port, reported in *bound if non-NULL). Non-blocking, close-on-exec,
 * SO_REUSEADDR. Returns the fd or -1 with errno and err. */
int net_listen_tcp (const char *addr, uint16_t port, uint16_t *bound,
                    arbor_error_t *err);

/* Connect to host:port (name or dotted quad), waiting at most timeout_ms
 * (<= 0: no limit). Returns a blocking, close-on-exec fd, or -1 with errno
 * (ECONNREFUSED, ETIMEDOUT, ...) and err ("connect 127.0.1.3:6818: ..."). */
int net_connect_tcp (const char *host, uint16_t port, int timeout_ms,
                     arbor_error_t *err);

/* Start a non-blocking connect; completion is seen when the fd becomes
 * writable (then check net_connect_finish). Returns fd or -1. */
int net_connect_tcp_start (const char *host, uint16_t port, arbor_error_t *err);
/* The same from the local address 'source' (NULL or "": any): a daemon
 * bound to its own address speaks from it too, as a separate host would. */
int net_connect_tcp_from (const char *host, uint16_t port, const char *source,
                          arbor_error_t *err);
/* 0 if the connect started by net_connect_tcp_start succeeded, else -1 with
 * errno from SO_ERROR. */
int net_connect_finish (int fd);

/* Unix stream sockets. net_listen_unix removes a stale socket first and
 * chmods it to 'mode'. */
int net_listen_unix (const char *path, mode_t mode, arbor_error_t *err);
int net_connect_unix (const char *path, arbor_error_t *err);

/* Peer credentials of a unix socket. 0 or -1 with errno. */
int net_peer_cred (int fd, uid_t *uid, gid_t *gid, pid_t *pid);

/* "127.0.1.3:34567" for a connected socket's peer, into buf. */
const char *net_peer_name (int fd, char *buf, size_t len);
/* The same for the local end ("127.0.1.3:6818": where a peer reached us). */
const char *net_local_name (int fd, char *buf, size_t len);

/* Raise the soft limit on open files to the hard limit: a daemon keeps a
 * connection per peer (1,024 nodes: over the usual soft limit of 1,024). */
void net_raise_nofile (void);

int fd_set_nonblock (int fd, int on);
int fd_set_cloexec (int fd);

/* Read/write exactly len bytes on a blocking fd, retrying EINTR and short
 * transfers. 0, or -1 with errno (EPIPE / ECONNRESET on EOF). */
int fd_read_full (int fd, void *buf, size_t len);
/* fd_read_full, giving up with ETIMEDOUT at 'deadline' (from
 * net_deadline(); 0: none). */
int fd_read_deadline (int fd, void *buf, size_t len, int64_t deadline);
/* The deadline timeout_ms from now on the monotonic clock, for
 * fd_read_deadline; 0 (none) when timeout_ms <= 0. */
int64_t net_deadline (int timeout_ms);
int fd_write_full (int fd, const void *buf, size_t len);

#endif
