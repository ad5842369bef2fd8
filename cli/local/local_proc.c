/* local_proc.c - the processes of an "arbor local" cluster.
 *
 * Spawns arbor-ctld and one arbor-noded --emulate per configured node from
 * the directory of our own executable, each in its own session (a ^C on
 * the terminal reaches arbor local, which then tears down in order) with
 * stdout/stderr in DIR/log/<name>.out and a parent-death signal so that
 * nothing survives an arbor local killed by SIGKILL. The nodeds start
 * once the ctld accepts connections (so none waits out a registration
 * retry); then we wait until the ctld reports every node IDLE. Teardown
 * SIGTERMs the daemons, gives them 3 s, then SIGKILLs every remaining
 * descendant: arbor local is a child subreaper, so stepds and tasks orphaned by
 * a dying noded are re-parented to us and found by scanning /proc for our pid
 * as their parent.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "conf.h"
#include "local_base.h"
#include "local_cgroup.h"
#include "local_conf.h"
#include "local_munge.h"
#include "local_netns.h"
#include "local_proc.h"
#include "local_shm.h"
#include "net.h"
#include "proto.h"
#include "rpc.h"
#include "states.h"

#define LOCAL_TERM_WAIT_MS 3000
#define LOCAL_POLL_MS 50     /* NODE_INFO while waiting for the nodes */
#define LOCAL_CTLD_POLL_MS 5 /* connect while waiting for the ctld */
#define LOCAL_CTLD_START_MS 10000
#define LOCAL_REPORT_MAX 20

long local_now_ms (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void local_sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep (&ts, NULL);
}

/* In a child: the signal state of a fresh process and the cluster's env. */
static void child_prepare (struct local *l)
{
    sigset_t none;

    sigemptyset (&none);
    sigprocmask (SIG_SETMASK, &none, NULL);
    signal (SIGPIPE, SIG_DFL);
    setenv ("ARBOR_CONF", l->conf_path, 1);
    /* An enclosing allocation is not ours: arbor run would attach to it. */
    unsetenv ("ARBOR_JOB_ID");
    unsetenv ("SLURM_JOB_ID");
    unsetenv ("SLURM_JOBID");
}

/* Start argv as daemon 'p': the ctld (node < 0) or conf node 'node's
 * noded, which under --netns runs in that node's namespaces. */
