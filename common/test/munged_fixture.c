/* munged_fixture.c - start and stop a private munged for unit tests. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <munge.h>

#include "munged_fixture.h"

/* $ARBOR_MUNGED (as arbor local takes it) names the program; a path that
 * is not executable means no munged, which is how the honest-skip path of
 * the tests is exercised. */
static const char *munged_path (void)
{
    const char *env = getenv ("ARBOR_MUNGED");
    if (env && *env)
        return access (env, X_OK) == 0 ? env : NULL;
    static const char *const candidates[] = {
        "/usr/sbin/munged",
        "/usr/local/sbin/munged",
        "/sbin/munged",
        NULL,
    };
    for (int i = 0; candidates[i]; i++)
        if (access (candidates[i], X_OK) == 0)
            return candidates[i];
    return NULL;
}

static int write_key (const char *path)
{
    unsigned char key[128];
    int fd = open ("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read (fd, key, sizeof (key)) != (ssize_t)sizeof (key)) {
        if (fd >= 0)
            close (fd);
        return -1;
    }
    close (fd);
    fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int rc = write (fd, key, sizeof (key)) == (ssize_t)sizeof (key) ? 0 : -1;
    close (fd);
    return rc;
}

/* munged is ready when a credential can be encoded through its socket. */
static int wait_ready (const char *socket)
{
    munge_ctx_t ctx = munge_ctx_create ();
    if (!ctx)
        return -1;
    munge_ctx_set (ctx, MUNGE_OPT_SOCKET, socket);
    for (int i = 0; i < 100; i++) {
        char *cred = NULL;
        if (munge_encode (&cred, ctx, NULL, 0) == EMUNGE_SUCCESS) {
            free (cred);
            munge_ctx_destroy (ctx);
            return 0;
        }
        usleep (50000);
    }
    munge_ctx_destroy (ctx);
    return -1;
}

int munged_fixture_start (struct munged_fixture *m)
{
    const char *munged = munged_path ();
    char key[300], log[300], pid[300], seed[300];

    memset (m, 0, sizeof (*m));
    if (!munged) {
        fprintf (stderr, "munged not installed (package munge)\n");
        return -1;
    }
    snprintf (m->dir, sizeof (m->dir), "%s/arbor-munge-XXXXXX",
              getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
    if (!mkdtemp (m->dir) || chmod (m->dir, 0755) < 0)
        return -1;
    snprintf (m->socket, sizeof (m->socket), "%s/munge.sock", m->dir);
    snprintf (key, sizeof (key), "%s/munge.key", m->dir);
    snprintf (log, sizeof (log), "%s/munged.log", m->dir);
    snprintf (pid, sizeof (pid), "%s/munged.pid", m->dir);
    snprintf (seed, sizeof (seed), "%s/munged.seed", m->dir);
    if (write_key (key) < 0)
        return -1;
    m->pid = fork ();
    if (m->pid < 0)
        return -1;
    if (m->pid == 0) {
        char a_sock[340], a_key[340], a_log[340], a_pid[340], a_seed[340];
        snprintf (a_sock, sizeof (a_sock), "--socket=%s", m->socket);
        snprintf (a_key, sizeof (a_key), "--key-file=%s", key);
        snprintf (a_log, sizeof (a_log), "--log-file=%s", log);
        snprintf (a_pid, sizeof (a_pid), "--pid-file=%s", pid);
        snprintf (a_seed, sizeof (a_seed), "--seed-file=%s", seed);
        execl (munged, munged, "-F", "-f", a_sock, a_key, a_log, a_pid, a_seed,
               (char *)NULL);
        _exit (127);
    }
    if (wait_ready (m->socket) < 0) {
        fprintf (stderr, "munged did not start (see %s)\n", log);
        munged_fixture_stop (m);
        return -1;
    }
    return 0;
}

void munged_fixture_stop (struct munged_fixture *m)
{
    char cmd[300];

    if (m->pid > 0) {
        kill (m->pid, SIGTERM);
        waitpid (m->pid, NULL, 0);
        m->pid = 0;
    }
    if (m->dir[0]) {
        snprintf (cmd, sizeof (cmd), "rm -rf '%s'", m->dir);
        if (system (cmd) != 0)
            fprintf (stderr, "could not remove %s\n", m->dir);
        m->dir[0] = '\0';
    }
}
