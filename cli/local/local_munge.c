/* local_munge.c - the munged an "arbor local" cluster authenticates with.
 *
 * In order: $ARBOR_MUNGE_SOCKET if set; else libmunge's default socket if
 * a munged answers there; else our own munged in DIR/munge with a fresh
 * 1024-bit key, running as the invoking user (munged needs no privilege to
 * serve one host), so the emulated cluster works for root and ordinary
 * users alike. Its socket is world-connectable (munged makes it 0777), so
 * commands dropped to another user still authenticate. As root, our own
 * munged is also on the default socket for the cluster's processes
 * (munge_default_socket), where PMIx looks for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "local_base.h"
#include "local_munge.h"
#include "local_proc.h"

#define MUNGE_KEY_BYTES 128 /* 1024 bits */
#define MUNGE_START_TIMEOUT_MS 10000

/* 0 if a munged answers an encode on 'socket' (NULL: the default). */
static int munge_answers (const char *socket)
{
    arbor_error_t err;
    struct auth *a = auth_create (socket, &err);
    char *token = NULL;
    int rc = -1;

    if (a && auth_encode (a, "ping", 4, 0, &token, &err) == 0)
        rc = 0;
    free (token);
    auth_destroy (a);
    return rc;
}

static int write_key (const char *path)
{
    unsigned char key[MUNGE_KEY_BYTES];
    size_t got = 0;
    int fd;

    while (got < sizeof (key)) {
        ssize_t n = getrandom (key + got, sizeof (key) - got, 0);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0)
            got += (size_t)n;
    }
    unlink (path);
    fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (write (fd, key, sizeof (key)) != (ssize_t)sizeof (key)) {
        close (fd);
        return -1;
    }
    return close (fd);
}

static const char *find_munged (void)
{
    static const char *const cands[] = {
        "/usr/sbin/munged",
        "/sbin/munged",
        "/usr/local/sbin/munged",
        "/usr/bin/munged",
    };
    const char *env = getenv ("ARBOR_MUNGED");

    if (env && *env)
        return env;
    for (size_t i = 0; i < sizeof (cands) / sizeof (cands[0]); i++)
        if (access (cands[i], X_OK) == 0)
            return cands[i];
    return "munged"; /* let execvp search PATH */
}

