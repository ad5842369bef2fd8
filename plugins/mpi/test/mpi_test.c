/* mpi_test.c - the MPI plugin type's loader: the ops check, loading
 * mpi_pmix.so from the build's plugin directory, and --mpi=list. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mpi.h"

static int nop_init (const struct plugin_env *e, void **c, arbor_error_t *err)
{
    return 0;
}

static void test_ops_check (void **state)
{
    struct mpi_ops ops = { .init = nop_init };
    arbor_error_t err = { "" };

    assert_int_equal (mpi_ops_check (&ops, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "required op 'fini' is NULL");
}

static void test_load (void **state)
{
    arbor_error_t err = { "" };
    struct plugin *p;

    assert_null (mpi_load (ARBOR_TEST_PLUGIN_DIR, "none", &err));
    assert_string_equal (err.text, "MPI type 'none' has no plugin");
    assert_null (mpi_load (ARBOR_TEST_PLUGIN_DIR, "nosuch", &err));
    assert_int_equal (errno, ENOENT);
#ifdef ARBOR_TEST_HAVE_PMIX
    p = mpi_load (ARBOR_TEST_PLUGIN_DIR, "pmix", &err);
    assert_non_null (p);
    assert_string_equal (plugin_type (p), "mpi");
    assert_string_equal (plugin_name (p), "pmix");
    assert_int_equal (mpi_ops_check (plugin_ops (p), &err), 0);
    plugin_unload (p);
#else
    (void)p; /* no libpmix-dev: mpi_pmix.so is not built */
#endif
}

static void test_list (void **state)
{
    char dir[] = "/tmp/mpi_test.XXXXXX";
    const char *files[] = { "mpi_zz.so", "mpi_aa.so", "proctrack_x.so",
                            "mpi_.so", "mpi_bad.txt" };
    char path[256];
    char **l;

    assert_non_null (mkdtemp (dir));
    for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, files[i]);
        fclose (fopen (path, "w"));
    }
    l = mpi_list (dir);
    assert_non_null (l);
    assert_string_equal (l[0], "aa");
    assert_string_equal (l[1], "none");
    assert_string_equal (l[2], "zz");
    assert_null (l[3]);
    for (size_t i = 0; l[i]; i++)
        free (l[i]);
    free (l);
    for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, files[i]);
        unlink (path);
    }
    rmdir (dir);
    l = mpi_list ("/nonexistent/dir");
    assert_string_equal (l[0], "none");
    assert_null (l[1]);
    free (l[0]);
    free (l);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_ops_check),
        cmocka_unit_test (test_load),
        cmocka_unit_test (test_list),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
