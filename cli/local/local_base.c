/* local_base.c - the helpers every file of cli/local/ uses (see
 * local_base.h): kept here, below the stages, so that no file calls up
 * into local.c, the driver.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "local_base.h"

void local_say (const char *fmt, ...)
{
    va_list ap;

    fflush (stdout);
    fputs ("arbor local: ", stderr);
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
}

int local_path (char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (buf, len, fmt, ap);
    va_end (ap);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
