/* cg_fs_test.c - cg_mkdirs and cg_rmdirs, the making and removing of a
 * step's container directories, and cg_procs_empty, on a plain temporary
 * directory standing in for a hierarchy's mount (where a cgroup's rmdir
 * says EBUSY, a directory's says ENOTEMPTY). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "cg.h"

struct fixture {
    char mount[64];
};

static int setup (void **state)
{
    struct fixture *f = calloc (1, sizeof (*f));

    assert_non_null (f);
    snprintf (f->mount, sizeof (f->mount), "/tmp/cg_fs_test.XXXXXX");
    assert_non_null (mkdtemp (f->mount));
    *state = f;
    return 0;
}

static int teardown (void **state)
{
    struct fixture *f = *state;
    char cmd[128];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", f->mount);
    assert_int_equal (system (cmd), 0);
    free (f);
    return 0;
}

static bool is_dir (const char *mount, const char *rel)
{
    char path[PATH_MAX];
    struct stat sb;

    snprintf (path, sizeof (path), "%s/%s", mount, rel);
    return stat (path, &sb) == 0 && S_ISDIR (sb.st_mode)
           && (sb.st_mode & 07777) == 0755;
}

static void test_makes_missing_levels (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "arbor/node_n1/uid_5/job_7/step_0"),
                      0);
    assert_true (is_dir (f->mount, "arbor"));
    assert_true (is_dir (f->mount, "arbor/node_n1/uid_5/job_7/step_0"));
    /* The next step of the job: its job level exists. */
    assert_int_equal (cg_mkdirs (f->mount, "arbor/node_n1/uid_5/job_7/step_1"),
                      0);
    assert_true (is_dir (f->mount, "arbor/node_n1/uid_5/job_7/step_1"));
    /* Another job below an existing user level; one level alone. */
    assert_int_equal (cg_mkdirs (f->mount, "arbor/node_n1/uid_5/job_8/step_0"),
                      0);
    assert_true (is_dir (f->mount, "arbor/node_n1/uid_5/job_8/step_0"));
    assert_int_equal (cg_mkdirs (f->mount, "solo"), 0);
    assert_true (is_dir (f->mount, "solo"));
}

static void test_existing_leaf (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "a/b"), 0);
    assert_int_equal (cg_mkdirs (f->mount, "a/b"), 0);
    assert_int_equal (cg_mkdirs (f->mount, "a"), 0);
    assert_true (is_dir (f->mount, "a/b"));
}

/* A missing mount point is an error, and nothing is made in its place. */
static void test_missing_mount (void **state)
{
    struct fixture *f = *state;
    char mount[128];
    struct stat sb;

    snprintf (mount, sizeof (mount), "%s/gone", f->mount);
    errno = 0;
    assert_int_equal (cg_mkdirs (mount, "arbor/uid_1/job_1/step_0"), -1);
    assert_int_equal (errno, ENOENT);
    assert_int_equal (stat (mount, &sb), -1);
}

/* A file where a level or the leaf should be: ENOTDIR. */
static void test_file_in_the_way (void **state)
{
    struct fixture *f = *state;
    char path[128];
    FILE *fp;

    snprintf (path, sizeof (path), "%s/arbor", f->mount);
    assert_non_null (fp = fopen (path, "w"));
    fclose (fp);
    errno = 0;
    assert_int_equal (cg_mkdirs (f->mount, "arbor/uid_1/job_1"), -1);
    assert_int_equal (errno, ENOTDIR);
    errno = 0;
    assert_int_equal (cg_mkdirs (f->mount, "arbor"), -1);
    assert_int_equal (errno, ENOTDIR);
}

static void test_bad_arguments (void **state)
{
    struct fixture *f = *state;
    char *rel = malloc (PATH_MAX * 2);

    assert_non_null (rel);
    errno = 0;
    assert_int_equal (cg_mkdirs (f->mount, ""), -1);
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_int_equal (cg_mkdirs ("", "a"), -1);
    assert_int_equal (errno, EINVAL);
    errno = 0;
    assert_int_equal (cg_mkdirs (NULL, "a"), -1);
    assert_int_equal (errno, EINVAL);
    memset (rel, 'x', PATH_MAX * 2 - 1);
    rel[PATH_MAX * 2 - 1] = '\0';
    errno = 0;
    assert_int_equal (cg_mkdirs (f->mount, rel), -1);
    assert_int_equal (errno, ENAMETOOLONG);
    free (rel);
}

