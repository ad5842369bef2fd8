/* userdir_test.c - the step's directories (userdir.h): removal that no
 * planted link can redirect, a parent others could write refused, and
 * the sealing of a root process's directory. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userdir.h"

struct fix {
    char top[256];    /* 0755, ours: the "spool" */
    char victim[512]; /* a directory no removal may touch */
    char precious[PATH_MAX];
};

static int setup (void **state)
{
    struct fix *f = calloc (1, sizeof (*f));
    int fd;

    snprintf (f->top, sizeof (f->top), "/tmp/userdir_test.XXXXXX");
    if (!f || !mkdtemp (f->top) || chmod (f->top, 0755) < 0)
        return -1;
    snprintf (f->victim, sizeof (f->victim), "%s/victim", f->top);
    snprintf (f->precious, sizeof (f->precious), "%s/precious", f->victim);
    if (mkdir (f->victim, 0755) < 0
        || (fd = open (f->precious, O_CREAT | O_WRONLY, 0644)) < 0)
        return -1;
    close (fd);
    *state = f;
    return 0;
}

static int teardown (void **state)
{
    struct fix *f = *state;
    char cmd[PATH_MAX + 16];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", f->top);
    if (system (cmd) != 0)
        return -1;
    free (f);
    return 0;
}

static void path_in (char *buf, const struct fix *f, const char *rel)
{
    snprintf (buf, PATH_MAX, "%s/%s", f->top, rel);
}

/* Links to the victim, at the top of the tree and below, are removed,
 * never followed. */
static void test_remove_follows_no_link (void **state)
{
    struct fix *f = *state;
    char d[PATH_MAX], p[PATH_MAX];
    arbor_error_t err = { "" };

    path_in (d, f, "mpi.1.0");
    assert_int_equal (userdir_make (d, getuid (), getgid (), "MPI", &err), 0);
    path_in (p, f, "mpi.1.0/link");
    assert_int_equal (symlink (f->victim, p), 0);
    path_in (p, f, "mpi.1.0/sub");
    assert_int_equal (mkdir (p, 0700), 0);
    path_in (p, f, "mpi.1.0/sub/link");
    assert_int_equal (symlink (f->victim, p), 0);
    userdir_remove (d);
    assert_int_equal (access (d, F_OK), -1);
    assert_int_equal (access (f->precious, F_OK), 0);
}

/* The step's directory itself replaced by a link: the link goes. */
static void test_remove_link_itself (void **state)
{
    struct fix *f = *state;
    char d[PATH_MAX];
    struct stat st;

    path_in (d, f, "mpi.2.0");
    assert_int_equal (symlink (f->victim, d), 0);
    userdir_remove (d);
    assert_int_equal (lstat (d, &st), -1);
    assert_int_equal (access (f->precious, F_OK), 0);
}

/* A spool others can write is refused, naming why; nothing is made or
 * removed there. */
static void test_parent_writable_refused (void **state)
{
    struct fix *f = *state;
    char d[PATH_MAX], sub[PATH_MAX + 16], p[PATH_MAX];
    arbor_error_t err = { "" };

    path_in (d, f, "open");
    assert_int_equal (mkdir (d, 0755), 0);
    assert_int_equal (chmod (d, 0777), 0);
    snprintf (sub, sizeof (sub), "%s/mpi.3.0", d);
    assert_int_equal (userdir_make (sub, getuid (), getgid (), "MPI", &err),
                      -1);
    assert_non_null (strstr (err.text, "writable by others"));
    assert_int_equal (userdir_parent_unsafe (d, &err), 1);
    path_in (p, f, "open/mpi.3.0");
    assert_int_equal (mkdir (p, 0700), 0);
    userdir_remove (p); /* refused: left */
    assert_int_equal (access (p, F_OK), 0);
    assert_int_equal (userdir_parent_unsafe (f->top, &err), 0);
}

/* rootdir_seal: every directory in it 0755 (and root's when we are
 * root), the top as asked. */
static void test_seal (void **state)
{
    struct fix *f = *state;
    char d[PATH_MAX], p[PATH_MAX];
    arbor_error_t err = { "" };
    struct stat st;

    path_in (d, f, "pmix.1.0");
    assert_int_equal (rootdir_make (d, 0700, "server", &err), 0);
    assert_int_equal (stat (d, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0700);
    path_in (p, f, "pmix.1.0/store");
    assert_int_equal (mkdir (p, 0777), 0);
    assert_int_equal (chmod (p, 0777), 0);
    if (getuid () == 0)
        assert_int_equal (chown (p, 65534, 65534), 0);
    assert_int_equal (rootdir_seal (d, 0755, &err), 0);
    assert_int_equal (stat (d, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0755);
    assert_int_equal (stat (p, &st), 0);
    if (getuid () == 0) {
        assert_int_equal (st.st_mode & 07777, 0755);
        assert_int_equal (st.st_uid, 0);
    }
    userdir_remove (d);
    assert_int_equal (access (d, F_OK), -1);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_remove_follows_no_link, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_remove_link_itself, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_parent_writable_refused, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_seal, setup, teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
