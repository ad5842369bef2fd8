/* local_ctl.c - restart one daemon of a running "arbor local" cluster.
 *
 *   arbor local --restart ctld|munged|NODE [--signal SIG] [--dir DIR]
 *
 * A running arbor local listens on DIR/local.sock (mode 0600: only the
 * cluster's owner, and root, may use it). The request is one text line,
 * "restart NAME SIGNO\n"; the answer one line, "ok PID\n" or "error: ...\n".
 * A text line is enough here: the socket never leaves this host, both ends
 * are this program, and it is not part of the daemons' wire protocol.
 *
 * Restarting is done by arbor local itself, so the new daemon is its child
 * like the old one: it is torn down with the cluster and none outlives it
 * (which a daemon restarted by hand would). The old daemon gets SIGNO (TERM
 * by default, KILL to emulate a crash), is reaped (SIGKILL after
 * LOCAL_RESTART_WAIT_MS), is started again with the same command line, and
 * the answer waits until it serves: the ctld answers NODE_INFO, a noded
 * accepts connections on its NodeAddr and the ctld no longer shows its node
 * DOWN or unregistered, munged answers an encode. Only a munged arbor local
 * started itself (in DIR/munge) can be restarted so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "conf.h"
#include "local_base.h"
#include "local_ctl.h"
#include "local_munge.h"
#include "local_proc.h"
#include "net.h"
#include "proto.h"
#include "signame.h"

#define LOCAL_CTL_SOCK "local.sock"
#define LOCAL_CTL_LINE 256
#define LOCAL_CTL_IO_MS 5000         /* to read a request */
#define LOCAL_RESTART_WAIT_MS 10000  /* old daemon: then SIGKILL */
#define LOCAL_RESTART_READY_MS 30000 /* new daemon: to serve */

int local_ctl_listen (struct local *l)
{
    arbor_error_t err;

    if (local_path (l->ctl_path, sizeof (l->ctl_path), "%s/%s", l->dir,
                    LOCAL_CTL_SOCK)
            < 0
        || (l->ctl_fd = net_listen_unix (l->ctl_path, 0600, &err)) < 0) {
        local_say ("control socket %s: %s", l->ctl_path, strerror (errno));
        l->ctl_path[0] = '\0';
        return -1;
    }
    return 0;
}

void local_ctl_close (struct local *l)
{
    if (l->ctl_fd >= 0) {
        close (l->ctl_fd);
        l->ctl_fd = -1;
    }
    if (l->ctl_path[0])
        unlink (l->ctl_path);
}

/* The daemon called 'name': "ctld" or a node name. */
static struct local_proc *ctl_find (struct local *l, const char *name,
                                    size_t *node)
{
    if (strcmp (name, "ctld") == 0)
        return &l->ctld;
    for (size_t i = 0; i < l->nnoded; i++) {
        if (strcmp (l->conf->nodes[i].name, name) == 0) {
            *node = i;
            return &l->noded[i];
        }
    }
    return NULL;
}

/* Signal the old daemon and reap it (SIGKILL if it takes too long). */
static int ctl_stop (struct local *l, struct local_proc *p, int sig)
{
    long deadline = local_now_ms () + LOCAL_RESTART_WAIT_MS;
    bool killed = false;
    int rc = 0;

    p->restarting = true;
    if (p->pid > 0 && kill (p->pid, sig) < 0 && errno != ESRCH)
        rc = -1;
    while (rc == 0 && p->pid > 0) {
        if (!killed && local_now_ms () > deadline) {
            kill (p->pid, SIGKILL);
            killed = true;
        }
        /* Not even SIGKILL ended it (stuck in the kernel): say so rather
         * than wait forever. */
        if (killed && local_now_ms () > deadline + LOCAL_RESTART_WAIT_MS) {
            errno = ETIMEDOUT;
            rc = -1;
            break;
        }
        local_sleep_ms (10);
        local_reap (l);
    }
    p->restarting = false;
    return rc;
}

