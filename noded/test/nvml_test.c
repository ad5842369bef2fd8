/* nvml_test.c - AutoDetect=nvml (noded/gres/nvml.c) against the fake
 * library test/nvml_fake.c: the items of two GPUs, type names, CPU lists,
 * a missing library, a library lacking a call, failing calls, and that
 * the library is shut down and closed every time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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

#include "gres/nvml.h"
#include "gresnode.h"

/* NVML_FAKE_TRACE's file, fresh for each test. */
static char trace_path[] = "/tmp/nvml_test.XXXXXX";

static int setup (void **state)
{
    int fd = mkstemp (trace_path);

    if (fd < 0)
        return -1;
    close (fd);
    setenv ("NVML_FAKE_TRACE", trace_path, 1);
    unsetenv ("NVML_FAKE_FAIL");
    unsetenv ("NVML_FAKE_COUNT");
    return 0;
}

static int teardown (void **state)
{
    unlink (trace_path);
    strcpy (trace_path, "/tmp/nvml_test.XXXXXX");
    return 0;
}

/* What the fake was asked: "init shutdown " and so on. */
static const char *trace (void)
{
    static char text[256];
    FILE *f = fopen (trace_path, "r");
    size_t n = f ? fread (text, 1, sizeof (text) - 1, f) : 0;

    text[n] = '\0';
    for (char *p = text; *p; p++)
        if (*p == '\n')
            *p = ' ';
    if (f)
        fclose (f);
    return text;
}

/* Nothing keeps the fake loaded once nvml_detect returns. */
static void assert_closed (void)
{
    void *h = dlopen (NVML_FAKE_PATH, RTLD_NOW | RTLD_NOLOAD);

    if (h) {
        dlclose (h);
        fail_msg ("the fake library is still loaded");
    }
}

static void test_two_gpus (void **state)
{
    struct gresnode g = { NULL, 0 };
    arbor_error_t err = { "" };

    (void)state;
    if (nvml_detect (NVML_FAKE_PATH, &g, &err) < 0)
        fail_msg ("nvml_detect: %s", err.text);
    assert_int_equal (g.n, 2);
    for (size_t i = 0; i < 2; i++) {
        char file[32];
        snprintf (file, sizeof (file), "/dev/nvidia%zu", i);
        assert_string_equal (g.v[i].name, "gpu");
        assert_string_equal (g.v[i].type, "nvidia_a100-sxm4-40gb");
        assert_int_equal (g.v[i].count, 1);
        assert_int_equal (g.v[i].nfiles, 1);
        assert_string_equal (g.v[i].files[0], file);
        assert_null (g.v[i].flags);
    }
    assert_string_equal (g.v[0].cores, "0-3");
    assert_string_equal (g.v[1].cores, "4-7");
    assert_string_equal (trace (), "init shutdown ");
    assert_closed ();
    gresnode_clear (&g);
}

/* Items are appended to what out holds; no GPUs is no items. */
static void test_append_and_none (void **state)
{
    struct gres_item nic = { .name = "nic", .count = 1 };
    struct gresnode g = { NULL, 0 };
    arbor_error_t err = { "" };

    (void)state;
    assert_int_equal (gresnode_add (&g, &nic), 0);
    setenv ("NVML_FAKE_COUNT", "3", 1);
    assert_int_equal (nvml_detect (NVML_FAKE_PATH, &g, &err), 0);
    assert_int_equal (g.n, 4);
    assert_string_equal (g.v[0].name, "nic");
    assert_string_equal (g.v[3].files[0], "/dev/nvidia2");
    assert_string_equal (g.v[3].cores, "8-11");
    setenv ("NVML_FAKE_COUNT", "0", 1);
    assert_int_equal (nvml_detect (NVML_FAKE_PATH, &g, &err), 0);
    assert_int_equal (g.n, 4);
    assert_closed ();
    gresnode_clear (&g);
}

