/* gres_load_test.c - the node's generic resources as its noded loads them
 * (noded/gres/gres_load.c): arbor.conf and gres.conf written to a temp
 * directory, AutoDetect=nvml against the fake library
 * (ARBOR_NVML_LIBRARY=test/nvml_fake.c's build), a missing library, a
 * failing one, and gres.conf errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "gres/gres_load.h"
#include "gresnode.h"
#include "log.h"

struct dir {
    char path[64];
};

static void write_file (const struct dir *d, const char *name, const char *text)
{
    char path[128];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", d->path, name);
    assert_non_null (f = fopen (path, "w"));
    fputs (text, f);
    fclose (f);
}

static int setup (void **state)
{
    struct dir *d = calloc (1, sizeof (*d));
    char log[128];

    if (!d)
        return -1;
    strcpy (d->path, "/tmp/gres_load_test.XXXXXX");
    if (!mkdtemp (d->path))
        return -1;
    snprintf (log, sizeof (log), "%s/noded.log", d->path);
    log_open ("gres_load_test", LOG_LVL_INFO, log);
    setenv (GRES_NVML_ENV, NVML_FAKE_PATH, 1);
    unsetenv ("NVML_FAKE_FAIL");
    unsetenv ("NVML_FAKE_TRACE");
    unsetenv ("NVML_FAKE_COUNT");
    *state = d;
    return 0;
}

static int teardown (void **state)
{
    struct dir *d = *state;
    char cmd[128];

    log_close ();
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", d->path);
    if (system (cmd) != 0)
        return -1;
    free (d);
    return 0;
}

/* Load arbor.conf from d and the resources of 'node' as text (static). */
static const char *load_text (const struct dir *d, const char *node)
{
    static char text[512];
    char path[128], *s;
    arbor_error_t err = { "" };
    struct gresnode g;
    struct conf *c;

    snprintf (path, sizeof (path), "%s/arbor.conf", d->path);
    if (!(c = conf_load (path, &err)))
        fail_msg ("conf_load: %s", err.text);
    if (noded_gres_load (c, node, &g, &err) < 0)
        fail_msg ("noded_gres_load: %s", err.text);
    assert_non_null (s = gresnode_text (&g));
    snprintf (text, sizeof (text), "%s", s);
    free (s);
    gresnode_clear (&g);
    conf_destroy (c);
    return text;
}

/* How many lines of the test's log hold 'what'. */
static int log_count (const struct dir *d, const char *what)
{
    char path[128], line[512];
    FILE *f;
    int n = 0;

    snprintf (path, sizeof (path), "%s/noded.log", d->path);
    if (!(f = fopen (path, "r")))
        return 0;
    while (fgets (line, sizeof (line), f))
        n += strstr (line, what) != NULL;
    fclose (f);
    return n;
}

static const char *const arbor_conf = "GresTypes=gpu,nic\n"
                                      "NodeName=n1 Gres=gpu:a100:2,nic:1\n"
                                      "NodeName=n2 Gres=nic:1\n"
                                      "PartitionName=p Nodes=ALL\n";

static void test_no_gres_conf (void **state)
{
    struct dir *d = *state;

    write_file (d, "arbor.conf", arbor_conf);
    assert_string_equal (load_text (d, "n1"), "gpu:a100:2,nic:1");
    assert_string_equal (load_text (d, "n2"), "nic:1");
}

static void test_configured (void **state)
{
    struct dir *d = *state;

    write_file (d, "arbor.conf", arbor_conf);
    write_file (d, "gres.conf",
                "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n");
    assert_string_equal (load_text (d, "n1"),
                         "gpu:a100:2(/dev/nvidia[0-1]),nic:1");
    assert_string_equal (load_text (d, "n2"), "nic:1");
    assert_int_equal (log_count (d, "AutoDetect"), 0);
}

