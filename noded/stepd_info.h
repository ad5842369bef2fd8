/* stepd_info.h - what a noded keeps of a stepd in the spool, and the
 * stepds of a previous noded.
 *
 * stepd_info.c writes "<spool>/stepd.<job>.<step>.info" when a stepd
 * starts, deals with its end (revoked; ended by the noded if it died), and
 * at start re-finds the stepds of a previous noded and watches them.
 */
#ifndef ARBOR_NODED_STEPD_INFO_H
#define ARBOR_NODED_STEPD_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "stepd_table.h"

/* What a noded must know of a stepd once the stepd is gone, also across
 * a noded restart: kept in "<spool>/stepd.<job>.<step>.info" from the
 * stepd's start until its end has been dealt with. */
struct stepd_info {
    uint32_t job_id, step_id;
    pid_t pid;
    uid_t uid;
    gid_t gid;
    uint64_t expires;  /* unix seconds */
    uint32_t restarts; /* the job's run (revoke.h) */
};

/* Write / read / remove the record. 0 or -1 with errno (read: ENOENT when
 * there is none, EINVAL when it is malformed). */
int stepd_info_write (const struct noded *nd, const struct stepd_info *si);
int stepd_info_read (const struct noded *nd, uint32_t job, uint32_t step,
                     struct stepd_info *si);
void stepd_info_remove (const struct noded *nd, uint32_t job, uint32_t step);

/* A stepd is gone. The step is revoked until its credential expires (a
 * step that ended is as dead as a cancelled one: its credential can start
 * nothing again). 'died' (killed or crashed: it did not end its container
 * itself): the noded ends the container (stepd_orphan_start) with 'rc' as
 * the node's STEP_COMPLETE code and 'how' in the log. Else the record is
 * removed. */
void stepd_ended (struct noded *nd, const struct stepd_info *si, bool died,
                  int rc, const char *how);

/* The stepd behind the socket 'path' of (job, step) does not answer
 * (ECONNREFUSED): it died. Its container is ended if its record is known
 * (true: an orphan runs for it now), else the stale socket is removed
 * (false). */
bool stepd_socket_dead (struct noded *nd, uint32_t job, uint32_t step,
                        const char *path);

/* At start: the stepds of a previous noded, found in the spool and
 * logged at info ("found stepd 5.0 from before"). Live ones are watched
 * (a pidfd) so that their death is noticed; dead ones have their
 * container ended; records without a socket are steps that ended while
 * no noded ran: revoked. Returns how many stepd sockets were found. */
int stepd_scan (struct noded *nd);
void stepd_watch_free_all (struct stepd_table *t);

/* The part of stepd_each_of_user (stepd_track.h) for the stepds of a
 * previous noded. */
void stepd_watch_each_of_user (struct noded *nd, uid_t uid, stepd_each_f f,
                               void *arg);

/* The connection to this node's stepd of (job, step): the socketpair of
 * one we started, or the attached connection of one from before a
 * restart. NULL if there is none. Borrowed. */
struct conn *stepd_conn_find (struct noded *nd, uint32_t job, uint32_t step);

#endif
