/* spawner.c - arbor-stepd --spawner: a stepd made ready once, forked per
 * step.
 *
 * An exec'd stepd spends most of its start on things that are the same
 * for every step of a node: the exec, dynamic linking, the configuration,
 * the log, and ProctrackType's setup (libcgroup reads the mount tables and
 * clears a table of close to a megabyte). The noded keeps one spawner per
 * node that did all of that once (stepd_load); for each step the noded
 * sends SPAWN with the step's end of a socketpair (spawnmsg.h) and the
 * spawner forks: the child is that step's stepd, exactly as if it had been
 * exec'd (its own session, the socketpair as fd 0, nothing of the
 * spawner's open), and goes on with stepd_start. The spawner stays single
 * threaded and never runs an event loop, so a fork copies nothing that
 * could be mid-change.
 *
 * The spawner reaps its children and reports each exit status (EXITED):
 * the noded learns of a stepd's end as it would from waitpid. When the
 * noded closes the socket (it exits or restarts), the spawner exits and
 * leaves the stepds running, as an exec'd stepd outlives its noded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "session.h"
#include "spawnmsg.h"
#include "spawner.h"
#include "step_mpi.h"

struct spawner {
    struct stepd *sd; /* what the children go on with */
    int sock;         /* the noded's SOCK_SEQPACKET end */
    int sig_fd;       /* signalfd for SIGCHLD */
    sigset_t mask;    /* the mask to give children back */
};

/* Mappings larger than this are not scanned (a library's .bss is far
 * smaller; a sanitizer's reservations are not). */
#define SHRINK_MAX_MAPPING (64ul << 20)

/* Reads whole pages of a library's .bss, redzones and all: not for the
 * address sanitizer to check. */
__attribute__ ((no_sanitize_address)) static bool page_is_zero (
    const uint64_t *p, size_t words)
{
    for (size_t i = 0; i < words; i++)
        if (p[i])
            return false;
    return true;
}

/* Is this /proc/self/maps line the anonymous rest of a shared library's
 * .bss: private, writable, no file, and right after the library's own
 * mapping ('prev_end', 'prev_is_lib')? */
static bool maps_lib_bss (const char *line, unsigned long prev_end,
                          bool prev_is_lib, unsigned long *lo,
                          unsigned long *hi)
{
    unsigned long inode;
    char perms[8];

    return sscanf (line, "%lx-%lx %7s %*s %*s %lu", lo, hi, perms, &inode) == 4
           && !strcmp (perms, "rw-p") && inode == 0 && *lo == prev_end
           && prev_is_lib && *hi - *lo <= SHRINK_MAX_MAPPING;
}

/* Give back the all-zero pages of the shared libraries' .bss. Most of it
 * is libcgroup's mount table, 820 KB that cgroup_init clears and fills a
 * few entries of: every stepd forked from us would copy those page table
 * entries and carry the pages in its resident set (VmRSS). A dropped page
 * reads as zeros again, so nothing changes but the memory; we are single
 * threaded, so nothing writes to a page between the check and the drop. */
static void spawner_shrink (void)
{
    long psz = sysconf (_SC_PAGESIZE);
    unsigned long prev_end = 0, lo, hi;
    bool prev_is_lib = false;
    char line[512];
    size_t dropped = 0;
    FILE *f = fopen ("/proc/self/maps", "re");

    if (!f || psz <= 0)
        goto out;
    while (fgets (line, sizeof (line), f)) {
        if (maps_lib_bss (line, prev_end, prev_is_lib, &lo, &hi)) {
            for (unsigned long a = lo; a + (unsigned long)psz <= hi; a += psz)
                if (page_is_zero ((const uint64_t *)a, (size_t)psz / 8)
                    && madvise ((void *)a, (size_t)psz, MADV_DONTNEED) == 0)
                    dropped++;
        }
        if (sscanf (line, "%*[0-9a-f]-%lx", &prev_end) != 1)
            prev_end = 0;
        prev_is_lib = strstr (line, ".so") != NULL;
    }
out:
    if (f)
        fclose (f);
    log_debug ("spawner: %zu zero pages given back", dropped);
}

static void spawner_report (struct spawner *sp, uint32_t kind, uint64_t token,
                            pid_t pid, int value)
{
    struct spawnmsg m = { .magic = SPAWNMSG_MAGIC,
                          .kind = kind,
                          .token = token,
                          .pid = (int32_t)pid,
                          .value = value };

    if (spawnmsg_send (sp->sock, &m, -1) < 0 && errno != EPIPE)
        log_warn ("spawner: cannot report to the noded: %s", strerror (errno));
}

