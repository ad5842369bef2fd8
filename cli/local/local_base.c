/* local_base.c - the helpers every file of cli/local/ uses (see
 * local_base.h): kept here, below the stages, so that no file calls up
 * into local.c, the driver.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

int local_write_file (const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen (path, "w");

    if (!f || fchmod (fileno (f), mode) < 0 || fputs (text, f) == EOF) {
        local_say ("%s: %s", path, strerror (errno));
        if (f)
            fclose (f);
        return -1;
    }
    if (fclose (f) == EOF) {
        local_say ("%s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}
