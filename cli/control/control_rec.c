/* control_rec.c - scontrol's record layout and value formats; see
 * control_rec.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_text.h"
#include "control_rec.h"
#include "timestr.h"

#define CONTROL_INDENT "   " /* scontrol's, before every line but the first */

int control_rec_add (struct control_rec *r, const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        char **v = realloc (r->line, cap * sizeof (*v));
        if (!v)
            goto nomem;
        r->line = v;
        r->cap = cap;
    }
    va_start (ap, fmt);
    n = vasprintf (&s, fmt, ap);
    va_end (ap);
    if (n < 0)
        goto nomem;
    r->line[r->n++] = s;
    return 0;
nomem:
    r->failed = true;
    errno = ENOMEM;
    return -1;
}

char *control_rec_text (const struct control_rec *r, bool oneliner)
{
    const char *sep = oneliner ? " " : "\n" CONTROL_INDENT;
    size_t len = 3, at = 0;
    char *text;

    if (r->failed) {
        errno = ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < r->n; i++)
        len += strlen (r->line[i]) + strlen (sep);
    if (!(text = malloc (len)))
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        at += (size_t)sprintf (text + at, "%s%s", i ? sep : "", r->line[i]);
    /* scontrol ends a record with a blank line, a one-line record not */
    sprintf (text + at, "%s", oneliner ? "\n" : "\n\n");
    return text;
}

void control_rec_clear (struct control_rec *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free (r->line[i]);
    free (r->line);
    memset (r, 0, sizeof (*r));
}

const char *control_time (uint64_t t, char *buf, size_t len)
{
    return acct_text_time (t, acct_text_time_format (), buf, len);
}

const char *control_duration (int64_t secs, char *buf, size_t len)
{
    long long s = secs < 0 ? 0 : (long long)secs;

    if (s >= 86400)
        snprintf (buf, len, "%lld-%02lld:%02lld:%02lld", s / 86400,
                  s % 86400 / 3600, s % 3600 / 60, s % 60);
    else
        snprintf (buf, len, "%02lld:%02lld:%02lld", s / 3600, s % 3600 / 60,
                  s % 60);
    return buf;
}

const char *control_limit (uint32_t minutes, char *buf, size_t len)
{
    if (minutes == TIME_INFINITE)
        snprintf (buf, len, "UNLIMITED");
    else
        timestr_format (minutes, buf, len);
    return buf;
}

const char *control_mem (uint64_t mb, char *buf, size_t len)
{
    static const char units[] = "MGTPE";
    size_t u = 0;

    if (mb == 0) {
        snprintf (buf, len, "0");
        return buf;
    }
    while (mb % 1024 == 0 && u + 1 < sizeof (units) - 1) {
        mb /= 1024;
        u++;
    }
    snprintf (buf, len, "%llu%c", (unsigned long long)mb, units[u]);
    return buf;
}

const char *control_null (const char *s)
{
    return s && *s ? s : "(null)";
}
