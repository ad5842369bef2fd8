/* local_private.h - the inside of cli/local/, the emulated cluster.
 *
 * Private to cli/local/; the rest of the command sees only local.h.
 * local.c drives the stages and waits for signals; local_conf.c writes the
 * directory and arbor.conf; local_munge.c finds or starts a munged;
 * local_proc.c spawns the daemons, waits for them to come up and tears
 * everything down; local_ctl.c serves the control socket (--restart);
 * local_cgroup.c kills and removes the cluster's cgroups; local_netns.c
 * makes and removes the namespaces of --netns; local_shm.c gives each
 * node its own /dev/shm. All state lives in one struct local.
 */
#ifndef ARBOR_CLI_LOCAL_PRIVATE_H
#define ARBOR_CLI_LOCAL_PRIVATE_H

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

/* local.c: snprintf for paths and names: -1 with errno ENAMETOOLONG if 'buf'
 * was too small (the text is then truncated), else 0. */
int local_path (char *buf, size_t len, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* local_conf.c */
int local_dir_setup (struct local *l);
int local_conf_write (struct local *l);
int local_rmtree (const char *dir);

/* local_cgroup.c */
void local_cgroup_cleanup (struct local *l);
/* SIGKILL whatever still runs in the cluster's cgroups (as root). */
void local_cgroup_kill (struct local *l);

/* local_netns.c: --netns, each node and the ctld in its own network and
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

/* local_shm.c: each emulated node its own /dev/shm (as root, not with
 * --netns). wanted: should conf node 'node' (< 0: the ctld) get one?
 * enter runs in its noded's child before exec: 0 (having said on stderr
 * why, when the node keeps the host's), or -1 with the reason on stderr
 * when the node cannot run. */
bool local_shm_wanted (const struct local *l, ssize_t node);
int local_shm_enter (const struct local *l, ssize_t node);

/* local_munge.c */
int local_munge_setup (struct local *l);
void local_munge_stop (struct local *l);
/* Did we start the cluster's munged (in DIR/munge)? */
bool local_munge_ours (const struct local *l);
/* Start our munged again, with its key (after local_ctl.c stopped it):
 * 0 once it answers; -1 with errno EPERM when the munged is not ours. */
int local_munge_restart (struct local *l);

/* local_ctl.c: restart one daemon of a running cluster. */
int local_ctl_listen (struct local *l);
void local_ctl_serve (struct local *l); /* one request, when readable */
void local_ctl_close (struct local *l);
/* The client, local_ctl_request, is in local.h. */

/* local_proc.c */
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
