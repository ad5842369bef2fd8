/* plugin_test.c - unit tests for the plugin loader (common/plugin.c) and
 * proctrack_load(): a good plugin loads and runs, and each kind of
 * mismatch is refused with an errno and a sentence naming it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_good),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_badsize_text),
        cmocka_unit_test (test_static),
        cmocka_unit_test (test_real_modules),
        cmocka_unit_test (test_default_dir),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
