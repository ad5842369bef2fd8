/* local_base.h - what every file of cli/local/ stands on: the cluster's
 * one record (struct local) and the helpers they all use (local_base.c).
 *
 * Private to cli/local/ (cmd_local.c uses local_say only). local.c drives
 * the stages and waits for signals; each stage has its own file and
 * header: local_conf.h (the directory and arbor.conf), local_munge.h
 * (find or start a munged), local_proc.h (spawn the daemons, wait for
 * them, tear everything down), local_ctl.h (the control socket,
 * --restart), local_cgroup.h (the cluster's cgroups), local_netns.h (the
 * namespaces of --netns), local_shm.h (each node its own /dev/shm). The
 * files call each other only through those headers, never up into
 * local.c.
 */
#ifndef ARBOR_CLI_LOCAL_BASE_H
#define ARBOR_CLI_LOCAL_BASE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "local.h"

#define LOCAL_READY_TIMEOUT_MS 30000
#define LOCAL_CGROUP_PARENT "arbor" /* CgroupRoot is arbor/local-<pid> */

struct conf;

/* A daemon we started (ctld, one noded each, munged). */
struct local_proc {
    pid_t pid;          /* 0 once reaped */
    int status;         /* wait status once reaped */
    char name[64];      /* "arbor-noded node3" */
    char out[PATH_MAX]; /* its stdout/stderr file */
    bool restarting;    /* local_ctl.c is restarting it: its exit is
                           expected */
};

struct local {
    struct local_opts opt; /* a shallow copy: o->sets is the caller's */
    char dir[PATH_MAX];
    bool remove_dir;          /* we made it and --keep was not given */
    char spool_tmp[PATH_MAX]; /* the tmpfs directory DIR/spool points
                                 to, "" if DIR/spool is a directory */
    char conf_path[PATH_MAX];
    struct conf *conf;
    char exe_dir[PATH_MAX]; /* where arbor, arbor-ctld, arbor-noded live */
    char ctld_exe[PATH_MAX + 16];
    char noded_exe[PATH_MAX + 16];
    int ctl_fd; /* DIR/local.sock (local_ctl.c), or -1 */
    char ctl_path[PATH_MAX + 16];
    char munge_socket[PATH_MAX]; /* "" : libmunge's default */
    struct local_proc munged;    /* pid 0 unless we started one */
    struct local_proc ctld;
    struct local_proc *noded; /* one per conf node */
    size_t nnoded;
    pid_t cmd_pid; /* CMD, 0 when none or reaped */
    int cmd_status;
    int sigfd;     /* signalfd for SIGINT, SIGTERM, SIGHUP, SIGCHLD */
    bool stopping; /* teardown started: daemon exits are expected */
    long start_ms; /* local_now_ms () before munged, and once all the
                      nodes were IDLE: "K nodes ready in S s" */
    long ready_ms;
    /* --netns (local_netns.c) */
    char ns_tag[24]; /* "arbn<pid>": prefix of our namespaces and links */
    char ns_net[16]; /* "10.211.7": our /24 */
    bool ns_made;    /* some may exist: teardown removes them */
};

/* snprintf for paths and names: -1 with errno ENAMETOOLONG if 'buf' was
 * too small (the text is then truncated), else 0. */
int local_path (char *buf, size_t len, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Write 'text' to 'path' with 'mode'; -1 (said why). */
int local_write_file (const char *path, const char *text, mode_t mode);

/* Print "arbor local: MSG" on stderr. */
void local_say (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

#endif
