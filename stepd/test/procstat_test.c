/* procstat_test.c - /proc parsing and task attribution (procstat.h), and
 * one real sample of this process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"

/* A stat line whose comm holds a space and a parenthesis. */
static const char stat_line[] =
    "4242 (my (odd) prog) S 4200 4242 4200 0 -1 4194560 900 5 7 3 "
    "150 50 20 10 20 0 1 0 12345 104857600 2560 18446744073709551615 "
    "1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

static void test_parse_stat (void **state)
{
    struct proc_sample s = { .majflt = 99, .cpu_ticks = 99 };

    (void)state;
    assert_int_equal (procstat_parse_stat (stat_line, 4, &s), 0);
    assert_int_equal (s.pid, 4242);
    assert_int_equal (s.ppid, 4200);
    assert_int_equal (s.majflt, 7 + 3); /* majflt + cmajflt */
    assert_int_equal (s.cpu_ticks, 150 + 50 + 20 + 10);
    assert_int_equal (s.vsize_kb, 104857600 / 1024);
    assert_int_equal (s.rss_kb, 2560 * 4);
}

static void test_parse_stat_bad (void **state)
{
    struct proc_sample s = { 0 };

    (void)state;
    assert_int_equal (procstat_parse_stat ("", 4, &s), -1);
    assert_int_equal (procstat_parse_stat ("12 (x)", 4, &s), -1);
    assert_int_equal (procstat_parse_stat ("12 (x) S 1 2 3", 4, &s), -1);
    assert_int_equal (procstat_parse_stat ("x (y) S 1 2 3", 4, &s), -1);
}

static void test_parse_status_io (void **state)
{
    struct proc_sample s = { 0 };

    (void)state;
    procstat_parse_status (
        "Name:\tsleep\nVmPeak:\t  8200 kB\nVmSize:\t 8100 kB\n"
        "VmHWM:\t   900 kB\nVmRSS:\t 880 kB\n",
        &s);
    assert_int_equal (s.peak_kb, 8200);
    assert_int_equal (s.hwm_kb, 900);
    procstat_parse_io ("rchar: 5000\nwchar: 7000\nsyscr: 3\nsyscw: 4\n"
                       "read_bytes: 4096\nwrite_bytes: 8192\n"
                       "cancelled_write_bytes: 0\n",
                       &s);
    assert_int_equal (s.read_bytes, 4096);
    assert_int_equal (s.write_bytes, 8192);
    /* A zombie's status has no Vm lines. */
    procstat_parse_status ("Name:\tx\nState:\tZ (zombie)\n", &s);
    assert_int_equal (s.hwm_kb, 0);
}

/* Tasks 10 and 20; 11 and 12 descend from 10, 21 from 20, 30 is a stray
 * reparented to init, and 40/41 point at each other. */
static void test_attribute (void **state)
{
    const struct proc_sample s[] = {
        { .pid = 12, .ppid = 11 }, { .pid = 11, .ppid = 10 },
        { .pid = 10, .ppid = 5 },  { .pid = 21, .ppid = 20 },
        { .pid = 30, .ppid = 1 },  { .pid = 40, .ppid = 41 },
        { .pid = 41, .ppid = 40 },
    };
    const pid_t tasks[] = { 10, 20 };
    int owner[7];

    (void)state;
    procstat_attribute (s, 7, tasks, 2, owner);
    assert_int_equal (owner[0], 0);
    assert_int_equal (owner[1], 0);
    assert_int_equal (owner[2], 0);
    assert_int_equal (owner[3], 1);
    assert_int_equal (owner[4], -1);
    assert_int_equal (owner[5], -1);
    assert_int_equal (owner[6], -1);
}

static void test_read_self (void **state)
{
    struct proc_sample s;

    (void)state;
    assert_int_equal (procstat_read (getpid (), &s), 0);
    assert_int_equal (s.pid, getpid ());
    assert_int_equal (s.ppid, getppid ());
    assert_true (s.rss_kb > 0);
    assert_true (s.vsize_kb >= s.rss_kb);
    assert_true (s.hwm_kb >= s.rss_kb || s.hwm_kb == 0);
    assert_int_equal (procstat_read (0x7ffffff0, &s), -1);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse_stat),
        cmocka_unit_test (test_parse_stat_bad),
        cmocka_unit_test (test_parse_status_io),
        cmocka_unit_test (test_attribute),
        cmocka_unit_test (test_read_self),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
