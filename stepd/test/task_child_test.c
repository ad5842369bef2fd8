/* task_child_test.c - a task started from its plan: sharing the stepd's
 * memory when it adds itself to its container, forked and waiting for
 * 'go' when it does not, its pid in SLURM_TASK_PID, its setup and exec
 * failures, its signals and groups. contain_add_self is this file's: it
 * records which process called it, in memory a shared child writes
 * through and a forked child does not. Dropping to another user needs
 * root (skipped otherwise, skip.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "contain.h" /* contain_add_self, defined here (no contain.c) */
#include "skip.h"
#include "task_child.h"

static volatile pid_t added_by; /* who called contain_add_self */
static int add_fails;           /* errno to fail contain_add_self with */

int contain_add_self (struct stepd *sd)
{
    (void)sd;
    added_by = (pid_t)getpid ();
    if (add_fails) {
        errno = add_fails;
        return -1;
    }
    return 0;
}

struct run {
    struct task_plan plan;
    int sigs[NSIG];
    char slot_env[32];
    char *envp[3];
    int out[2], status[2], go[2];
    pid_t pid;
    int wstatus;
    char output[256];  /* the task's stdout and stderr */
    char failure[256]; /* what it wrote on the status pipe */
};

static void run_init (struct run *r, char **argv, bool go)
{
    memset (r, 0, sizeof (*r));
    snprintf (r->slot_env, sizeof (r->slot_env), "SLURM_TASK_PID=%*s",
              TASK_PID_ROOM - 1, "");
    r->envp[0] = "PATH=/usr/bin:/bin";
    r->envp[1] = r->slot_env;
    assert_int_equal (pipe2 (r->out, O_CLOEXEC), 0);
    assert_int_equal (pipe2 (r->status, O_CLOEXEC), 0);
    r->go[0] = r->go[1] = -1;
    if (go)
        assert_int_equal (pipe2 (r->go, O_CLOEXEC), 0);
    r->plan.in = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    r->plan.out = r->plan.err = r->out[1];
    r->plan.status = r->status[1];
    r->plan.go = r->go[0];
    r->plan.go_peer = r->go[1];
    r->plan.umask = -1;
    r->plan.pid_slot = r->slot_env + strlen ("SLURM_TASK_PID=");
    r->plan.argv = argv;
    r->plan.envp = r->envp;
    r->plan.sigs = r->sigs;
    r->plan.nsigs = task_plan_signals (r->sigs);
    added_by = 0;
    add_fails = 0;
}

