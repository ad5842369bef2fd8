/* plugin_test.c - unit tests for the plugin loader (plugins/plugin.c) and
 * proctrack_load(): a good plugin loads and runs, and each kind of
 * mismatch is refused with an errno and a sentence naming it; a copy of
 * this program in a relocated installation tree finds that tree's plugin
 * directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "plugin.h"
#include "proctrack.h"

struct fake_daemon {
    char logged[256];
    int level;
};

static void fake_log (void *arg, int level, const char *msg)
{
    struct fake_daemon *d = arg;
    snprintf (d->logged, sizeof (d->logged), "%s", msg);
    d->level = level;
}

static const char *fake_conf (void *arg, const char *key)
{
    return !strcmp (key, "Answer") ? "42" : NULL;
}

static int load (const char *name, struct plugin **p, arbor_error_t *err)
{
    return plugin_load (ARBOR_TEST_FAKE_PLUGIN_DIR, PROCTRACK_TYPE, name,
                        PROCTRACK_OPS_VERSION, sizeof (struct proctrack_ops),
                        proctrack_ops_check, p, err);
}

/* 'name' must be refused with errno 'want' and text containing 'text'. */
static void check_refused (const char *name, int want, const char *text)
{
    arbor_error_t err = { "" };
    struct plugin *p = (struct plugin *)0x1;

    errno = 0;
    assert_int_equal (load (name, &p, &err), -1);
    if (errno != want || !strstr (err.text, text))
        fail_msg ("%s: errno %d (%s), text '%s'; wanted errno %d, '%s'", name,
                  errno, strerror (errno), err.text, want, text);
    assert_ptr_equal (p, (struct plugin *)0x1); /* untouched on failure */
}

static void test_good (void **state)
{
    struct fake_daemon d = { "", -1 };
    struct plugin_env env = { .arg = &d,
                              .log = fake_log,
                              .conf_get = fake_conf };
    arbor_error_t err = { "" };
    const struct proctrack_ops *ops;
    struct plugin *p = NULL;
    void *ctx = NULL;

    if (load ("good", &p, &err) < 0)
        fail_msg ("%s", err.text);
    assert_string_equal (plugin_name (p), "good");
    assert_string_equal (plugin_type (p), "proctrack");
    assert_non_null (strstr (plugin_path (p), "/proctrack_good.so"));
    ops = plugin_ops (p);
    assert_int_equal (ops->init (&env, &ctx, &err), 0);
    assert_string_equal (d.logged, "fake: init, answer=42");
    assert_int_equal (d.level, PLUGIN_LOG_INFO);
    assert_int_equal (ops->is_empty (ctx), 1);
    ops->fini (ctx);
    plugin_unload (p);

    /* "type/name" form, as ProctrackType writes it. */
    assert_int_equal (load ("proctrack/good", &p, &err), 0);
    plugin_unload (p);
    plugin_unload (NULL);
}

static void test_refused (void **state)
{
    char want[128];

    check_refused ("badabi", EPROTO, "plugin abi 2, expected 1");
    check_refused ("badtype", EPROTO,
                   "plugin type 'mpi', expected "
                   "'proctrack'");
    check_refused ("badname", EPROTO,
                   "plugin name 'someoneelse', expected "
                   "'badname'");
    snprintf (want, sizeof (want), "proctrack ops version %d, expected %d",
              PROCTRACK_OPS_VERSION + 1, PROCTRACK_OPS_VERSION);
    check_refused ("badversion", EPROTO, want);
    check_refused ("badsize", EPROTO, "ops_size");
    check_refused ("badsize", EPROTO, "(rebuild the plugin)");
    check_refused ("nullop", EINVAL, "required op 'signal' is NULL");
    check_refused ("nosym", ENOEXEC, "no 'arbor_plugin' symbol");
    check_refused ("missing", ENOENT, "proctrack_missing.so: No such file");
    check_refused ("mpi/good", EINVAL, "is not of type proctrack");
    check_refused ("proctrack/../good", EINVAL, "bad name");
    check_refused ("../good", EINVAL, "is not of type proctrack");
    check_refused ("", EINVAL, "empty");
}

static void test_badsize_text (void **state)
{
    arbor_error_t err = { "" };
    struct plugin *p;
    char want[128];

    snprintf (want, sizeof (want),
              "proctrack_badsize.so: ops_size %zu, "
              "expected %zu (rebuild the plugin)",
              sizeof (struct proctrack_ops) - sizeof (void *),
              sizeof (struct proctrack_ops));
    assert_int_equal (load ("badsize", &p, &err), -1);
    assert_string_equal (err.text, want);
}

static void test_static (void **state)
{
    struct arbor_plugin bad = *proctrack_pgid_plugin ();
    arbor_error_t err = { "" };
    struct plugin *p = NULL;

    p = proctrack_load (NULL, "proctrack/pgid", &err);
    assert_non_null (p);
    assert_string_equal (plugin_path (p), "(static)");
    assert_string_equal (plugin_name (p), "pgid");
    plugin_unload (p);

    bad.ops_size--;
    assert_int_equal (plugin_open_static (&bad, PROCTRACK_TYPE,
                                          PROCTRACK_OPS_VERSION,
                                          sizeof (struct proctrack_ops),
                                          proctrack_ops_check, &p, &err),
                      -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "pgid: ops_size"));
}