/* The ctld's state word for node 'name', or "" (into buf). */
static int ctl_node_state (struct local *l, struct auth *a, const char *name,
                           char *buf, size_t len)
{
    struct msg_node_info_reply r;
    bool have = false;

    buf[0] = '\0';
    if (local_query_nodes (l, a, &r, &have) < 0)
        return -1;
    for (uint32_t j = 0; j < r.names_count && j < r.states_count; j++)
        if (strcmp (r.names[j], name) == 0)
            snprintf (buf, len, "%s", r.states[j]);
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    return 0;
}

/* Is the restarted daemon serving yet? */
static bool ctl_serving (struct local *l, struct auth *a, const char *name,
                         ssize_t node)
{
    char state[64];

    if (node < 0)
        return ctl_node_state (l, a, "", state, sizeof (state)) == 0;
    const struct conf_node *n = &l->conf->nodes[node];
    int fd = net_connect_tcp (n->addr, l->conf->noded_port, 500, NULL);
    if (fd < 0)
        return false;
    close (fd);
    return ctl_node_state (l, a, name, state, sizeof (state)) == 0 && state[0]
           && !strstr (state, "DOWN");
}

static int ctl_wait_serving (struct local *l, const char *name, ssize_t node,
                             char *why, size_t len)
{
    const char *sock = l->munge_socket[0] ? l->munge_socket : NULL;
    long deadline = local_now_ms () + LOCAL_RESTART_READY_MS;
    arbor_error_t err;
    struct auth *a = auth_create (sock, &err);
    int rc = -1;

    if (!a) {
        snprintf (why, len, "munge: %s", err.text);
        return -1;
    }
    while (local_now_ms () < deadline) {
        if (ctl_serving (l, a, name, node)) {
            rc = 0;
            break;
        }
        local_sleep_ms (50);
    }
    if (rc < 0)
        snprintf (why, len, "%.64s did not come back within %d s", name,
                  LOCAL_RESTART_READY_MS / 1000);
    auth_destroy (a);
    return rc;
}

/* Our munged: stopped, and started again with its key. A munged we did
 * not start (a site's, $ARBOR_MUNGE_SOCKET) is not ours to restart. */
static int ctl_restart_munged (struct local *l, int sig, pid_t *pid, char *why,
                               size_t len)
{
    if (!local_munge_ours (l)) {
        snprintf (why, len,
                  "this cluster uses a munged it did not start (%.128s): "
                  "restart that one yourself",
                  l->munge_socket[0] ? l->munge_socket
                                     : "libmunge's default socket");
        return -1;
    }
    if (ctl_stop (l, &l->munged, sig) < 0) {
        snprintf (why, len, "kill munged: %s", strerror (errno));
        return -1;
    }
    local_say ("restarting munged");
    if (local_munge_restart (l) < 0) {
        snprintf (why, len, "munged did not start again (see %.128s)",
                  l->munged.out);
        return -1;
    }
    *pid = l->munged.pid;
    return 0;
}

/* "restart NAME SIGNO": 0 with the new pid, or -1 with why. */
static int ctl_restart (struct local *l, const char *name, int sig, pid_t *pid,
                        char *why, size_t len)
{
    size_t node = 0;
    struct local_proc *p = ctl_find (l, name, &node);
    ssize_t idx = p == &l->ctld ? -1 : (ssize_t)node;

    if (sig < 1 || sig > 64) {
        snprintf (why, len, "invalid signal %d", sig);
        return -1;
    }
    if (strcmp (name, "munged") == 0)
        return ctl_restart_munged (l, sig, pid, why, len);
    if (!p) {
        snprintf (why, len,
                  "no daemon called '%.64s' (ctld, munged or a node name)",
                  name);
        return -1;
    }
    if (ctl_stop (l, p, sig) < 0) {
        snprintf (why, len, "kill %.64s: %s", name, strerror (errno));
        return -1;
    }
    local_say ("restarting %s", p->name);
    if (local_spawn_one (l, idx) < 0) {
        snprintf (why, len, "cannot start %.64s again", name);
        return -1;
    }
    *pid = p->pid;
    return ctl_wait_serving (l, name, idx, why, len);
}