static ssize_t read_all (int fd, char *buf, size_t size)
{
    size_t len = 0;
    ssize_t n;

    while (len < size - 1 && (n = read (fd, buf + len, size - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    return (ssize_t)len;
}

/* Start; let a forked child go; collect its output, failure and status. */
static void run_finish (struct run *r)
{
    r->pid = task_child_start (&r->plan);
    assert_true (r->pid > 0);
    close (r->plan.in);
    close (r->out[1]);
    close (r->status[1]);
    if (r->go[0] >= 0) {
        close (r->go[0]);
        assert_int_equal (write (r->go[1], "g", 1), 1);
        close (r->go[1]);
    }
    read_all (r->status[0], r->failure, sizeof (r->failure));
    read_all (r->out[0], r->output, sizeof (r->output));
    close (r->status[0]);
    close (r->out[0]);
    assert_int_equal (waitpid (r->pid, &r->wstatus, 0), r->pid);
}

/* Adding itself, the child shares our memory: its call is seen here,
 * and so is the pid it wrote into its environment. */
static void test_shared_child (void **state)
{
    char *argv[] = { "sh", "-c", "echo \"pid=$SLURM_TASK_PID\"", NULL };
    struct run r;
    char want[64];

    (void)state;
    run_init (&r, argv, false);
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
    assert_int_equal (added_by, r.pid);
    snprintf (want, sizeof (want), "pid=%ld\n", (long)r.pid);
    assert_string_equal (r.output, want);
    assert_int_equal (atol (r.plan.pid_slot), (long)r.pid);
    assert_string_equal (r.failure, "");
}

/* Waiting for 'go', the child is a fork: its call is not seen here. */
static void test_forked_child_waits_for_go (void **state)
{
    char *argv[] = { "sh", "-c", "echo \"pid=$SLURM_TASK_PID\"", NULL };
    struct run r;
    char want[64];

    (void)state;
    run_init (&r, argv, true);
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
    assert_int_equal (added_by, 0);
    snprintf (want, sizeof (want), "pid=%ld\n", (long)r.pid);
    assert_string_equal (r.output, want);
}

/* A forked child whose 'go' never comes runs nothing. */
static void test_no_go_runs_nothing (void **state)
{
    char *argv[] = { "sh", "-c", "echo ran", NULL };
    struct run r;

    (void)state;
    run_init (&r, argv, true);
    r.pid = task_child_start (&r.plan);
    assert_true (r.pid > 0);
    close (r.go[0]);
    close (r.go[1]); /* unwritten */
    close (r.out[1]);
    close (r.status[1]);
    read_all (r.out[0], r.output, sizeof (r.output));
    assert_int_equal (waitpid (r.pid, &r.wstatus, 0), r.pid);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 1);
    assert_string_equal (r.output, "");
    close (r.plan.in);
    close (r.out[0]);
    close (r.status[0]);
}

/* Not contained: the failure reaches the stepd, nothing runs. */
static void test_add_failure_reported (void **state)
{
    char *argv[] = { "sh", "-c", "echo ran", NULL };
    struct run r;

    (void)state;
    run_init (&r, argv, false);
    add_fails = EACCES;
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 1);
    assert_non_null (strstr (r.failure, "cannot put itself in the step's "
                                        "container: Permission denied"));
    assert_string_equal (r.output, "");
}

/* Command not found and a missing directory are the task's own
 * failures: on its stderr, exit 2 and 1. */
static void test_exec_and_chdir_failures (void **state)
{
    char *argv[] = { "arbor-no-such-command", NULL };
    char *ok[] = { "true", NULL };
    struct run r;

    (void)state;
    run_init (&r, argv, false);
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 2);
    assert_non_null (strstr (r.output, "execve arbor-no-such-command: "
                                       "No such file or directory"));
    run_init (&r, ok, false);
    r.plan.cwd = "/arbor-no-such-dir";
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 1);
    assert_non_null (strstr (r.output, "chdir /arbor-no-such-dir"));
}

/* The search is the task's PATH, not ours: a PATH that names only a
 * directory of our own finds our command there; none at all is
 * execvp's default; a file the kernel cannot run goes to /bin/sh; a
 * command found only without execute permission is EACCES. */
static void test_exec_path_search (void **state)
{
    char dir[] = "/tmp/task-child-path-XXXXXX", path[128], env[160];
    char *mine[] = { "arbor-test-cmd", "a1", NULL };
    char *plain[] = { "true", NULL };
    struct run r;
    FILE *f;

    (void)state;
    assert_non_null (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/arbor-test-cmd", dir);
    assert_non_null (f = fopen (path, "w"));
    fputs ("echo \"script $0 $1\"\n", f); /* no #!: ENOEXEC, then sh */
    fclose (f);
    assert_int_equal (chmod (path, 0755), 0);
    run_init (&r, mine, false);
    snprintf (env, sizeof (env), "PATH=/arbor-none:%s", dir);
    r.envp[0] = env;
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
    snprintf (env, sizeof (env), "script %s a1\n", path);
    assert_string_equal (r.output, env);
    /* no execute bit (root too): refused as execvp refuses */
    assert_int_equal (chmod (path, 0644), 0);
    run_init (&r, mine, false);
    snprintf (env, sizeof (env), "PATH=%s", dir);
    r.envp[0] = env;
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 2);
    assert_non_null (strstr (r.output, "Permission denied"));
    /* no PATH in the task's environment: /bin:/usr/bin */
    run_init (&r, plain, false);
    r.envp[0] = r.slot_env;
    r.envp[1] = NULL;
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
    unlink (path);
    rmdir (dir);
}

/* A thread of ours (as PMIx's server) changing environ all along does
 * not keep the child from sharing our memory, nor disturb it. */
static volatile int churn_stop;

static void *churn (void *arg)
{
    (void)arg;
    while (!churn_stop) {
        setenv ("ARBOR_TEST_CHURN", "1", 1);
        unsetenv ("ARBOR_TEST_CHURN");
    }
    return NULL;
}

static void test_shared_with_a_thread (void **state)
{
    char *argv[] = { "sh", "-c", "echo \"[$ARBOR_TEST_CHURN]\"", NULL };
    pthread_t t;
    struct run r;

    (void)state;
    churn_stop = 0;
    assert_int_equal (pthread_create (&t, NULL, churn, NULL), 0);
    for (int i = 0; i < 20; i++) {
        run_init (&r, argv, false);
        run_finish (&r);
        assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
        assert_int_equal (added_by, r.pid); /* shared, not forked */
        assert_string_equal (r.output, "[]\n");
    }
    churn_stop = 1;
    pthread_join (t, NULL);
}