/* The real plugins, as built: both load through dlopen. */
static void test_real_modules (void **state)
{
    arbor_error_t err = { "" };
    struct plugin *p = NULL;

    if (plugin_load (ARBOR_TEST_PLUGIN_DIR, PROCTRACK_TYPE, "pgid",
                     PROCTRACK_OPS_VERSION, sizeof (struct proctrack_ops),
                     proctrack_ops_check, &p, &err)
        < 0)
        fail_msg ("%s", err.text);
    assert_string_equal (plugin_name (p), "pgid");
    plugin_unload (p);
    if (!(p = proctrack_load (ARBOR_TEST_PLUGIN_DIR, "proctrack/cgroup", &err)))
        fail_msg ("%s", err.text);
    assert_string_equal (plugin_name (p), "cgroup");
    assert_non_null (strstr (plugin_path (p), "proctrack_cgroup.so"));
    plugin_unload (p);
    assert_null (
        proctrack_load (ARBOR_TEST_PLUGIN_DIR, "proctrack/nope", &err));
    assert_int_equal (errno, ENOENT);
}

static void test_default_dir (void **state)
{
    char buf[4096];

    setenv ("ARBOR_PLUGIN_DIR", "/some/where", 1);
    assert_string_equal (plugin_default_dir (buf, sizeof (buf)), "/some/where");
    unsetenv ("ARBOR_PLUGIN_DIR");
    /* From build/test-bin, ../lib/plugins is the build's plugin dir. */
    assert_non_null (
        strstr (plugin_default_dir (buf, sizeof (buf)), "lib/plugins"));
}

/* mkdir -p 'path' (every component 0755). */
static void mkdirs (const char *path)
{
    char buf[PATH_MAX];

    snprintf (buf, sizeof (buf), "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        (void)mkdir (buf, 0755);
        *p = '/';
    }
    if (mkdir (buf, 0755) < 0 && errno != EEXIST)
        fail_msg ("mkdir %s: %s", buf, strerror (errno));
}

/* Copy this program to 'dst', executable. */
static void copy_self (const char *dst)
{
    int in = open ("/proc/self/exe", O_RDONLY);
    int out = open (dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    struct stat st;

    if (in < 0 || out < 0 || fstat (in, &st) < 0)
        fail_msg ("copy to %s: %s", dst, strerror (errno));
    for (off_t off = 0; off < st.st_size;)
        if (sendfile (out, in, &off, (size_t)(st.st_size - off)) <= 0)
            fail_msg ("copy to %s: %s", dst, strerror (errno));
    close (in);
    close (out);
}

/* What 'exe --default-dir' prints (plugin_default_dir () there). */
static void default_dir_of (const char *exe, char *buf, size_t size)
{
    int fd[2], status;
    ssize_t n;
    pid_t pid;

    assert_int_equal (pipe (fd), 0);
    if ((pid = fork ()) == 0) {
        dup2 (fd[1], 1);
        unsetenv ("ARBOR_PLUGIN_DIR");
        execl (exe, exe, "--default-dir", (char *)NULL);
        _exit (127);
    }
    close (fd[1]);
    n = read (fd[0], buf, size - 1);
    close (fd[0]);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    buf[n > 0 ? n : 0] = '\0';
}

/* An installation tree ("cmake --install --prefix", or dpkg -x) finds its
 * own plugins, PREFIX/sbin/../LIBDIR/arbor, wherever it is moved; one
 * without them falls back to the configured directory. */
static void test_relocated_dir (void **state)
{
    char tmp[] = "/tmp/plugin_test.XXXXXX", a[PATH_MAX], b[PATH_MAX];
    char exe[PATH_MAX + 32], want[PATH_MAX + 64], got[PATH_MAX + 64];

    if (!*ARBOR_PLUGINDIR_REL)
        skip (); /* a libdir outside the prefix: no relative lookup */
    assert_non_null (mkdtemp (tmp));
    snprintf (a, sizeof (a), "%s/prefix", tmp);
    snprintf (b, sizeof (b), "%s/moved", tmp);
    snprintf (want, sizeof (want), "%s/sbin", a);
    mkdirs (want);
    snprintf (want, sizeof (want), "%s/%s", a, ARBOR_PLUGINDIR_REL);
    mkdirs (want);
    snprintf (exe, sizeof (exe), "%s/sbin/plugin_test", a);
    copy_self (exe);

    default_dir_of (exe, got, sizeof (got));
    snprintf (want, sizeof (want), "%s/sbin/../%s", a, ARBOR_PLUGINDIR_REL);
    assert_string_equal (got, want);

    assert_int_equal (rename (a, b), 0);
    snprintf (exe, sizeof (exe), "%s/sbin/plugin_test", b);
    default_dir_of (exe, got, sizeof (got));
    snprintf (want, sizeof (want), "%s/sbin/../%s", b, ARBOR_PLUGINDIR_REL);
    assert_string_equal (got, want);

    snprintf (want, sizeof (want), "%s/%s", b, ARBOR_PLUGINDIR_REL);
    assert_int_equal (rmdir (want), 0);
    default_dir_of (exe, got, sizeof (got));
    assert_string_equal (got, ARBOR_PLUGINDIR);

    snprintf (want, sizeof (want), "rm -rf '%s'", tmp);
    assert_int_equal (system (want), 0);
}

int main (int argc, char **argv)
{
    char buf[PATH_MAX];

    /* test_relocated_dir runs a copy of us this way */
    if (argc > 1 && !strcmp (argv[1], "--default-dir")) {
        printf ("%s", plugin_default_dir (buf, sizeof (buf)));
        return 0;
    }

    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_good),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_badsize_text),
        cmocka_unit_test (test_static),
        cmocka_unit_test (test_real_modules),
        cmocka_unit_test (test_default_dir),
        cmocka_unit_test (test_relocated_dir),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
