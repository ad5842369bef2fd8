/* net_test.c - whole reads on a socket, with and without a deadline
 * (fd_read_full, fd_read_deadline, net_deadline). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "net.h"

static int setup (void **state)
{
    static int fds[2];

    if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
        return -1;
    *state = fds;
    return 0;
}

static int teardown (void **state)
{
    int *fds = *state;

    close (fds[0]);
    if (fds[1] >= 0)
        close (fds[1]);
    return 0;
}

static void test_whole_read (void **state)
{
    int *fds = *state;
    char buf[8] = "";

    assert_int_equal (write (fds[1], "abcd", 4), 4);
    assert_int_equal (write (fds[1], "efgh", 4), 4);
    assert_int_equal (fd_read_full (fds[0], buf, 6), 0);
    assert_memory_equal (buf, "abcdef", 6);
    assert_int_equal (fd_read_deadline (fds[0], buf, 2, net_deadline (1000)),
                      0);
    assert_memory_equal (buf, "gh", 2);
}

static void test_deadline (void **state)
{
    int *fds = *state;
    char buf[8];
    int64_t before = net_deadline (1);

    assert_int_equal (net_deadline (0), 0);
    assert_int_equal (net_deadline (-5), 0);
    assert_true (before > 0);
    assert_int_equal (write (fds[1], "ab", 2), 2);
    errno = 0;
    assert_int_equal (fd_read_deadline (fds[0], buf, 4, net_deadline (50)), -1);
    assert_int_equal (errno, ETIMEDOUT);
}

static void test_eof (void **state)
{
    int *fds = *state;
    char buf[8];

    assert_int_equal (write (fds[1], "ab", 2), 2);
    close (fds[1]);
    fds[1] = -1;
    errno = 0;
    assert_int_equal (fd_read_deadline (fds[0], buf, 4, net_deadline (1000)),
                      -1);
    assert_int_equal (errno, ECONNRESET);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_whole_read, setup, teardown),
        cmocka_unit_test_setup_teardown (test_deadline, setup, teardown),
        cmocka_unit_test_setup_teardown (test_eof, setup, teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