/* Read one line (at most LOCAL_CTL_LINE - 1 bytes) before a deadline. */
static int ctl_read_line (int fd, char *buf, size_t len)
{
    long deadline = local_now_ms () + LOCAL_CTL_IO_MS;
    size_t n = 0;

    while (n < len - 1 && !memchr (buf, '\n', n)) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        long left = deadline - local_now_ms ();
        if (left <= 0 || poll (&pfd, 1, (int)left) <= 0)
            return -1;
        ssize_t r = read (fd, buf + n, len - 1 - n);
        if (r <= 0)
            return -1;
        n += (size_t)r;
    }
    buf[n] = '\0';
    buf[strcspn (buf, "\n")] = '\0';
    return 0;
}

void local_ctl_serve (struct local *l)
{
    char line[LOCAL_CTL_LINE] = "", name[LOCAL_CTL_LINE], why[256] = "";
    char answer[LOCAL_CTL_LINE + 64];
    int fd = accept4 (l->ctl_fd, NULL, NULL, SOCK_CLOEXEC), sig;
    pid_t pid = 0;

    if (fd < 0)
        return;
    fd_set_nonblock (fd, 0);
    if (ctl_read_line (fd, line, sizeof (line)) < 0)
        snprintf (why, sizeof (why), "no request");
    else if (sscanf (line, "restart %255s %d", name, &sig) != 2)
        snprintf (why, sizeof (why), "unknown request '%.64s'", line);
    else
        (void)ctl_restart (l, name, sig, &pid, why, sizeof (why));
    if (why[0])
        snprintf (answer, sizeof (answer), "error: %s\n", why);
    else
        snprintf (answer, sizeof (answer), "ok %ld\n", (long)pid);
    (void)fd_write_full (fd, answer, strlen (answer));
    close (fd);
}

/* The client side: the cluster directory is DIR, else the one holding
 * $ARBOR_CONF (arbor local writes DIR/arbor.conf). */
static int ctl_dir (const char *dir, char *buf, size_t len)
{
    const char *conf = getenv ("ARBOR_CONF");
    const char *slash;

    if (dir)
        return local_path (buf, len, "%s", dir);
    if (!conf || !(slash = strrchr (conf, '/'))) {
        local_say ("--restart needs --dir DIR or ARBOR_CONF of the cluster");
        errno = EINVAL;
        return -1;
    }
    return local_path (buf, len, "%.*s", (int)(slash - conf), conf);
}

int local_ctl_request (const char *dir, const char *name, const char *signal)
{
    char d[PATH_MAX], path[PATH_MAX + 16], req[LOCAL_CTL_LINE + 16];
    char answer[LOCAL_CTL_LINE + 64] = "";
    arbor_error_t err;
    int sig = SIGTERM, fd;

    if (signal && signame_parse (signal, &sig) < 0) {
        local_say ("--signal: unknown signal '%s'", signal);
        return 2;
    }
    if (strlen (name) >= LOCAL_CTL_LINE - 32 || strpbrk (name, " \n")) {
        local_say ("--restart: invalid daemon name");
        return 2;
    }
    if (ctl_dir (dir, d, sizeof (d)) < 0
        || local_path (path, sizeof (path), "%s/%s", d, LOCAL_CTL_SOCK) < 0)
        return 1;
    if ((fd = net_connect_unix (path, &err)) < 0) {
        local_say ("%s: %s (is arbor local running there?)", path,
                   strerror (errno));
        return 1;
    }
    snprintf (req, sizeof (req), "restart %s %d\n", name, sig);
    if (fd_write_full (fd, req, strlen (req)) < 0
        || read (fd, answer, sizeof (answer) - 1) <= 0) {
        local_say ("%s: no answer", path);
        close (fd);
        return 1;
    }
    close (fd);
    answer[strcspn (answer, "\n")] = '\0';
    if (strncmp (answer, "ok ", 3) != 0) {
        local_say ("restart %s: %s", name, answer);
        return 1;
    }
    return 0;
}