static int spawn_daemon (struct local *l, struct local_proc *p, ssize_t node,
                         char *const argv[])
{
    pid_t pid = fork ();
    int fd;

    if (pid < 0) {
        local_say ("fork: %s", strerror (errno));
        return -1;
    }
    if (pid > 0) {
        p->pid = pid;
        return 0;
    }
    child_prepare (l);
    setsid ();
    prctl (PR_SET_PDEATHSIG, SIGTERM);
    if ((fd = open ("/dev/null", O_RDONLY)) >= 0)
        dup2 (fd, 0);
    if ((fd = open (p->out, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
        dup2 (fd, 1);
        dup2 (fd, 2);
    }
    if (l->opt.netns && local_netns_enter (l, node) < 0)
        _exit (127);
    if (local_shm_wanted (l, node) && local_shm_enter (l, node) < 0)
        _exit (127);
    execv (argv[0], argv);
    fprintf (stderr, "arbor local: exec %s: %s\n", argv[0], strerror (errno));
    _exit (127);
}

/* Where the daemons of our own installation are: beside this executable
 * (a build tree), else in ../sbin (an installed tree: the command in bin/,
 * the daemons in sbin/), else ../libexec or ../libexec/arbor; the first
 * holding an executable arbor-ctld, made canonical, goes in exe_dir. When
 * none does, exe_dir is our own directory and the caller names the
 * missing file there. */
static int find_exe_dir (struct local *l)
{
    static const char *const rel[] = { "", "/../sbin", "/../libexec",
                                       "/../libexec/arbor" };
    char self[PATH_MAX], cand[PATH_MAX + 32], prog[PATH_MAX + 48];
    char real[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    char *slash;

    if (n < 0) {
        local_say ("/proc/self/exe: %s", strerror (errno));
        return -1;
    }
    self[n] = '\0';
    if ((slash = strrchr (self, '/')))
        *slash = '\0';
    local_path (l->exe_dir, sizeof (l->exe_dir), "%s", self);
    for (size_t i = 0; i < sizeof (rel) / sizeof (rel[0]); i++) {
        local_path (cand, sizeof (cand), "%s%s", self, rel[i]);
        local_path (prog, sizeof (prog), "%s/arbor-ctld", cand);
        if (access (prog, X_OK) == 0 && realpath (cand, real)) {
            local_path (l->exe_dir, sizeof (l->exe_dir), "%s", real);
            break;
        }
    }
    return 0;
}

int local_spawn_one (struct local *l, ssize_t node)
{
    if (node < 0) {
        char *argv[] = { l->ctld_exe, "-f", l->conf_path, NULL };
        return spawn_daemon (l, &l->ctld, -1, argv);
    }
    char *argv[] = {
        l->noded_exe, "-f", l->conf_path, "-n", l->conf->nodes[node].name,
        "--emulate",  NULL
    };
    return spawn_daemon (l, &l->noded[node], node, argv);
}

/* A noded that finds the ctld not yet listening retries its registration
 * a second later: start the nodeds only once the ctld accepts
 * connections (a few milliseconds). */
static int wait_ctld_listening (struct local *l)
{
    long deadline = local_now_ms () + LOCAL_CTLD_START_MS;
    int status;

    while (local_now_ms () < deadline) {
        int fd = net_connect_tcp (l->conf->control_addr, l->conf->ctld_port,
                                  100, NULL);
        if (fd >= 0) {
            close (fd);
            return 0;
        }
        if (waitpid (l->ctld.pid, &status, WNOHANG) == l->ctld.pid) {
            l->ctld.pid = 0;
            l->ctld.status = status;
            local_say ("arbor-ctld exited at start");
            local_print_tail (l->conf->ctld_log_file, 15);
            local_print_tail (l->ctld.out, 10);
            return -1;
        }
        local_sleep_ms (LOCAL_CTLD_POLL_MS);
    }
    local_say ("arbor-ctld did not listen on %s:%u within %d s",
               l->conf->control_addr, (unsigned)l->conf->ctld_port,
               LOCAL_CTLD_START_MS / 1000);
    local_print_tail (l->conf->ctld_log_file, 15);
    return -1;
}

int local_spawn_daemons (struct local *l)
{
    if (find_exe_dir (l) < 0)
        return -1;
    local_path (l->ctld_exe, sizeof (l->ctld_exe), "%s/arbor-ctld", l->exe_dir);
    local_path (l->noded_exe, sizeof (l->noded_exe), "%s/arbor-noded",
                l->exe_dir);
    if (access (l->ctld_exe, X_OK) < 0 || access (l->noded_exe, X_OK) < 0) {
        local_say ("%s: %s",
                   access (l->ctld_exe, X_OK) < 0 ? l->ctld_exe : l->noded_exe,
                   strerror (errno));
        return -1;
    }
    if (!(l->noded = calloc (l->conf->nnodes, sizeof (*l->noded)))) {
        local_say ("out of memory");
        return -1;
    }
    local_path (l->ctld.name, sizeof (l->ctld.name), "arbor-ctld");
    local_path (l->ctld.out, sizeof (l->ctld.out), "%s/log/ctld.out", l->dir);
    if (local_spawn_one (l, -1) < 0 || wait_ctld_listening (l) < 0)
        return -1;
    for (size_t i = 0; i < l->conf->nnodes; i++) {
        struct local_proc *p = &l->noded[i];
        const char *name = l->conf->nodes[i].name;

        local_path (p->name, sizeof (p->name), "arbor-noded %s", name);
        local_path (p->out, sizeof (p->out), "%s/log/noded-%s.out", l->dir,
                    name);
        l->nnoded = i + 1;
        if (local_spawn_one (l, (ssize_t)i) < 0)
            return -1;
    }
    return 0;
}

static struct local_proc *proc_find (struct local *l, pid_t pid)
{
    if (l->ctld.pid == pid)
        return &l->ctld;
    if (l->munged.pid == pid)
        return &l->munged;
    for (size_t i = 0; i < l->nnoded; i++)
        if (l->noded[i].pid == pid)
            return &l->noded[i];
    return NULL;
}

static void describe_status (int status, char *buf, size_t len)
{
    if (WIFSIGNALED (status))
        local_path (buf, len, "killed by signal %d", WTERMSIG (status));
    else
        local_path (buf, len, "exited with status %d", WEXITSTATUS (status));
}

/* Reap every child that has ended (orphans included). */
void local_reap (struct local *l)
{
    pid_t pid;
    int status;

    while ((pid = waitpid (-1, &status, WNOHANG)) > 0) {
        struct local_proc *p = proc_find (l, pid);
        char how[64];

        if (pid == l->cmd_pid) {
            l->cmd_pid = 0;
            l->cmd_status = status;
        } else if (p) {
            p->pid = 0;
            p->status = status;
            if (!l->stopping && !p->restarting) {
                describe_status (status, how, sizeof (how));
                local_say ("%s %s", p->name, how);
            }
        }
    }
}

void local_print_tail (const char *path, int lines)
{
    char buf[16384];
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    off_t size;
    ssize_t n;
    char *p;

    if (fd < 0)
        return;
    size = lseek (fd, 0, SEEK_END);
    if (size > (off_t)sizeof (buf) - 1)
        lseek (fd, size - (off_t)sizeof (buf) + 1, SEEK_SET);
    else
        lseek (fd, 0, SEEK_SET);
    n = read (fd, buf, sizeof (buf) - 1);
    close (fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    p = buf + n;
    if (p > buf && p[-1] == '\n')
        p--;
    while (p > buf && lines > 0)
        if (*--p == '\n')
            lines--;
    if (*p == '\n')
        p++;
    fprintf (stderr, "arbor local: ---- %s\n", path);
    for (char *line = strtok (p, "\n"); line; line = strtok (NULL, "\n"))
        fprintf (stderr, "  %s\n", line);
}

/* Names of the conf nodes not IDLE in 'r' (NULL: none answered). */
static size_t nodes_not_up (struct local *l,
                            const struct msg_node_info_reply *r, bool report)
{
    size_t down = 0;

    for (size_t i = 0; i < l->conf->nnodes; i++) {
        const char *name = l->conf->nodes[i].name;
        const char *state = "not registered";

        uint32_t nr = r ? (r->names_count < r->states_count ? r->names_count
                                                            : r->states_count)
                        : 0;
        /* The ctld lists its nodes in arbor.conf's order: look at the
         * same index first, scan only if it differs. */
        if (i < nr && strcmp (r->names[i], name) == 0)
            state = r->states[i];
        else
            for (uint32_t j = 0; j < nr; j++)
                if (strcmp (r->names[j], name) == 0)
                    state = r->states[j];
        if (strcmp (state, node_state_info (NODE_STATE_IDLE)->name) == 0)
            continue;
        if (report && down < LOCAL_REPORT_MAX)
            local_say ("%s is not up (%s)", name, state);
        if (report && down < 3) {
            char log[PATH_MAX + 32];
            char *path = conf_expand (l->conf->noded_log_file, name);
            if (path)
                local_print_tail (path, 10);
            free (path);
            local_path (log, sizeof (log), "%s/log/noded-%s.out", l->dir, name);
            local_print_tail (log, 10);
        }
        down++;
    }
    if (report && down > LOCAL_REPORT_MAX)
        local_say ("... and %zu more nodes not up", down - LOCAL_REPORT_MAX);
    return down;
}

/* SIGINT/SIGTERM/SIGHUP pending on the signalfd? Consumes what it reads. */
static bool interrupted (struct local *l, int timeout_ms)
{
    struct pollfd pfd = { .fd = l->sigfd, .events = POLLIN };
    struct signalfd_siginfo si;
    bool stop = false;

    if (poll (&pfd, 1, timeout_ms) <= 0)
        return false;
    while (read (l->sigfd, &si, sizeof (si)) == (ssize_t)sizeof (si))
        if (si.ssi_signo != SIGCHLD)
            stop = true;
    return stop;
}

static bool daemons_alive (struct local *l)
{
    local_reap (l);
    if (l->ctld.pid == 0)
        return false;
    for (size_t i = 0; i < l->nnoded; i++)
        if (l->noded[i].pid == 0)
            return false;
    return true;
}

/* Ask the ctld for its nodes; 'last' keeps the latest answer. */
int local_query_nodes (struct local *l, struct auth *a,
                       struct msg_node_info_reply *last, bool *have)
{
    struct msg_node_info req = { .nodelist = "" };
    struct msg_node_info_reply resp;
    arbor_error_t err;

    memset (&resp, 0, sizeof (resp));
    long uid = conf_arbor_uid (l->conf);

    if (uid < 0)
        return -1;
    if (rpc_call (a, l->conf->control_addr, l->conf->ctld_port, (uid_t)uid,
                  MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, &resp, 2000, &err)
        < 0)
        return -1;
    if (*have)
        proto_clear (MSG_NODE_INFO_REPLY, last);
    *last = resp;
    *have = true;
    return 0;
}

int local_wait_ready (struct local *l)
{
    arbor_error_t err;
    const char *sock = l->munge_socket[0] ? l->munge_socket : NULL;
    struct auth *a = auth_create (sock, &err);
    struct msg_node_info_reply last;
    bool have = false, died = false;
    long deadline = local_now_ms () + LOCAL_READY_TIMEOUT_MS;
    int rc = -1;

    memset (&last, 0, sizeof (last));
    if (!a) {
        local_say ("munge: %s", err.text);
        return -1;
    }
    while (local_now_ms () < deadline) {
        bool alive = daemons_alive (l);

        if (local_query_nodes (l, a, &last, &have) == 0
            && nodes_not_up (l, &last, false) == 0) {
            rc = 0;
            break;
        }
        if (!alive) {
            died = true;
            break;
        }
        if (interrupted (l, LOCAL_POLL_MS)) {
            local_say ("interrupted while waiting for the nodes");
            goto out;
        }
    }
    if (rc < 0) {
        if (died)
            local_say ("a daemon exited before the cluster was up");
        else
            local_say ("the cluster did not come up within %d s",
                       LOCAL_READY_TIMEOUT_MS / 1000);
        if (!have)
            local_say ("arbor-ctld did not answer NODE_INFO");
        nodes_not_up (l, have ? &last : NULL, true);
        local_print_tail (l->conf->ctld_log_file, 15);
        local_print_tail (l->ctld.out, 10);
    }
out:
    if (have)
        proto_clear (MSG_NODE_INFO_REPLY, &last);
    auth_destroy (a);
    return rc;
}

pid_t local_spawn_cmd (struct local *l)
{
    pid_t pid = fork ();

    if (pid < 0) {
        local_say ("fork: %s", strerror (errno));
        return -1;
    }
    if (pid > 0) {
        l->cmd_pid = pid;
        return pid;
    }
    child_prepare (l);
    execvp (l->opt.cmd[0], l->opt.cmd);
    fprintf (stderr, "arbor local: %s: %s\n", l->opt.cmd[0], strerror (errno));
    _exit (errno == ENOENT ? 127 : 126);
}

/* Our children (pid list, excluding munged), read from /proc. */
static size_t list_children (struct local *l, pid_t *pids, size_t max)
{
    DIR *d = opendir ("/proc");
    struct dirent *e;
    pid_t self = getpid ();
    size_t n = 0;

    if (!d)
        return 0;
    while ((e = readdir (d)) && n < max) {
        char path[64], buf[512], *rp;
        long ppid;
        FILE *f;

        if (!isdigit ((unsigned char)e->d_name[0]))
            continue;
        local_path (path, sizeof (path), "/proc/%s/stat", e->d_name);
        if (!(f = fopen (path, "re")))
            continue;
        size_t len = fread (buf, 1, sizeof (buf) - 1, f);
        fclose (f);
        buf[len] = '\0';
        /* "pid (comm) S ppid ...": comm may hold spaces and ')'. */
        if (!(rp = strrchr (buf, ')'))
            || sscanf (rp + 1, " %*c %ld", &ppid) != 1)
            continue;
        pid_t pid = (pid_t)atol (e->d_name);
        if (ppid == self && pid != l->munged.pid)
            pids[n++] = pid;
    }
    closedir (d);
    return n;
}

/* SIGKILL and reap children until none is left (orphans re-parent to us). */
static void kill_descendants (struct local *l)
{
    pid_t pids[512];

    for (int round = 0; round < 1000; round++) {
        size_t n = list_children (l, pids, sizeof (pids) / sizeof (pids[0]));
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++)
            kill (pids[i], SIGKILL);
        for (size_t i = 0; i < n; i++) {
            int status;
            pid_t pid = waitpid (pids[i], &status, 0);
            struct local_proc *p = pid > 0 ? proc_find (l, pid) : NULL;
            if (p)
                p->pid = 0;
            if (pid > 0 && pid == l->cmd_pid) {
                l->cmd_pid = 0;
                l->cmd_status = status;
            }
        }
    }
}

/* Does /proc/PID/cmdline name a daemon of this cluster: an Arbor daemon
 * with an argument equal to our arbor.conf, or a munged other than ours
 * with an argument naming our DIR/munge/ (its socket, key)? Daemons
 * restarted by hand are not our descendants, yet belong to the cluster
 * and must not outlive it. */
static bool is_stray (const struct local *l, const char *pid)
{
    static const char *const daemons[] = { "arbor-ctld", "arbor-noded",
                                           "arbor-stepd" };
    char path[64], buf[8192], mdir[PATH_MAX + 8];
    bool ours = false, daemon = false, munged;
    FILE *f;

    local_path (path, sizeof (path), "/proc/%s/cmdline", pid);
    if (!(f = fopen (path, "re")))
        return false;
    size_t n = fread (buf, 1, sizeof (buf) - 1, f);
    fclose (f);
    buf[n] = '\0';
    const char *base = strrchr (buf, '/') ? strrchr (buf, '/') + 1 : buf;
    for (size_t i = 0; i < sizeof (daemons) / sizeof (daemons[0]); i++)
        daemon = daemon || strcmp (base, daemons[i]) == 0;
    munged = strcmp (base, "munged") == 0 && local_munge_ours (l)
             && atol (pid) != l->munged.pid;
    local_path (mdir, sizeof (mdir), "%s/munge/", l->dir);
    for (size_t off = 0; (daemon || munged) && off < n;
         off += strlen (buf + off) + 1)
        ours = ours
               || (daemon ? strcmp (buf + off, l->conf_path) == 0
                          : strstr (buf + off, mdir) != NULL);
    return (daemon || munged) && ours;
}

static void kill_strays (struct local *l)
{
    DIR *d = opendir ("/proc");
    struct dirent *e;

    if (!d || !l->conf_path[0]) {
        if (d)
            closedir (d);
        return;
    }
    while ((e = readdir (d)))
        if (isdigit ((unsigned char)e->d_name[0])
            && atol (e->d_name) != getpid () && is_stray (l, e->d_name))
            kill ((pid_t)atol (e->d_name), SIGKILL);
    closedir (d);
}

static bool daemons_gone (struct local *l)
{
    if (l->ctld.pid > 0)
        return false;
    for (size_t i = 0; i < l->nnoded; i++)
        if (l->noded[i].pid > 0)
            return false;
    return true;
}

void local_teardown (struct local *l)
{
    long deadline = local_now_ms () + LOCAL_TERM_WAIT_MS;

    l->stopping = true;
    local_reap (l);
    if (l->ctld.pid > 0)
        kill (l->ctld.pid, SIGTERM);
    for (size_t i = 0; i < l->nnoded; i++)
        if (l->noded[i].pid > 0)
            kill (l->noded[i].pid, SIGTERM);
    while (!daemons_gone (l) && local_now_ms () < deadline) {
        local_sleep_ms (20);
        local_reap (l);
    }
    kill_descendants (l);
    kill_strays (l);
    local_cgroup_kill (l);
    kill_descendants (l); /* reap what the two above killed */
    local_cgroup_cleanup (l);
    local_netns_destroy (l); /* nothing runs in them any more */
    local_munge_stop (l);
    local_reap (l);
    if (l->spool_tmp[0]) {
        /* Nothing runs any more: its sockets and records are dead state,
         * even when DIR is kept (the link goes with them). */
        char link[PATH_MAX + 8];
        local_rmtree (l->spool_tmp);
        snprintf (link, sizeof (link), "%s/spool", l->dir);
        (void)unlink (link);
    }
    if (l->remove_dir && l->dir[0])
        local_rmtree (l->dir);
}
