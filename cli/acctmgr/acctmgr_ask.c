/* acctmgr_ask.c - the commit question (acctmgr_ask.h). Read with read(2)
 * under poll(2) rather than stdio, so that the time limit holds while a
 * line is half typed and stdin's buffer takes nothing beyond the line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "acctmgr_ask.h"

static long acctmgr_now_ms (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait until fd is readable before 'deadline' (ms): true if it is (or
 * has hung up: read then sees the end). */
static bool acctmgr_wait (int fd, long deadline)
{
    struct pollfd pfd = { .fd = fd, .events = POLLIN };

    for (;;) {
        long left = deadline - acctmgr_now_ms ();
        int rc;

        if (left <= 0)
            return false;
        rc = poll (&pfd, 1, (int)(left > 1000000 ? 1000000 : left));
        if (rc > 0)
            return true;
        if (rc < 0 && errno != EINTR)
            return false;
    }
}

enum acctmgr_answer acctmgr_ask (FILE *out, int fd, int timeout_ms)
{
    long deadline = acctmgr_now_ms () + timeout_ms;
    bool any = false, ended = false, eof = false;
    char first = 0, ch;

    fputs ("Would you like to commit changes? (You have 30 seconds to "
           "decide)\n(N/y): ",
           out);
    fflush (out);
    while (!ended && !eof && acctmgr_wait (fd, deadline)) {
        ssize_t n = read (fd, &ch, 1);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = n == 0; /* a read error is no answer */
            break;
        }
        ended = ch == '\n';
        any = any || !ended;
        if (!ended && !first && !isspace ((unsigned char)ch))
            first = ch;
    }
    /* A half-typed line counts at the end of input, not at the timeout. */
    if (!ended && !(eof && any))
        return ACCTMGR_UNANSWERED;
    return first == 'y' || first == 'Y' ? ACCTMGR_YES : ACCTMGR_NO;
}