static void munged_exec (const char *mdir, const char *out)
{
    char sock[PATH_MAX + 16], key[PATH_MAX + 16], log[PATH_MAX + 16];
    char pid[PATH_MAX + 16], seed[PATH_MAX + 16];
    const char *prog = find_munged ();
    int fd;

    local_path (sock, sizeof (sock), "--socket=%s/munge.sock", mdir);
    local_path (key, sizeof (key), "--key-file=%s/munge.key", mdir);
    local_path (log, sizeof (log), "--log-file=%s/munged.log", mdir);
    local_path (pid, sizeof (pid), "--pid-file=%s/munged.pid", mdir);
    local_path (seed, sizeof (seed), "--seed-file=%s/munged.seed", mdir);
    setsid ();
    prctl (PR_SET_PDEATHSIG, SIGTERM);
    if ((fd = open ("/dev/null", O_RDONLY)) >= 0)
        dup2 (fd, 0);
    if ((fd = open (out, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
        dup2 (fd, 1);
        dup2 (fd, 2);
    }
    /* Every stepd of a big emulated step calls munged at the same moment:
     * more threads than munged's default 2 keep its backlog short. */
    execlp (prog, prog, "-F", "-f", "--num-threads=16", sock, key, log, pid,
            seed, (char *)NULL);
    fprintf (stderr, "arbor local: exec %s: %s\n", prog, strerror (errno));
    _exit (127);
}

static int munged_wait (struct local *l)
{
    struct timespec ts = { 0, 5 * 1000 * 1000 };

    for (int waited = 0; waited < MUNGE_START_TIMEOUT_MS; waited += 5) {
        int status;
        if (waitpid (l->munged.pid, &status, WNOHANG) == l->munged.pid) {
            l->munged.pid = 0;
            local_say ("munged exited at start; its output:");
            local_print_tail (l->munged.out, 20);
            return -1;
        }
        if (munge_answers (l->munge_socket) == 0)
            return 0;
        nanosleep (&ts, NULL);
    }
    local_say ("munged did not answer on %s within %d s", l->munge_socket,
               MUNGE_START_TIMEOUT_MS / 1000);
    local_print_tail (l->munged.out, 20);
    return -1;
}

/* Our munged, with the key in DIR/munge (the one it had before, when it
 * is started again): 0 once it answers. */
static int munged_start (struct local *l)
{
    char mdir[PATH_MAX];

    local_path (mdir, sizeof (mdir), "%s/munge", l->dir);
    l->munged.pid = fork ();
    if (l->munged.pid < 0) {
        l->munged.pid = 0;
        local_say ("fork: %s", strerror (errno));
        return -1;
    }
    if (l->munged.pid == 0) {
        sigset_t none;
        sigemptyset (&none);
        sigprocmask (SIG_SETMASK, &none, NULL);
        munged_exec (mdir, l->munged.out);
    }
    return munged_wait (l);
}

/* libmunge's default socket: the only one PMIx's psec/munge reaches. */
#define MUNGE_DEFAULT_DIR "/run/munge"
#define MUNGE_DEFAULT_SOCKET MUNGE_DEFAULT_DIR "/munge.socket.2"

/* As root, make our private munged answer on libmunge's default socket
 * too, for this cluster's processes alone: a mount namespace of our own
 * (the daemons, stepds and tasks we start inherit it) where a small tmpfs
 * on /run/munge holds a link to our socket. PMIx, which can only reach
 * the default socket, then authenticates MPI clients through munged
 * (plugins/mpi/pmix), as on a site with a system munged. The host's
 * /run/munge is untouched (made if missing). Not with --netns, whose
 * namespaces live in the host's mounts. 0, or -1 (the cluster works
 * without: PMIx falls back to psec native and says so). */
static int munge_default_socket (struct local *l)
{
    if (geteuid () != 0 || l->opt.netns)
        return -1;
    if ((mkdir (MUNGE_DEFAULT_DIR, 0755) < 0 && errno != EEXIST)
        || unshare (CLONE_NEWNS) < 0
        || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0
        || mount ("arbor-munge", MUNGE_DEFAULT_DIR, "tmpfs",
                  MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k,mode=0755")
               < 0
        || symlink (l->munge_socket, MUNGE_DEFAULT_SOCKET) < 0) {
        local_say ("%s for PMIx: %s (MPI clients will not be authenticated "
                   "by munge)",
                   MUNGE_DEFAULT_SOCKET, strerror (errno));
        return -1;
    }
    return 0;
}

/* Choose the munged; start our own if none answers. */
int local_munge_setup (struct local *l)
{
    const char *env = getenv ("ARBOR_MUNGE_SOCKET");
    char mdir[PATH_MAX], keypath[PATH_MAX + 16];

    if (env && *env) {
        local_path (l->munge_socket, sizeof (l->munge_socket), "%s", env);
        if (munge_answers (l->munge_socket) < 0) {
            local_say ("no munged answers on $ARBOR_MUNGE_SOCKET (%s)",
                       l->munge_socket);
            return -1;
        }
        return 0;
    }
    if (munge_answers (NULL) == 0)
        return 0;
    local_path (mdir, sizeof (mdir), "%s/munge", l->dir);
    local_path (keypath, sizeof (keypath), "%s/munge.key", mdir);
    local_path (l->munge_socket, sizeof (l->munge_socket), "%s/munge.sock",
                mdir);
    if (strlen (l->munge_socket)
        >= sizeof (((struct sockaddr_un *)0)->sun_path)) {
        local_say ("%s: too long for a unix socket, use a shorter --dir or "
                   "TMPDIR",
                   l->munge_socket);
        return -1;
    }
    local_path (l->munged.name, sizeof (l->munged.name), "munged");
    local_path (l->munged.out, sizeof (l->munged.out), "%s/log/munged.out",
                l->dir);
    if ((mkdir (mdir, 0755) < 0 && errno != EEXIST) || chmod (mdir, 0755) < 0
        || write_key (keypath) < 0) {
        local_say ("%s: %s", mdir, strerror (errno));
        return -1;
    }
    if (munged_start (l) < 0)
        return -1;
    (void)munge_default_socket (l);
    return 0;
}

bool local_munge_ours (const struct local *l)
{
    return l->munged.name[0] != '\0';
}

int local_munge_restart (struct local *l)
{
    if (!local_munge_ours (l)) {
        errno = EPERM;
        return -1;
    }
    return munged_start (l);
}

/* Stop the munged we started, if any: SIGTERM, then SIGKILL after 3 s. */
void local_munge_stop (struct local *l)
{
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    int status;

    if (l->munged.pid <= 0)
        return;
    kill (l->munged.pid, SIGTERM);
    for (int waited = 0; waited < 3000; waited += 20) {
        if (waitpid (l->munged.pid, &status, WNOHANG) == l->munged.pid) {
            l->munged.pid = 0;
            return;
        }
        nanosleep (&ts, NULL);
    }
    kill (l->munged.pid, SIGKILL);
    waitpid (l->munged.pid, &status, 0);
    l->munged.pid = 0;
}