/* Signals we catch or ignore are the task's defaults again, and none is
 * blocked; the umask and directory are the plan's. */
static void test_signals_umask_cwd (void **state)
{
    char *argv[] = { "sh", "-c",
                     "grep -E '^Sig(Ign|Blk)' /proc/self/status; umask; pwd",
                     NULL };
    struct sigaction ign = { .sa_handler = SIG_IGN };
    sigset_t usr2, old;
    struct run r;

    (void)state;
    sigaction (SIGUSR1, &ign, NULL);
    sigemptyset (&usr2);
    sigaddset (&usr2, SIGUSR2);
    sigprocmask (SIG_BLOCK, &usr2, &old);
    run_init (&r, argv, false);
    r.plan.umask = 027;
    r.plan.cwd = "/";
    run_finish (&r);
    sigprocmask (SIG_SETMASK, &old, NULL);
    signal (SIGUSR1, SIG_DFL);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
    /* sh ignores nothing itself when not interactive */
    assert_non_null (strstr (r.output, "SigIgn:\t0000000000000000\n"));
    assert_non_null (strstr (r.output, "SigBlk:\t0000000000000000\n"));
    assert_non_null (strstr (r.output, "0027\n/\n"));
}

static void test_plan_signals (void **state)
{
    struct sigaction ign = { .sa_handler = SIG_IGN };
    int sigs[NSIG], n;
    bool usr1 = false, kill9 = false;

    (void)state;
    sigaction (SIGUSR1, &ign, NULL);
    n = task_plan_signals (sigs);
    signal (SIGUSR1, SIG_DFL);
    for (int i = 0; i < n; i++) {
        usr1 |= sigs[i] == SIGUSR1;
        kill9 |= sigs[i] == SIGKILL;
    }
    assert_true (usr1);
    assert_false (kill9);
}

static void test_plan_groups (void **state)
{
    const gid_t cred[] = { 100, 7, 8 };
    gid_t *g = NULL;
    bool has_gid = false;
    int n;

    (void)state;
    n = task_plan_groups ("root", 0, cred, 3, &g); /* the credential's */
    assert_int_equal (n, 3);
    assert_memory_equal (g, cred, sizeof (cred));
    free (g);
    n = task_plan_groups (NULL, 42, NULL, 0, &g); /* no name: gid alone */
    assert_int_equal (n, 1);
    assert_int_equal (g[0], 42);
    free (g);
    n = task_plan_groups ("root", 4242, NULL, 0, &g); /* the database's */
    assert_true (n >= 1);
    for (int i = 0; i < n; i++)
        has_gid |= g[i] == 4242;
    assert_true (has_gid);
    free (g);
}

/* As root: the task runs as the plan's user and groups, not root. */
static void test_drop_privileges (void **state)
{
    char *argv[] = { "sh", "-c", "id -u; id -g; id -G", NULL };
    const gid_t groups[] = { 65534, 4242 };
    struct run r;

    (void)state;
    if (getuid () != 0) {
        ARBOR_SKIP ("dropping to another user needs root");
        return;
    }
    run_init (&r, argv, false);
    r.plan.drop = true;
    r.plan.uid = 65534;
    r.plan.gid = 65534;
    r.plan.gids = groups;
    r.plan.ngids = 2;
    run_finish (&r);
    assert_true (WIFEXITED (r.wstatus) && WEXITSTATUS (r.wstatus) == 0);
    assert_string_equal (r.output, "65534\n65534\n65534 4242\n");
    assert_int_equal (getuid (), 0); /* a shared child left us root */
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_shared_child),
        cmocka_unit_test (test_forked_child_waits_for_go),
        cmocka_unit_test (test_no_go_runs_nothing),
        cmocka_unit_test (test_add_failure_reported),
        cmocka_unit_test (test_exec_and_chdir_failures),
        cmocka_unit_test (test_exec_path_search),
        cmocka_unit_test (test_shared_with_a_thread),
        cmocka_unit_test (test_signals_umask_cwd),
        cmocka_unit_test (test_plan_signals),
        cmocka_unit_test (test_plan_groups),
        cmocka_unit_test (test_drop_privileges),
    };

    return arbor_test_exit (cmocka_run_group_tests (tests, NULL, NULL));
}