static void spawner_reap (struct spawner *sp)
{
    struct signalfd_siginfo si;
    pid_t pid;
    int status;

    while (read (sp->sig_fd, &si, sizeof (si)) == sizeof (si))
        ; /* drained: one waitpid loop covers them all */
    while ((pid = waitpid (-1, &status, WNOHANG)) > 0)
        spawner_report (sp, SPAWNMSG_EXITED, 0, pid, status);
}

/* In the new child: become a stepd as an exec'd one starts (see
 * noded/stepd_spawn.c's posix_spawn): own session, the spawner's original
 * signal mask, the socketpair as fd 0, none of the spawner's descriptors.
 * A child that cannot exits 1: the noded reports it as a stepd that
 * exited before starting its tasks. */
static void spawner_child (struct spawner *sp, int fd)
{
    close (sp->sock);
    close (sp->sig_fd);
    sigprocmask (SIG_SETMASK, &sp->mask, NULL);
    if (setsid () < 0 || dup2 (fd, STDIN_FILENO) < 0) {
        log_err ("spawner: new stepd: %s", strerror (errno));
        _exit (1);
    }
    close (fd);
}

/* One SPAWN: fork. Returns 1 in the child, 0 in the spawner. */
static int spawner_fork (struct spawner *sp, const struct spawnmsg *req, int fd)
{
    pid_t pid = fork ();

    if (pid == 0) {
        spawner_child (sp, fd);
        return 1;
    }
    close (fd);
    if (pid < 0) {
        log_err ("spawner: fork: %s", strerror (errno));
        spawner_report (sp, SPAWNMSG_FAILED, req->token, 0, errno);
    } else
        spawner_report (sp, SPAWNMSG_FORKED, req->token, pid, 0);
    return 0;
}

/* A packet from the noded. Returns 1 in a new child, 0 to go on, -1 at
 * EOF (or a dead socket). */
static int spawner_request (struct spawner *sp)
{
    struct spawnmsg m;
    arbor_error_t perr = { "" };
    int fd, rc = spawnmsg_recv (sp->sock, &m, &fd, &perr);

    if (rc == 0 || (rc < 0 && errno != EPROTO && errno != EAGAIN))
        return -1;
    if (rc < 0) {
        if (errno == EPROTO)
            log_err ("spawner: %s", perr.text);
        return 0;
    }
    if (m.kind != SPAWNMSG_SPAWN || fd < 0) {
        log_err ("spawner: unexpected message (kind %u, %s fd)",
                 (unsigned)m.kind, fd < 0 ? "no" : "an");
        if (fd >= 0)
            close (fd);
        return 0;
    }
    if (spawnmsg_mpi_name (m.value))
        mpi_preload (sp->sd, spawnmsg_mpi_name (m.value));
    return spawner_fork (sp, &m, fd);
}

static int spawner_setup (struct spawner *sp, int sock, arbor_error_t *err)
{
    sigset_t chld;

    sp->sock = sock;
    sigemptyset (&chld);
    sigaddset (&chld, SIGCHLD);
    if (sigprocmask (SIG_BLOCK, &chld, &sp->mask) < 0
        || (sp->sig_fd = signalfd (-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
        return errprintf (err, "spawner: signalfd: %s", strerror (errno));
    return 0;
}

int spawner_run (struct stepd *sd, int sock, arbor_error_t *err)
{
    struct spawner sp = { .sd = sd };
    int rc = 0;

    if (spawner_setup (&sp, sock, err) < 0)
        return -1;
    if (session_lib_init () < 0) /* the I/O session's, once for all */
        log_warn ("spawner: libsodium cannot be initialised");
    spawner_shrink ();
    spawner_report (&sp, SPAWNMSG_READY, 0, 0, 0);
    log_debug ("spawner: ready");
    for (;;) {
        struct pollfd p[2] = { { sp.sock, POLLIN, 0 },
                               { sp.sig_fd, POLLIN, 0 } };
        if (poll (p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            rc = errprintf (err, "spawner: poll: %s", strerror (errno));
            break;
        }
        if (p[1].revents)
            spawner_reap (&sp);
        if (p[0].revents) {
            int got = spawner_request (&sp);
            if (got > 0)
                return 1; /* a child: a stepd from now on */
            if (got < 0)
                break;
        }
    }
    spawner_reap (&sp);
    close (sp.sig_fd);
    log_debug ("spawner: the noded closed its socket: exiting");
    return rc;
}
