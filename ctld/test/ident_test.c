/* ident_test.c - unit tests for ident.c: names, home directories and
 * groups of known and unknown uids, and the cache's lifetime. */
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ident.h"

#define NOBODY_UID 4242421u /* no passwd entry */

static void test_root (void **state)
{
    struct ident_cache *ic = ident_cache_create ();
    const struct ident *id = ident_get (ic, 0, 0, 100.0);
    struct passwd *pw = getpwuid (0);

    assert_non_null (id);
    assert_non_null (pw);
    assert_string_equal (id->user, pw->pw_name);
    assert_string_equal (id->home, pw->pw_dir);
    assert_true (id->ngids >= 1);
    assert_int_equal (id->gids[0], 0); /* the primary group first */
    ident_cache_destroy (ic);
}

/* Every group getgrouplist() lists, each once, the primary first. */
static void test_groups_match_the_name_service (void **state)
{
    struct ident_cache *ic = ident_cache_create ();
    struct passwd *pw = getpwuid (getuid ());
    gid_t want[256];
    int n = 256;

    assert_non_null (pw);
    assert_true (getgrouplist (pw->pw_name, pw->pw_gid, want, &n) >= 0);
    const struct ident *id = ident_get (ic, pw->pw_uid, pw->pw_gid, 1.0);
    assert_non_null (id);
    assert_int_equal (id->gids[0], pw->pw_gid);
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (uint32_t j = 0; j < id->ngids; j++)
            seen += id->gids[j] == want[i];
        assert_int_equal (seen, 1);
    }
    ident_cache_destroy (ic);
}

static void test_unknown_uid (void **state)
{
    struct ident_cache *ic = ident_cache_create ();
    const struct ident *id = ident_get (ic, NOBODY_UID, 777, 1.0);
    char num[32];

    snprintf (num, sizeof (num), "%u", NOBODY_UID);
    assert_non_null (id);
    assert_string_equal (id->user, num);
    assert_string_equal (id->home, "");
    assert_int_equal (id->ngids, 1);
    assert_int_equal (id->gids[0], 777);
    ident_cache_destroy (ic);
}

/* Kept IDENT_TTL seconds, then asked again; keyed by uid and gid. */
static void test_cache (void **state)
{
    struct ident_cache *ic = ident_cache_create ();
    const struct ident *a = ident_get (ic, 0, 0, 10.0);

    assert_non_null (a);
    assert_true (a->fetched == 10.0);
    assert_true (ident_get (ic, 0, 0, 10.0 + IDENT_TTL - 1)->fetched == 10.0);
    assert_true (ident_get (ic, 0, 0, 10.0 + IDENT_TTL + 1)->fetched
                 == 10.0 + IDENT_TTL + 1);
    const struct ident *b = ident_get (ic, 0, 777, 20.0);
    assert_int_equal (b->gids[0], 777);
    assert_true (ident_get (ic, 0, 0, 30.0)->gid == 0);
    /* a clock that went back does not keep an entry forever */
    assert_true (ident_get (ic, 0, 0, 5.0)->fetched == 5.0);
    ident_cache_destroy (ic);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_root),
        cmocka_unit_test (test_groups_match_the_name_service),
        cmocka_unit_test (test_unknown_uid),
        cmocka_unit_test (test_cache),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
