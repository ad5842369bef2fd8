/* cg_detect_test.c - proctrack/cgroup's pure parts: host layout detection
 * from sample /proc/self/mounts tables, and container path building. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cg.h"

/* Debian 12 / systemd "unified": cgroup2 only. */
static const char mounts_v2[] =
    "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
    "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
    "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,"
    "nsdelegate,memory_recursiveprot 0 0\n"
    "/dev/sda1 / ext4 rw,relatime 0 0\n";

/* This build host: v1 controllers plus cgroup2 at .../unified. */
static const char mounts_hybrid[] =
    "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
    "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
    "cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0\n"
    "cgroup /sys/fs/cgroup/freezer cgroup rw,relatime,freezer 0 0\n"
    "cgroup /sys/fs/cgroup/pids cgroup rw,relatime,pids 0 0\n"
    "cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0\n"
    "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";

/* Legacy v1 (CentOS 7 style): co-mounted controllers, named systemd. */
static const char mounts_v1[] =
    "cgroup /sys/fs/cgroup/systemd cgroup rw,nosuid,nodev,noexec,relatime,"
    "xattr,release_agent=/usr/lib/systemd/systemd-cgroups-agent,"
    "name=systemd 0 0\n"
    "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,nodev,noexec,"
    "relatime,cpuacct,cpu 0 0\n"
    "cgroup /sys/fs/cgroup/freezer cgroup rw,nosuid,nodev,noexec,relatime,"
    "freezer 0 0\n"
    "cgroup /sys/fs/cgroup/my\\040mem cgroup rw,memory 0 0\n";

/* A named hierarchy alone is no v1 controller; no cgroups at all. */
static const char mounts_none[] =
    "proc /proc proc rw 0 0\n"
    "cgroup /sys/fs/cgroup/systemd cgroup rw,name=systemd 0 0";

/* v1 without freezer: detected as v1, but the plugin will refuse it. */
static const char mounts_v1_nofreezer[] =
    "cgroup /cg/memory cgroup rw,memory 0 0\n";

static void test_detect_v2 (void **state)
{
    struct cg_mounts m;

    assert_int_equal (cg_mounts_parse (mounts_v2, &m), 0);
    assert_int_equal (m.mode, CG_MODE_V2);
    assert_string_equal (cg_mode_name (m.mode), "v2");
    assert_string_equal (m.v2, "/sys/fs/cgroup");
    assert_string_equal (m.freezer, "");
    assert_string_equal (m.memory, "");
}

static void test_detect_hybrid (void **state)
{
    struct cg_mounts m;

    assert_int_equal (cg_mounts_parse (mounts_hybrid, &m), 0);
    assert_int_equal (m.mode, CG_MODE_HYBRID);
    assert_string_equal (m.v2, "/sys/fs/cgroup/unified");
    assert_string_equal (m.freezer, "/sys/fs/cgroup/freezer");
    assert_string_equal (m.memory, "/sys/fs/cgroup/memory");
}

static void test_detect_v1 (void **state)
{
    struct cg_mounts m;

    assert_int_equal (cg_mounts_parse (mounts_v1, &m), 0);
    assert_int_equal (m.mode, CG_MODE_V1);
    assert_string_equal (m.v2, "");
    assert_string_equal (m.freezer, "/sys/fs/cgroup/freezer");
    assert_string_equal (m.memory, "/sys/fs/cgroup/my mem"); /* \040 */

    assert_int_equal (cg_mounts_parse (mounts_v1_nofreezer, &m), 0);
    assert_int_equal (m.mode, CG_MODE_V1);
    assert_string_equal (m.freezer, "");
    assert_string_equal (m.memory, "/cg/memory");
}

static void test_detect_none (void **state)
{
    struct cg_mounts m;

    assert_int_equal (cg_mounts_parse (mounts_none, &m), 0);
    assert_int_equal (m.mode, CG_MODE_NONE);
    assert_int_equal (cg_mounts_parse ("", &m), 0);
    assert_int_equal (m.mode, CG_MODE_NONE);
    assert_int_equal (cg_mounts_parse ("garbage\n\n  x\n", &m), 0);
    assert_int_equal (m.mode, CG_MODE_NONE);
    assert_int_equal (cg_mounts_parse (NULL, &m), -1);
    assert_int_equal (errno, EINVAL);
}

