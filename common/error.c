/* error.c - fill an arbor_error_t; see error.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int errprintf (arbor_error_t *err, const char *fmt, ...)
{
    int saved = errno;

    if (err) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (err->text, sizeof (err->text), fmt, ap);
        va_end (ap);
    }
    errno = saved;
    return -1;
}
