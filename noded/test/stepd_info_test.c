/* stepd_info_test.c - the stepd records and what a stepd's end does.
 *
 * A record written at spawn reads back; a stepd that ended normally
 * revokes its step until its credential expires and loses its record; at
 * start, a record whose socket is gone (the step ended while no noded ran)
 * is revoked and removed too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "noded.h"
#include "revoke.h"
#include "stepd_info.h"
#include "stepd_track.h"

struct fixture {
    char dir[64];
    struct conf conf;
    struct noded nd;
};

static int setup (void **state)
{
    static struct fixture fx;

    memset (&fx, 0, sizeof (fx));
    snprintf (fx.dir, sizeof (fx.dir), "/tmp/stepd-info-XXXXXX");
    if (!mkdtemp (fx.dir))
        return -1;
    fx.conf.cred_expire = 120;
    fx.nd.conf = &fx.conf;
    fx.nd.name = "node1";
    fx.nd.spool = fx.dir;
    fx.nd.loop = ev_default_loop (0);
    fx.nd.revoked = revoke_create (8);
    fx.nd.stepds = stepd_table_create ();
    *state = &fx;
    return fx.nd.revoked && fx.nd.stepds ? 0 : -1;
}

static int teardown (void **state)
{
    struct fixture *fx = *state;
    char cmd[128];

    stepd_table_destroy (fx->nd.stepds);
    revoke_destroy (fx->nd.revoked);
    snprintf (cmd, sizeof (cmd), "rm -rf %s", fx->dir);
    return system (cmd) == 0 ? 0 : -1;
}

static bool record_exists (struct fixture *fx, uint32_t job, uint32_t step)
{
    char path[128];
    struct stat st;

    snprintf (path, sizeof (path), "%s/stepd.%u.%u.info", fx->dir, job, step);
    return stat (path, &st) == 0;
}

static void test_round_trip (void **state)
{
    struct fixture *fx = *state;
    struct stepd_info si = { .job_id = 7,
                             .step_id = 2,
                             .pid = 4242,
                             .uid = 1001,
                             .gid = 1002,
                             .expires = 1900000000 };
    struct stepd_info back;

    assert_int_equal (stepd_info_write (&fx->nd, &si), 0);
    assert_int_equal (stepd_info_read (&fx->nd, 7, 2, &back), 0);
    /* field by field: the struct has padding (memcmp would read it) */
    assert_int_equal (back.job_id, si.job_id);
    assert_int_equal (back.step_id, si.step_id);
    assert_int_equal (back.pid, si.pid);
    assert_int_equal (back.uid, si.uid);
    assert_int_equal (back.gid, si.gid);
    assert_int_equal (back.expires, si.expires);
    stepd_info_remove (&fx->nd, 7, 2);
    assert_int_equal (stepd_info_read (&fx->nd, 7, 2, &back), -1);
    assert_int_equal (errno, ENOENT);
}

/* Item 10 of issue 6: an ended step is revoked until its expiry. */
static void test_normal_end_revokes (void **state)
{
    struct fixture *fx = *state;
    time_t now = time (NULL);
    struct stepd_info si = { .job_id = 8,
                             .step_id = 0,
                             .pid = 1,
                             .uid = 1001,
                             .gid = 1001,
                             .expires = (uint64_t)now + 60 };

    assert_int_equal (stepd_info_write (&fx->nd, &si), 0);
    assert_false (revoke_check (fx->nd.revoked, 8, 0, 0, now));
    stepd_ended (&fx->nd, &si, false, 0, "ended");
    assert_true (revoke_check (fx->nd.revoked, 8, 0, 0, now));
    assert_true (revoke_check (fx->nd.revoked, 8, 0, 0, now + 59));
    assert_false (revoke_check (fx->nd.revoked, 8, 0, 0, now + 61));
    assert_false (revoke_check (fx->nd.revoked, 8, 0, 1, now));
    assert_false (record_exists (fx, 8, 0));
}

/* A record left without a socket: ended while no noded ran. */
static void test_scan_revokes_ended (void **state)
{
    struct fixture *fx = *state;
    time_t now = time (NULL);
    struct stepd_info si = { .job_id = 9,
                             .step_id = 3,
                             .pid = 1,
                             .uid = 1001,
                             .gid = 1001,
                             .expires = 0 };

    assert_int_equal (stepd_info_write (&fx->nd, &si), 0);
    assert_int_equal (stepd_scan (&fx->nd), 0);
    /* unknown expiry: CredExpire from now */
    assert_true (revoke_check (fx->nd.revoked, 9, 0, 3, now + 100));
    assert_false (record_exists (fx, 9, 3));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown (test_normal_end_revokes, setup,
                                         teardown),
        cmocka_unit_test_setup_teardown (test_scan_revokes_ended, setup,
                                         teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