static void test_absent (void **state)
{
    struct gresnode g = { NULL, 0 };
    arbor_error_t err = { "" };
    const char *want = "NVML: /nonexistent/libnvidia-ml.so.1 not found: ";

    (void)state;
    errno = 0;
    assert_int_equal (nvml_detect ("/nonexistent/libnvidia-ml.so.1", &g, &err),
                      -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (strncmp (err.text, want, strlen (want)), 0);
    assert_int_equal (g.n, 0);
    assert_string_equal (trace (), "");
}

/* A library that is not NVML: the first call it lacks is named. */
static void test_not_nvml (void **state)
{
    struct gresnode g = { NULL, 0 };
    arbor_error_t err = { "" };

    (void)state;
    errno = 0;
    assert_int_equal (nvml_detect ("libm.so.6", &g, &err), -1);
    assert_int_equal (errno, ENOSYS);
    assert_string_equal (err.text, "NVML: libm.so.6 lacks nvmlInit_v2");
}

/* Each failing call is named with NVML's words; nothing is added, and
 * the library is still shut down (when it was started) and closed. */
static void test_failures (void **state)
{
    static const struct {
        const char *fail, *want, *trace;
    } cases[] = {
        { "nvmlInit_v2", "NVML: nvmlInit_v2: Unknown Error", "init " },
        { "nvmlDeviceGetCount_v2:3",
          "NVML: nvmlDeviceGetCount_v2: Not Supported", "init shutdown " },
        { "nvmlDeviceGetHandleByIndex_v2",
          "NVML: nvmlDeviceGetHandleByIndex_v2 (GPU 0): Unknown Error",
          "init shutdown " },
        { "nvmlDeviceGetName", "NVML: nvmlDeviceGetName (GPU 0): Unknown Error",
          "init shutdown " },
        { "nvmlDeviceGetMinorNumber",
          "NVML: nvmlDeviceGetMinorNumber (GPU 0): Unknown Error",
          "init shutdown " },
        { "nvmlDeviceGetCpuAffinity",
          "NVML: nvmlDeviceGetCpuAffinity (GPU 0): Unknown Error",
          "init shutdown " },
    };
    struct gresnode g = { NULL, 0 };

    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (*cases); i++) {
        arbor_error_t err = { "" };
        teardown (NULL);
        assert_int_equal (setup (NULL), 0);
        setenv ("NVML_FAKE_FAIL", cases[i].fail, 1);
        errno = 0;
        assert_int_equal (nvml_detect (NVML_FAKE_PATH, &g, &err), -1);
        assert_int_equal (errno, EIO);
        assert_string_equal (err.text, cases[i].want);
        assert_int_equal (g.n, 0);
        assert_string_equal (trace (), cases[i].trace);
        assert_closed ();
    }
}

/* A board that cannot tell its CPUs is local to any (no Cores); a
 * failing nvmlShutdown changes nothing found. */
static void test_soft_failures (void **state)
{
    struct gresnode g = { NULL, 0 };
    arbor_error_t err = { "" };

    (void)state;
    setenv ("NVML_FAKE_FAIL", "nvmlDeviceGetCpuAffinity:3", 1);
    assert_int_equal (nvml_detect (NVML_FAKE_PATH, &g, &err), 0);
    assert_int_equal (g.n, 2);
    assert_null (g.v[0].cores);
    gresnode_clear (&g);
    setenv ("NVML_FAKE_FAIL", "nvmlShutdown", 1);
    assert_int_equal (nvml_detect (NVML_FAKE_PATH, &g, &err), 0);
    assert_int_equal (g.n, 2);
    assert_closed ();
    gresnode_clear (&g);
}

static void test_type_name (void **state)
{
    char buf[64], small[8];

    (void)state;
    assert_string_equal (
        nvml_type_name ("NVIDIA A100-SXM4-40GB", buf, sizeof (buf)),
        "nvidia_a100-sxm4-40gb");
    assert_string_equal (
        nvml_type_name ("Tesla V100-PCIE-16GB", buf, sizeof (buf)),
        "tesla_v100-pcie-16gb");
    assert_string_equal (
        nvml_type_name ("NVIDIA H100 80GB HBM3", buf, sizeof (buf)),
        "nvidia_h100_80gb_hbm3");
    /* what a type cannot hold becomes '_'; long names are cut */
    assert_string_equal (
        nvml_type_name ("GRID A100X/4C (x)", buf, sizeof (buf)),
        "grid_a100x_4c__x_");
    assert_string_equal (nvml_type_name ("NVIDIA A100", small, sizeof (small)),
                         "nvidia_");
    assert_string_equal (nvml_type_name ("", buf, sizeof (buf)), "");
}

static void test_cpu_list (void **state)
{
    unsigned long mask[3] = { 0 };
    const size_t bits = 8 * sizeof (unsigned long);
    char *s;

    (void)state;
    assert_non_null (s = nvml_cpu_list (mask, 3));
    assert_string_equal (s, "");
    free (s);
    mask[0] = 0xful | 1ul << 8 | 3ul << 10; /* 0-3,8,10-11 */
    mask[0] |= 1ul << (bits - 1);           /* runs on into word 1 */
    mask[1] = 0x3;
    mask[2] = 1ul << (bits - 1); /* the very last CPU */
    assert_non_null (s = nvml_cpu_list (mask, 3));
    char want[128];
    snprintf (want, sizeof (want), "0-3,8,10-11,%zu-%zu,%zu", bits - 1,
              bits + 1, 3 * bits - 1);
    assert_string_equal (s, want);
    free (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_two_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown (test_append_and_none, setup, teardown),
        cmocka_unit_test_setup_teardown (test_absent, setup, teardown),
        cmocka_unit_test_setup_teardown (test_not_nvml, setup, teardown),
        cmocka_unit_test_setup_teardown (test_failures, setup, teardown),
        cmocka_unit_test_setup_teardown (test_soft_failures, setup, teardown),
        cmocka_unit_test (test_type_name),
        cmocka_unit_test (test_cpu_list),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