static void test_path (void **state)
{
    char buf[256];

    assert_int_equal (
        cg_path_build (buf, sizeof (buf), "arbor", NULL, 1001, 42, 0), 3);
    assert_string_equal (buf, "arbor/uid_1001/job_42/step_0");
    assert_int_equal (cg_path_build (buf, sizeof (buf), "arbor", "", 0, 1, 7),
                      3);
    assert_string_equal (buf, "arbor/uid_0/job_1/step_7");
    assert_int_equal (
        cg_path_build (buf, sizeof (buf), "arbor", "node3", 1001, 42, 2), 4);
    assert_string_equal (buf, "arbor/node_node3/uid_1001/job_42/step_2");
    /* Root slashes are dropped; a nested root is fine; no root at all. */
    assert_int_equal (cg_path_build (buf, sizeof (buf),
                                     "/system.slice/"
                                     "arbor.service/",
                                     "n1", 5, 6, 7),
                      4);
    assert_string_equal (buf, "system.slice/arbor.service/node_n1/uid_5/"
                              "job_6/step_7");
    assert_int_equal (cg_path_build (buf, sizeof (buf), "/", NULL, 5, 6, 7), 3);
    assert_string_equal (buf, "uid_5/job_6/step_7");
    assert_int_equal (cg_path_parent (buf), 0);
    assert_string_equal (buf, "uid_5/job_6");
    assert_int_equal (cg_path_parent (buf), 0);
    assert_int_equal (cg_path_parent (buf), -1);
    assert_string_equal (buf, "uid_5");
}

static void test_path_bad (void **state)
{
    char buf[256], tiny[20];

    errno = 0;
    assert_int_equal (
        cg_path_build (buf, sizeof (buf), "arbor", "a/b", 1, 2, 3), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (cg_path_build (buf, sizeof (buf), "arbor", "..", 1, 2, 3),
                      -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (
        cg_path_build (buf, sizeof (buf), "a/../b", NULL, 1, 2, 3), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (
        cg_path_build (tiny, sizeof (tiny), "arbor", NULL, 1001, 42, 0), -1);
    assert_int_equal (errno, ENAMETOOLONG);
}

/* memory.oom_control (v1, kernel >= 4.13), memory.events (v2). */
static void test_oom_parse (void **state)
{
    const char v1[] = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
    const char v1_old[] = "oom_kill_disable 0\nunder_oom 1\n";
    const char v2[] = "low 0\nhigh 0\nmax 17\noom 2\noom_kill 2\n"
                      "oom_group_kill 0\n";
    const char v2_group_first[] = "oom_group_kill 9\noom_kill 12";
    const char bad[] = "oom_kill x\n";
    const char neg[] = "oom_kill -1\n";
    const char huge[] = "oom_kill 99999999999999999999999\n";
    uint64_t n = 0;

    assert_int_equal (cg_oom_kill_parse (v1, &n), 0);
    assert_int_equal (n, 3);
    assert_int_equal (cg_oom_kill_parse (v2, &n), 0);
    assert_int_equal (n, 2);
    assert_int_equal (cg_oom_kill_parse (v2_group_first, &n), 0);
    assert_int_equal (n, 12);
    assert_int_equal (cg_oom_kill_parse ("oom_kill 0", &n), 0);
    assert_int_equal (n, 0);
    n = 7;
    errno = 0;
    assert_int_equal (cg_oom_kill_parse (v1_old, &n), -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (n, 7);
    assert_int_equal (cg_oom_kill_parse ("", &n), -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (cg_oom_kill_parse (bad, &n), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (cg_oom_kill_parse (neg, &n), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (cg_oom_kill_parse (huge, &n), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (cg_oom_kill_parse (NULL, &n), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (n, 7);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_detect_v2),
        cmocka_unit_test (test_detect_hybrid),
        cmocka_unit_test (test_detect_v1),
        cmocka_unit_test (test_detect_none),
        cmocka_unit_test (test_path),
        cmocka_unit_test (test_path_bad),
        cmocka_unit_test (test_oom_parse),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
