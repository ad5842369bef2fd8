/* load_test.c - what a node reports of its load: /proc's texts, and the
 * work under an emulated node's stepds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load.h"

static void test_loadavg (void **state)
{
    assert_int_equal (load_parse_loadavg ("0.52 0.58 0.59 1/467 12345\n"), 52);
    assert_int_equal (load_parse_loadavg ("12.345 1 1 1/1 1"), 1235);
    assert_int_equal (load_parse_loadavg (""), LOAD_UNKNOWN);
    assert_int_equal (load_parse_loadavg ("garbage"), LOAD_UNKNOWN);
    assert_int_equal (load_parse_loadavg ("-1 0 0"), LOAD_UNKNOWN);
}

static void test_meminfo (void **state)
{
    const char *text = "MemTotal:       16316412 kB\n"
                       "MemFree:         1010644 kB\n"
                       "MemAvailable:    8388608 kB\n"
                       "Buffers:          455708 kB\n";

    assert_int_equal (load_parse_meminfo (text), 8192);
    assert_int_equal (load_parse_meminfo ("MemTotal: 1 kB\n"), LOAD_UNKNOWN);
    assert_int_equal (load_parse_meminfo ("MemAvailable: x kB\n"),
                      LOAD_UNKNOWN);
}

static void test_stat (void **state)
{
    /* comm with spaces and a parenthesis, as /proc shows such names */
    const char *text = "4242 (a b) c) R 4000 4242 4000 0 -1 4194304 100 0 "
                       "0 0 5 1 0 0 20 0 1 0 12345 10000000 300 "
                       "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1";
    struct load_proc p;

    assert_int_equal (load_parse_stat (text, 4, &p), 0);
    assert_int_equal (p.pid, 4242);
    assert_int_equal (p.ppid, 4000);
    assert_int_equal (p.state, 'R');
    assert_int_equal (p.rss_kb, 1200);
    assert_int_equal (load_parse_stat ("4242 (x) R", 4, &p), -1);
    assert_int_equal (load_parse_stat ("nothing", 4, &p), -1);
}

/* A stepd 100 with a task 101 running, whose child 102 runs and 103
 * sleeps; an unrelated 200 running; a stepd 300 with nothing. */
static void test_tree (void **state)
{
    struct load_proc procs[] = {
        { 200, 1, 'R', 5000 }, { 103, 101, 'S', 40 }, { 101, 100, 'R', 100 },
        { 100, 1, 'S', 9000 }, { 102, 101, 'R', 60 }, { 300, 1, 'S', 7 },
    };
    pid_t roots[] = { 100, 300 };
    uint32_t running;
    uint64_t rss;

    load_sort (procs, 6);
    load_tree (procs, 6, roots, 2, &running, &rss);
    assert_int_equal (running, 2);
    assert_int_equal (rss, 200);
    load_tree (procs, 6, roots + 1, 1, &running, &rss);
    assert_int_equal (running, 0);
    assert_int_equal (rss, 0);
    load_tree (procs, 6, NULL, 0, &running, &rss);
    assert_int_equal (running, 0);
}

/* A parent loop (a pid recycled as its own ancestor) ends the walk. */
static void test_tree_cycle (void **state)
{
    struct load_proc procs[] = {
        { 10, 11, 'R', 1 },
        { 11, 10, 'R', 1 },
    };
    pid_t roots[] = { 99 };
    uint32_t running;
    uint64_t rss;

    load_sort (procs, 2);
    load_tree (procs, 2, roots, 1, &running, &rss);
    assert_int_equal (running, 0);
}

/* A real tree: this process -> child (sleeping) -> grandchild (spinning),
 * walked through /proc's children files. */
static void test_descendants (void **state)
{
    pid_t self = getpid (), gone = 0x3ffffff0, child;
    int ready[2];
    uint32_t running;
    uint64_t rss;
    size_t count;
    char c, path[64];

    assert_int_equal (pipe (ready), 0);
    if ((child = fork ()) == 0) {
        /* Both die with their parent, also when an assertion ends the
         * test before its kill. */
        prctl (PR_SET_PDEATHSIG, SIGKILL);
        setpgid (0, 0);
        if (fork () == 0) {
            prctl (PR_SET_PDEATHSIG, SIGKILL);
            close (ready[0]);
            (void)write (ready[1], "g", 1);
            for (;;)
                ; /* state R */
        }
        for (;;)
            pause ();
    }
    assert_true (child > 0);
    setpgid (child, child);
    close (ready[1]);
    assert_int_equal (read (ready[0], &c, 1), 1);
    close (ready[0]);
    snprintf (path, sizeof (path), "/proc/%d/task/%d/children", (int)self,
              (int)self);
    if (access (path, R_OK) < 0) { /* a kernel without children files */
        assert_int_equal (load_descendants (&self, 1, &running, &rss, &count),
                          -1);
        assert_int_equal (errno, ENOENT);
    } else {
        assert_int_equal (load_descendants (&self, 1, &running, &rss, &count),
                          0);
        assert_int_equal (count, 2);
        assert_true (running >= 1);
        assert_true (rss > 0);
        /* The child alone as a root: its grandchild only. */
        assert_int_equal (load_descendants (&child, 1, &running, &rss, &count),
                          0);
        assert_int_equal (count, 1);
        /* A pid that is not there has nothing under it. */
        assert_int_equal (load_descendants (&gone, 1, &running, &rss, &count),
                          0);
        assert_int_equal (count, 0);
        assert_int_equal (running, 0);
    }
    kill (-child, SIGKILL); /* both: the child's process group */
    assert_int_equal (waitpid (child, NULL, 0), child);
}

/* More children than one read of their "children" file holds (1,200 pids
 * of 4 digits or more and a space are over 4 KiB): each is counted once. */
static void test_many_children (void **state)
{
    enum { N = 1200 };
    pid_t self = getpid (), kids[N];
    uint32_t running;
    uint64_t rss;
    size_t count;
    char path[64];

    snprintf (path, sizeof (path), "/proc/%d/task/%d/children", (int)self,
              (int)self);
    if (access (path, R_OK) < 0) { /* a kernel without children files */
        assert_int_equal (load_descendants (&self, 1, &running, &rss, &count),
                          -1);
        return;
    }
    for (int i = 0; i < N; i++) {
        if ((kids[i] = fork ()) == 0) {
            prctl (PR_SET_PDEATHSIG, SIGKILL);
            for (;;)
                pause ();
        }
        assert_true (kids[i] > 0);
    }
    assert_int_equal (load_descendants (&self, 1, &running, &rss, &count), 0);
    assert_int_equal (count, N);
    for (int i = 0; i < N; i++)
        kill (kids[i], SIGKILL);
    for (int i = 0; i < N; i++)
        assert_int_equal (waitpid (kids[i], NULL, 0), kids[i]);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_loadavg),
        cmocka_unit_test (test_meminfo),
        cmocka_unit_test (test_stat),
        cmocka_unit_test (test_tree),
        cmocka_unit_test (test_tree_cycle),
        cmocka_unit_test (test_descendants),
        cmocka_unit_test (test_many_children),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
