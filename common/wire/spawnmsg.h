/* spawnmsg.h - the messages between arbor-noded and its stepd spawner.
 *
 * Starting a stepd by exec costs the exec itself, dynamic linking, the
 * configuration, the log and the proctrack plugin's setup (libcgroup's
 * mount tables), every time, on the critical path of a launch. The noded
 * instead keeps one "arbor-stepd --spawner" per node: a stepd that did all
 * of that once and then forks, per step, a child that goes on as that
 * step's stepd (stepd/spawner.c, noded/stepd_spawner.c).
 *
 * The two talk over a SOCK_SEQPACKET socketpair (the spawner's fd 0), one
 * fixed-size struct spawnmsg per packet:
 *   noded -> spawner  SPAWN  {token, value}, with one fd in SCM_RIGHTS:
 *                     the step's end of the noded<->stepd socketpair,
 *                     which becomes the new stepd's fd 0; value is the
 *                     step's MPI type (enum spawnmsg_mpi): the spawner
 *                     loads that plugin before it forks, once, so that
 *                     this stepd and the later ones find it loaded;
 *   spawner -> noded  READY, once, when it is loaded: only then does the
 *                     noded send SPAWN (a StepdPath that is no spawner,
 *                     or one that cannot start, never gets a request);
 *                     FORKED {token, pid}, or FAILED {token, errno};
 *                     EXITED {pid, wait status} when it reaps a stepd.
 * FORKED always precedes the EXITED of the same pid. Both ends are root
 * (the peer is checked with SO_PEERCRED by the spawner's parent having
 * made the pair): the checks here guard against bugs and version skew,
 * not against a hostile peer.
 */
#ifndef ARBOR_SPAWNMSG_H
#define ARBOR_SPAWNMSG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

#define SPAWNMSG_MAGIC 0x41525350u /* "ARSP" */

enum spawnmsg_kind {
    SPAWNMSG_SPAWN = 1,  /* noded -> spawner, carries an fd */
    SPAWNMSG_FORKED = 2, /* pid of the new stepd */
    SPAWNMSG_FAILED = 3, /* value: errno of fork */
    SPAWNMSG_EXITED = 4, /* pid reaped, value: wait status */
    SPAWNMSG_READY = 5,  /* loaded, serving */
};

/* SPAWN's value: the MPI plugin the step uses (none before protocol
 * additions knew of it: 0). */
enum spawnmsg_mpi {
    SPAWNMSG_MPI_NONE = 0,
    SPAWNMSG_MPI_PMIX = 1,
    SPAWNMSG_MPI_PMI2 = 2,
};

struct spawnmsg {
    uint32_t magic;
    uint32_t kind;
    uint64_t token; /* the noded's, echoed in FORKED and FAILED */
    int32_t pid;
    int32_t value;
};

/* Check a received packet of 'len' bytes (a struct spawnmsg) and copy it
 * to *m. -1 with errno EPROTO and err naming what is wrong (size, magic,
 * unknown kind, a pid that cannot be a child's, an unknown MPI type). */
int spawnmsg_parse (const void *buf, size_t len, struct spawnmsg *m,
                    arbor_error_t *err);

/* Send 'm' on the SOCK_SEQPACKET socket 'sock', with 'fd' attached when
 * fd >= 0. 0 or -1 with errno. */
int spawnmsg_send (int sock, const struct spawnmsg *m, int fd);

/* SPAWN's value for a canonical MPI type ("pmix", "pmi2"; anything else
 * and NULL: none), and back (NULL for none). */
int spawnmsg_mpi_value (const char *type);
const char *spawnmsg_mpi_name (int value);

/* Receive one packet. Returns 1 with *m (and *fd: the attached fd, or -1
 * when there was none; close-on-exec set), 0 at EOF, -1 with errno (EAGAIN
 * on a non-blocking socket with nothing to read; EPROTO with err for a
 * malformed packet, whose fds are closed). */
int spawnmsg_recv (int sock, struct spawnmsg *m, int *fd, arbor_error_t *err);

#endif
