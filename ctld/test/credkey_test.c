/* credkey_test.c - unit tests for credkey.c: the credential key is made
 * once in the state directory and read back the same; a key file that
 * others could read, of the wrong size, or behind a symlink is refused
 * with its path and what is wrong; no directory gives a key per process.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "credkey.h"
#include "ctld.h"

struct fx {
    struct ctld ctx;
    char dir[64];
    char path[128];
};

static int setup (void **state)
{
    struct fx *fx = calloc (1, sizeof (*fx));

    assert_non_null (fx);
    snprintf (fx->dir, sizeof (fx->dir), "/tmp/credkey-test-XXXXXX");
    assert_non_null (mkdtemp (fx->dir));
    snprintf (fx->path, sizeof (fx->path), "%s/cred.key", fx->dir);
    *state = fx;
    return 0;
}

static int teardown (void **state)
{
    struct fx *fx = *state;
    char tmp[160];

    snprintf (tmp, sizeof (tmp), "%s.tmp", fx->path);
    unlink (fx->path);
    unlink (tmp);
    rmdir (fx->dir);
    free (fx);
    return 0;
}

/* credkey_create must refuse, errno 'e', with 'want' in its text. */
static void refused (struct fx *fx, int e, const char *want)
{
    arbor_error_t err = { "" };

    errno = 0;
    assert_null (credkey_create (&fx->ctx, fx->dir, &err));
    assert_int_equal (errno, e);
    if (!strstr (err.text, want) || !strstr (err.text, fx->path))
        fail_msg ("'%s' does not name %s and say '%s'", err.text, fx->path,
                  want);
}

static void test_made_once_then_read (void **state)
{
    struct fx *fx = *state;
    struct credkey *a, *b;
    struct stat st;
    char id[CRED_KEY_ID_SIZE];

    assert_non_null (a = credkey_create (&fx->ctx, fx->dir, NULL));
    assert_int_equal (stat (fx->path, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0600);
    assert_int_equal (st.st_size, CRED_KEY_SIZE);
    snprintf (id, sizeof (id), "%s", credkey_key (a)->id);
    credkey_destroy (a);
    /* a restart: the same key, so its credentials still open */
    assert_non_null (b = credkey_create (&fx->ctx, fx->dir, NULL));
    assert_string_equal (credkey_key (b)->id, id);
    credkey_destroy (b);
}

static void test_readable_by_others (void **state)
{
    struct fx *fx = *state;

    credkey_destroy (credkey_create (&fx->ctx, fx->dir, NULL));
    assert_int_equal (chmod (fx->path, 0644), 0);
    refused (fx, EPERM, "chmod 600");
}

static void test_wrong_size (void **state)
{
    struct fx *fx = *state;
    int fd = open (fx->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    assert_true (fd >= 0);
    assert_int_equal (write (fd, "short", 5), 5);
    close (fd);
    refused (fx, EINVAL, "holds 5 bytes, not 32");
}

static void test_symlink (void **state)
{
    struct fx *fx = *state;

    assert_int_equal (symlink ("/etc/hostname", fx->path), 0);
    refused (fx, ELOOP, "cred.key");
}

static void test_no_dir_gives_a_new_key (void **state)
{
    struct fx *fx = *state;
    struct credkey *a = credkey_create (&fx->ctx, NULL, NULL);
    struct credkey *b = credkey_create (&fx->ctx, NULL, NULL);

    assert_non_null (a);
    assert_non_null (b);
    assert_string_not_equal (credkey_key (a)->id, credkey_key (b)->id);
    assert_int_equal (access (fx->path, F_OK), -1); /* nothing written */
    credkey_destroy (a);
    credkey_destroy (b);
}

int main (void)
{
#define T(f) cmocka_unit_test_setup_teardown (f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T (test_made_once_then_read),
        T (test_readable_by_others),
        T (test_wrong_size),
        T (test_symlink),
        T (test_no_dir_gives_a_new_key),
    };
#undef T
    return cmocka_run_group_tests (tests, NULL, NULL);
}
