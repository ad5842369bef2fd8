/* error.c - fill an arbor_error_t; see error.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void errappend (arbor_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    size_t used;
    va_list ap;

    if (!err)
        return;
    used = strlen (err->text);
    if (used && used + 2 < sizeof (err->text)) {
        memcpy (err->text + used, "; ", 3);
        used += 2;
    }
    if (used + 1 < sizeof (err->text)) {
        va_start (ap, fmt);
        vsnprintf (err->text + used, sizeof (err->text) - used, fmt, ap);
        va_end (ap);
    }
    errno = saved;
}

const char *errno_text (int errnum, char *buf, size_t len)
{
    snprintf (buf, len, "%s", strerror (errnum));
    if (buf[0] && isupper ((unsigned char)buf[0])
        && !isupper ((unsigned char)buf[1]))
        buf[0] = (char)tolower ((unsigned char)buf[0]);
    return buf;
}
