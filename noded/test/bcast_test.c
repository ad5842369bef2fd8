/* bcast_test.c - a node's part of sbcast and sgather without a daemon:
 * the file work (temporary file, no-replace rule, commit, abort, reads),
 * the credential checks and the slice check. The file work runs as the
 * test's own user, as the noded's child would run as the job's. */
#define _GNU_SOURCE
#include <errno.h>
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

#include "bcast_cred.h"
#include "bcast_file.h"
#include "cred.h"
#include "revoke.h"

static char dir[] = "/tmp/bcast_test.XXXXXX";

static int setup (void **state)
{
    return mkdtemp (dir) ? 0 : -1;
}

static int teardown (void **state)
{
    char cmd[64];

    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    return system (cmd);
}

static void file_req (struct bcast_file_req *r, const char *dest,
                      const char *node)
{
    memset (r, 0, sizeof (*r));
    r->dest = dest;
    r->node = node;
    r->xfer = 0xabcdef;
    r->mode = 0750;
}

static void slurp (const char *path, char *buf, size_t len)
{
    FILE *f = fopen (path, "r");
    size_t n;

    assert_non_null (f);
    n = fread (buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose (f);
}

/* Two blocks and a commit: the file appears only at commit, whole. */
static void test_write_commit (void **state)
{
    char dest[128], buf[64];
    struct bcast_file_req r;
    struct stat st;
    arbor_error_t err;

    snprintf (dest, sizeof (dest), "%s/prog", dir);
    file_req (&r, dest, "node1");
    r.data = "hello ";
    r.len = 6;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    r.offset = 6;
    r.data = "world";
    r.len = 5;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    assert_int_not_equal (access (dest, F_OK), 0);
    r.op = BCAST_OP_COMMIT;
    r.len = 0;
    r.file_size = 11;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    slurp (dest, buf, sizeof (buf));
    assert_string_equal (buf, "hello world");
    assert_int_equal (stat (dest, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0750);
}

/* An existing DEST is refused at the first block without force, and
 * replaced with it; a commit of a short file is refused. */
static void test_no_replace (void **state)
{
    char dest[128], buf[64];
    struct bcast_file_req r;
    arbor_error_t err;
    FILE *f;

    snprintf (dest, sizeof (dest), "%s/exists", dir);
    f = fopen (dest, "w");
    fputs ("old", f);
    fclose (f);
    file_req (&r, dest, "node1");
    r.data = "new";
    r.len = 3;
    assert_int_equal (bcast_file_do (&r, &err), -1);
    assert_int_equal (errno, EEXIST);
    assert_non_null (strstr (err.text, "--force"));
    r.force = true;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    r.op = BCAST_OP_COMMIT;
    r.file_size = 4; /* one more than was written */
    assert_int_equal (bcast_file_do (&r, &err), -1);
    r.file_size = 3;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    slurp (dest, buf, sizeof (buf));
    assert_string_equal (buf, "new");
}

/* A later block does not follow a link put where the temporary file
 * was; abort removes the temporary file. */
static void test_link_and_abort (void **state)
{
    char dest[128], tmp[256], target[128];
    struct bcast_file_req r;
    arbor_error_t err;

    snprintf (dest, sizeof (dest), "%s/linked", dir);
    snprintf (target, sizeof (target), "%s/target", dir);
    file_req (&r, dest, "node2");
    r.data = "x";
    r.len = 1;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    assert_int_equal (bcast_file_tmpname (&r, tmp, sizeof (tmp)), 0);
    assert_non_null (strstr (tmp, ".linked.bcast.node2."));
    unlink (tmp);
    assert_int_equal (symlink (target, tmp), 0);
    r.offset = 1;
    assert_int_equal (bcast_file_do (&r, &err), -1);
    assert_int_not_equal (access (target, F_OK), 0);
    unlink (tmp);
    r.offset = 0;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    r.op = BCAST_OP_ABORT;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    assert_int_not_equal (access (tmp, F_OK), 0);
    r.dest = "relative";
    assert_int_equal (bcast_file_do (&r, &err), -1);
}

/* make_dir creates DEST's directory (--send-libs' DEST_libs). */
static void test_make_dir (void **state)
{
    char dest[128];
    struct bcast_file_req r;
    arbor_error_t err;

    snprintf (dest, sizeof (dest), "%s/app_libs/libx.so.1", dir);
    file_req (&r, dest, "n");
    r.data = "lib";
    r.len = 3;
    assert_int_equal (bcast_file_do (&r, &err), -1); /* no directory */
    r.make_dir = true;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    r.op = BCAST_OP_COMMIT;
    r.file_size = 3;
    assert_int_equal (bcast_file_do (&r, &err), 0);
    assert_int_equal (access (dest, F_OK), 0);
}

static void test_gather_read (void **state)
{
    char path[128], buf[8];
    struct gather_file gf;
    arbor_error_t err;
    FILE *f;

    snprintf (path, sizeof (path), "%s/out", dir);
    f = fopen (path, "w");
    fputs ("0123456789", f);
    fclose (f);
    assert_int_equal (gather_file_read (path, 0, buf, 8, &gf, &err), 0);
    assert_int_equal (gf.len, 8);
    assert_false (gf.eof);
    assert_int_equal (gf.size, 10);
    assert_int_equal (gather_file_read (path, 8, buf, 8, &gf, &err), 0);
    assert_int_equal (gf.len, 2);
    assert_true (gf.eof);
    assert_memory_equal (buf, "89", 2);
    assert_int_equal (gather_file_read (dir, 0, buf, 8, &gf, &err), -1);
    assert_int_equal (gather_file_remove (path, &err), 0);
    assert_int_equal (gather_file_read (path, 0, buf, 8, &gf, &err), -1);
}

/* The credential: what the controller seals for sbcast passes; a step's
 * credential, another job, another user, a forged text, an expired one,
 * a node it does not name, and an ended job are refused. */
static char *seal (const struct cred_key *k, uint32_t step, uint32_t ntasks,
                   uint64_t expires)
{
    uint32_t tasks[1] = { 1 }, cpus[1] = { 1 };
    struct msg_cred_claims cl = {
        .job_id = 5,
        .step_id = step,
        .uid = 1000,
        .gid = 1000,
        .user = "u",
        .nodelist = "n[1-2]",
        .io_key = "",
        .expires = expires,
        .cluster = "c",
        .home = "",
        .issued = 100,
        .tasks = tasks,
        .tasks_count = ntasks,
        .cpus = cpus,
        .cpus_count = ntasks,
    };
    char *tok = NULL;
    arbor_error_t err;

    assert_int_equal (cred_seal (k, &cl, &tok, &err), 0);
    return tok;
}

static void test_cred (void **state)
{
    struct cred_key k;
    struct revoke *rv = revoke_create_at (16, 0);
    struct bcast_policy p = { .key = &k,
                              .cluster = "c",
                              .self = "n1",
                              .arbor_uid = 99,
                              .noded_uid = 98,
                              .revoked = rv,
                              .now = 200 };
    struct msg_cred_claims cl;
    arbor_error_t err;
    char *good, *step, *old;

    assert_int_equal (cred_key_new (&k, &err), 0);
    good = seal (&k, STEP_ID_ALL, 0, 1000);
    step = seal (&k, 0, 1, 1000);
    old = seal (&k, STEP_ID_ALL, 0, 150);
    assert_int_equal (bcast_cred_check (&p, good, 5, 1000, &cl, &err), 0);
    assert_int_equal (cl.uid, 1000);
    proto_clear (MSG_CRED_CLAIMS, &cl);
    assert_int_equal (bcast_cred_check (&p, good, 5, 98, &cl, &err), 0);
    proto_clear (MSG_CRED_CLAIMS, &cl);
    assert_int_equal (bcast_cred_check (&p, good, 6, 1000, &cl, &err), -1);
    assert_int_equal (bcast_cred_check (&p, good, 5, 1001, &cl, &err), -1);
    assert_int_equal (errno, EPERM);
    assert_int_equal (bcast_cred_check (&p, step, 5, 1000, &cl, &err), -1);
    assert_non_null (strstr (err.text, "not a file broadcast"));
    assert_int_equal (bcast_cred_check (&p, old, 5, 1000, &cl, &err), -1);
    assert_int_equal (
        bcast_cred_check (&p, "arbor-cred1:forged", 5, 1000, &cl, &err), -1);
    p.self = "n3";
    assert_int_equal (bcast_cred_check (&p, good, 5, 1000, &cl, &err), -1);
    p.self = "n1";
    revoke_add (rv, 5, 0, STEP_ID_ALL, 2000);
    assert_int_equal (bcast_cred_check (&p, good, 5, 1000, &cl, &err), -1);
    assert_non_null (strstr (err.text, "ended"));
    p.key = NULL;
    assert_int_equal (bcast_cred_check (&p, good, 5, 1000, &cl, &err), -1);
    assert_int_equal (errno, EAGAIN);
    free (good);
    free (step);
    free (old);
    revoke_destroy (rv);
}

static void test_slice (void **state)
{
    struct msg_cred_claims cl = { .nodelist = "n[1-3]" };
    char *ok[] = { "n1", "n3" }, *other[] = { "n1", "n9" },
         *twice[] = { "n1", "n1" }, *notme[] = { "n2" };
    arbor_error_t err;

    assert_int_equal (bcast_slice_check (&cl, ok, 2, "n1", &err), 0);
    assert_int_equal (bcast_slice_check (&cl, other, 2, "n1", &err), -1);
    assert_int_equal (errno, EPERM);
    assert_int_equal (bcast_slice_check (&cl, twice, 2, "n1", &err), -1);
    assert_int_equal (bcast_slice_check (&cl, notme, 1, "n1", &err), -1);
    assert_int_equal (bcast_slice_check (&cl, ok, 4, "n1", &err), -1);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_write_commit),
        cmocka_unit_test (test_no_replace),
        cmocka_unit_test (test_link_and_abort),
        cmocka_unit_test (test_make_dir),
        cmocka_unit_test (test_gather_read),
        cmocka_unit_test (test_cred),
        cmocka_unit_test (test_slice),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
