/* spawnmsg_test.c - unit tests for spawnmsg.c: a message and its fd cross
 * a SOCK_SEQPACKET pair; malformed packets (size, magic, kind, pid, extra
 * fds) are refused with EPROTO and a reason, their fds closed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "spawnmsg.h"

static void pair (int sv[2])
{
    assert_int_equal (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
}

static void test_roundtrip_with_fd (void **state)
{
    struct spawnmsg m = { SPAWNMSG_MAGIC, SPAWNMSG_SPAWN, 42, 0, 0 }, got;
    arbor_error_t err = { "" };
    int sv[2], p[2], fd;
    char c = 0;

    pair (sv);
    assert_int_equal (pipe (p), 0);
    assert_int_equal (spawnmsg_send (sv[0], &m, p[1]), 0);
    assert_int_equal (spawnmsg_recv (sv[1], &got, &fd, &err), 1);
    assert_int_equal (got.kind, SPAWNMSG_SPAWN);
    assert_int_equal (got.token, 42);
    assert_true (fd >= 0 && fd != p[1]);
    assert_true (fcntl (fd, F_GETFD) & FD_CLOEXEC);
    assert_int_equal (write (fd, "x", 1), 1); /* the same pipe */
    assert_int_equal (read (p[0], &c, 1), 1);
    assert_int_equal (c, 'x');
    close (fd);
    /* without an fd, and EOF */
    m.kind = SPAWNMSG_EXITED;
    m.pid = 1234;
    assert_int_equal (spawnmsg_send (sv[0], &m, -1), 0);
    assert_int_equal (spawnmsg_recv (sv[1], &got, &fd, &err), 1);
    assert_int_equal (fd, -1);
    assert_int_equal (got.pid, 1234);
    close (sv[0]);
    assert_int_equal (spawnmsg_recv (sv[1], &got, &fd, &err), 0);
    close (sv[1]);
    close (p[0]);
    close (p[1]);
}

static void expect_refused (const void *buf, size_t len, const char *why)
{
    struct spawnmsg m;
    arbor_error_t err = { "" };

    errno = 0;
    assert_int_equal (spawnmsg_parse (buf, len, &m, &err), -1);
    assert_int_equal (errno, EPROTO);
    if (!strstr (err.text, why))
        fail_msg ("'%s' does not say '%s'", err.text, why);
}

static void test_malformed (void **state)
{
    struct spawnmsg m = { SPAWNMSG_MAGIC, SPAWNMSG_FORKED, 1, 99, 0 };
    char big[sizeof (m) + 4] = { 0 };

    expect_refused (&m, sizeof (m) - 1, "of 23 bytes");
    expect_refused (big, sizeof (big), "of 28 bytes");
    m.magic = 0x12345678;
    expect_refused (&m, sizeof (m), "bad magic");
    m.magic = SPAWNMSG_MAGIC;
    m.kind = 0;
    expect_refused (&m, sizeof (m), "unknown kind 0");
    m.kind = 77;
    expect_refused (&m, sizeof (m), "unknown kind 77");
    m.kind = SPAWNMSG_FORKED;
    m.pid = 1; /* init: never a stepd */
    expect_refused (&m, sizeof (m), "names pid 1");
    m.kind = SPAWNMSG_EXITED;
    m.pid = -5;
    expect_refused (&m, sizeof (m), "names pid -5");
    m.kind = SPAWNMSG_SPAWN;
    m.value = 3;
    expect_refused (&m, sizeof (m), "names MPI type 3");
}

/* SPAWN's MPI hint: the canonical types, and none for anything else. */
static void test_mpi_hint (void **state)
{
    assert_int_equal (spawnmsg_mpi_value ("pmix"), SPAWNMSG_MPI_PMIX);
    assert_int_equal (spawnmsg_mpi_value ("pmi2"), SPAWNMSG_MPI_PMI2);
    assert_int_equal (spawnmsg_mpi_value ("none"), SPAWNMSG_MPI_NONE);
    assert_int_equal (spawnmsg_mpi_value (NULL), SPAWNMSG_MPI_NONE);
    assert_string_equal (spawnmsg_mpi_name (SPAWNMSG_MPI_PMIX), "pmix");
    assert_string_equal (spawnmsg_mpi_name (SPAWNMSG_MPI_PMI2), "pmi2");
    assert_null (spawnmsg_mpi_name (SPAWNMSG_MPI_NONE));
}

/* A packet with two fds: refused, and both fds closed (not leaked). */
static void test_extra_fds_closed (void **state)
{
    struct spawnmsg m = { SPAWNMSG_MAGIC, SPAWNMSG_SPAWN, 1, 0, 0 }, got;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE (2 * sizeof (int))];
    } ctl = { 0 };
    struct iovec iov = { &m, sizeof (m) };
    struct msghdr msg = { .msg_iov = &iov,
                          .msg_iovlen = 1,
                          .msg_control = ctl.buf,
                          .msg_controllen = sizeof (ctl.buf) };
    struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
    arbor_error_t err = { "" };
    int sv[2], p[2], fd;
    char ch;

    pair (sv);
    assert_int_equal (pipe (p), 0);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN (2 * sizeof (int));
    memcpy (CMSG_DATA (c), p, sizeof (p));
    assert_int_equal (sendmsg (sv[0], &msg, 0), (ssize_t)sizeof (m));
    close (p[1]);
    assert_int_equal (spawnmsg_recv (sv[1], &got, &fd, &err), -1);
    assert_int_equal (errno, EPROTO);
    assert_non_null (strstr (err.text, "1 fds too many"));
    assert_int_equal (fd, -1);
    /* every copy of the write end is closed: the read end sees EOF */
    assert_int_equal (read (p[0], &ch, 1), 0);
    close (p[0]);
    close (sv[0]);
    close (sv[1]);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_roundtrip_with_fd),
        cmocka_unit_test (test_malformed),
        cmocka_unit_test (test_mpi_hint),
        cmocka_unit_test (test_extra_fds_closed),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