/* The fake's two "NVIDIA A100-SXM4-40GB" take Gres='s type "a100". */
static void test_autodetect (void **state)
{
    struct dir *d = *state;

    write_file (d, "arbor.conf", arbor_conf);
    write_file (d, "gres.conf",
                "AutoDetect=nvml\n"
                "NodeName=n1 Name=gpu File=/dev/nvidia[0-3]\n");
    assert_string_equal (load_text (d, "n1"),
                         "gpu:a100:2(/dev/nvidia[0-1]),nic:1");
    assert_int_equal (log_count (d, "AutoDetect=nvml: 2 GPUs: "
                                    "gpu:nvidia_a100-sxm4-40gb:2"),
                      1);
}

static void test_library_absent (void **state)
{
    struct dir *d = *state;

    setenv (GRES_NVML_ENV, "/nonexistent/libnvidia-ml.so.1", 1);
    write_file (d, "arbor.conf", arbor_conf);
    write_file (d, "gres.conf",
                "AutoDetect=nvml\n"
                "NodeName=n1 Name=gpu File=/dev/nvidia[0-3]\n");
    assert_string_equal (load_text (d, "n1"), "gpu:4(/dev/nvidia[0-3]),nic:1");
    assert_int_equal (log_count (d, "warn"), 1);
    assert_int_equal (log_count (d, "AutoDetect=nvml: NVML library not "
                                    "found; using the configuration"),
                      1);
}

static void test_library_fails (void **state)
{
    struct dir *d = *state;

    setenv ("NVML_FAKE_FAIL", "nvmlInit_v2", 1);
    write_file (d, "arbor.conf", arbor_conf);
    write_file (d, "gres.conf", "NodeName=n1 AutoDetect=nvml\n");
    assert_string_equal (load_text (d, "n1"), "gpu:a100:2,nic:1");
    assert_int_equal (log_count (d, "AutoDetect=nvml: NVML: nvmlInit_v2: "
                                    "Unknown Error; using the configuration"),
                      1);
}

static void test_other_mechanism (void **state)
{
    struct dir *d = *state;

    write_file (d, "arbor.conf", arbor_conf);
    write_file (d, "gres.conf", "AutoDetect=rsmi\n");
    assert_string_equal (load_text (d, "n2"), "nic:1");
    assert_int_equal (log_count (d, "AutoDetect=rsmi is not supported"), 1);
}

static void test_errors (void **state)
{
    struct dir *d = *state;
    char path[128];
    arbor_error_t err = { "" };
    struct gresnode g;
    struct conf *c;

    write_file (d, "arbor.conf", arbor_conf);
    write_file (d, "gres.conf", "Name=nic Count=1\nName=fpga Count=1\n");
    snprintf (path, sizeof (path), "%s/arbor.conf", d->path);
    assert_non_null (c = conf_load (path, &err));
    errno = 0;
    assert_int_equal (noded_gres_load (c, "n1", &g, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (g.n, 0);
    assert_string_equal (err.text, "gres.conf line 2: Name=fpga is not in "
                                   "GresTypes (add GresTypes=fpga)");
    write_file (d, "gres.conf", "Name=nic Cnt=1\n");
    assert_int_equal (noded_gres_load (c, "n1", &g, &err), -1);
    assert_string_equal (err.text, "gres.conf line 1: unknown key 'Cnt'");
    conf_destroy (c);
}

static void test_conf_path (void **state)
{
    char *p;

    (void)state;
    assert_non_null (p = noded_gres_conf_path ("/etc/arbor/arbor.conf"));
    assert_string_equal (p, "/etc/arbor/gres.conf");
    free (p);
    assert_non_null (p = noded_gres_conf_path ("/arbor.conf"));
    assert_string_equal (p, "/gres.conf");
    free (p);
    assert_non_null (p = noded_gres_conf_path ("arbor.conf"));
    assert_string_equal (p, "gres.conf");
    free (p);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_no_gres_conf, setup, teardown),
        cmocka_unit_test_setup_teardown (test_configured, setup, teardown),
        cmocka_unit_test_setup_teardown (test_autodetect, setup, teardown),
        cmocka_unit_test_setup_teardown (test_library_absent, setup, teardown),
        cmocka_unit_test_setup_teardown (test_library_fails, setup, teardown),
        cmocka_unit_test_setup_teardown (test_other_mechanism, setup, teardown),
        cmocka_unit_test_setup_teardown (test_errors, setup, teardown),
        cmocka_unit_test (test_conf_path),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
