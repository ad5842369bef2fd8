/* log_test.c - log.c's file: lines are appended to it, and after
 * logrotate renames it log_reopen starts a new file by the same name
 * while the renamed one keeps what came before. On stderr there is
 * nothing to reopen. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

static char *slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    char *buf = calloc (1, 8192);

    assert_non_null (f);
    assert_non_null (buf);
    assert_true (fread (buf, 1, 8191, f) < 8191);
    fclose (f);
    return buf;
}

static void test_reopen_after_rename (void **state)
{
    char dir[] = "/tmp/log_test.XXXXXX", path[128], old[128];
    char *a, *b;

    (void)state;
    assert_non_null (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/d.log", dir);
    snprintf (old, sizeof (old), "%s/d.log.1", dir);
    assert_int_equal (log_open ("test-daemon", LOG_LVL_INFO, path), 0);
    log_info ("before rotation");
    assert_int_equal (rename (path, old), 0);
    log_info ("still the old file");
    assert_int_equal (log_reopen (), 0);
    log_info ("after rotation");
    a = slurp (old);
    b = slurp (path);
    assert_non_null (strstr (a, "test-daemon info: before rotation"));
    assert_non_null (strstr (a, "still the old file"));
    assert_null (strstr (a, "after rotation"));
    assert_non_null (strstr (b, "test-daemon info: after rotation"));
    assert_null (strstr (b, "before"));
    free (a);
    free (b);

    /* a directory that went away: the old file goes on */
    assert_int_equal (unlink (path), 0);
    assert_int_equal (unlink (old), 0);
    assert_int_equal (rmdir (dir), 0);
    assert_int_equal (log_reopen (), -1);
    log_close ();
    assert_int_equal (log_reopen (), 0); /* stderr: nothing to do */
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_reopen_after_rename),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