static void put_file (const char *mount, const char *rel, const char *text)
{
    char path[PATH_MAX];
    FILE *fp;

    snprintf (path, sizeof (path), "%s/%s", mount, rel);
    assert_non_null (fp = fopen (path, "w"));
    fputs (text, fp);
    fclose (fp);
}

static bool exists (const char *mount, const char *rel)
{
    char path[PATH_MAX];
    struct stat sb;

    snprintf (path, sizeof (path), "%s/%s", mount, rel);
    return stat (path, &sb) == 0;
}

/* The step and its empty parents go, 'levels' directories in all: the
 * root ("arbor") stays. */
static void test_rmdirs_climbs (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "arbor/uid_5/job_7/step_0"), 0);
    assert_int_equal (cg_rmdirs (f->mount, "arbor/uid_5/job_7/step_0", 3), 0);
    assert_false (exists (f->mount, "arbor/uid_5"));
    assert_true (is_dir (f->mount, "arbor"));
}

/* Another step of the job keeps the job's directory (and the uid's). */
static void test_rmdirs_stops_at_a_busy_parent (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "arbor/uid_5/job_7/step_0"), 0);
    assert_int_equal (cg_mkdirs (f->mount, "arbor/uid_5/job_7/step_1"), 0);
    assert_int_equal (cg_rmdirs (f->mount, "arbor/uid_5/job_7/step_0", 3), 0);
    assert_false (exists (f->mount, "arbor/uid_5/job_7/step_0"));
    assert_true (is_dir (f->mount, "arbor/uid_5/job_7/step_1"));
}

/* A leaf the kernel keeps: -1 with its errno, nothing above it touched. */
static void test_rmdirs_busy_leaf (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "arbor/uid_5/job_7/step_0"), 0);
    put_file (f->mount, "arbor/uid_5/job_7/step_0/cgroup.procs", "42\n");
    errno = 0;
    assert_int_equal (cg_rmdirs (f->mount, "arbor/uid_5/job_7/step_0", 3), -1);
    assert_int_equal (errno, ENOTEMPTY);
    assert_true (is_dir (f->mount, "arbor/uid_5/job_7/step_0"));
}

/* A step already gone counts as removed; its empty parents still go. */
static void test_rmdirs_missing_leaf (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "arbor/uid_5/job_7"), 0);
    assert_int_equal (cg_rmdirs (f->mount, "arbor/uid_5/job_7/step_0", 3), 0);
    assert_false (exists (f->mount, "arbor/uid_5"));
    assert_true (is_dir (f->mount, "arbor"));
}

static void test_procs_empty (void **state)
{
    struct fixture *f = *state;

    assert_int_equal (cg_mkdirs (f->mount, "arbor/step_0"), 0);
    put_file (f->mount, "arbor/step_0/cgroup.procs", "");
    assert_int_equal (cg_procs_empty (f->mount, "arbor/step_0"), 1);
    put_file (f->mount, "arbor/step_0/cgroup.procs", "4242\n4243\n");
    assert_int_equal (cg_procs_empty (f->mount, "arbor/step_0"), 0);
    errno = 0;
    assert_int_equal (cg_procs_empty (f->mount, "arbor/step_1"), -1);
    assert_int_equal (errno, ENOENT);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_makes_missing_levels, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_existing_leaf, setup, teardown),
        cmocka_unit_test_setup_teardown (test_missing_mount, setup, teardown),
        cmocka_unit_test_setup_teardown (test_file_in_the_way, setup, teardown),
        cmocka_unit_test_setup_teardown (test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown (test_rmdirs_climbs, setup, teardown),
        cmocka_unit_test_setup_teardown (test_rmdirs_stops_at_a_busy_parent,
                                         setup, teardown),
        cmocka_unit_test_setup_teardown (test_rmdirs_busy_leaf, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_rmdirs_missing_leaf, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_procs_empty, setup, teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
