/* spawn.h - run a program for the controller without blocking its loop:
 * trigger programs (trigger.h) and MailProg (mail.h).
 *
 * The program is executed directly (no shell) in a session and process
 * group of its own, with stdin, stdout and stderr on /dev/null, the
 * working directory "/", default signal dispositions and only the
 * environment given. With 'as_user' it runs as uid/gid with the given
 * supplementary groups (the controller must be root); else as the
 * controller itself. An ev_child watcher reports its end; after
 * 'timeout' seconds its whole process group is SIGKILLed. Between fork
 * and exec the child calls only async-signal-safe functions: the
 * controller has threads (the state writer, the backfill worker), and
 * anything else could deadlock on a lock one of them held at the fork.
 */
#ifndef ARBOR_CTLD_SPAWN_H
#define ARBOR_CTLD_SPAWN_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

struct spawned;

struct spawn_req {
    const char *path;  /* absolute */
    char *const *argv; /* NULL-terminated; argv[0] as the program sees it */
    char *const *env;  /* NULL-terminated */
    bool as_user;      /* switch to uid/gid/groups below */
    uid_t uid;
    gid_t gid;
    const uint32_t *groups; /* supplementary groups; NULL: just gid */
    uint32_t ngroups;
    double timeout; /* s; 0: none */
};

/* The program ended: its wait status; timed_out when the timeout killed
 * it. The handle is freed once this returns. */
typedef void (*spawn_done_f) (int status, bool timed_out, void *arg);

/* Start r->path. 'cb' is never called from inside this call. Returns
 * the handle, or NULL with errno and err ("fork: ..."). A program that
 * cannot be executed (missing, not executable, bad user) ends with
 * status 127 (126: the user could not be switched to). Uses ev_child:
 * 'loop' must be the default loop. */
struct spawned *spawn_start (struct ev_loop *loop, const struct spawn_req *r,
                             spawn_done_f cb, void *arg, arbor_error_t *err);

/* Its pid (also its process group). */
pid_t spawn_pid (const struct spawned *s);

/* Stop watching without calling back; a program still running has its
 * group SIGKILLed when 'kill' (libev reaps it), else it goes on, no
 * longer timed (the controller is stopping: a mail or trigger program
 * under way is let finish). NULL accepted. */
void spawn_cancel (struct spawned *s, bool kill);

/* Wait status as words for the log: "exit 3", "signal 9". Returns buf. */
const char *spawn_status_str (int status, char *buf, size_t len);

#endif
