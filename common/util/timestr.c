/* timestr.c - parse and format Slurm time limits.
 *
 * Accepted forms (as Slurm's --time): "M", "M:S", "H:M:S", "D-H", "D-H:M",
 * "D-H:M:S", and "INFINITE", "UNLIMITED" or "-1" for no limit. Fields are
 * plain decimal numbers and are not range checked against 60/24 (Slurm
 * does not either: "90" is 90 minutes, "0:90" is 2 minutes). Results are
 * whole minutes, seconds rounding up: "0:30" is 1 minute; "0" is 0.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "timestr.h"

#define TIMESTR_FIELD_DIGITS 9

/* Parse up to three ':'-separated fields of s[0..len) into f; returns how
 * many, or -1. */
static int timestr_fields (const char *s, size_t len, uint64_t f[3])
{
    int n = 0;
    size_t i = 0;

    for (;;) {
        int digits = 0;
        uint64_t v = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (++digits > TIMESTR_FIELD_DIGITS)
                return -1;
            v = v * 10 + (uint64_t)(s[i++] - '0');
        }
        if (digits == 0 || n == 3)
            return -1;
        f[n++] = v;
        if (i == len)
            return n;
        if (s[i++] != ':')
            return -1;
    }
}

/* Seconds from the fields of a "D-..." (days >= 0) or plain form. */
static int timestr_seconds (const char *s, uint64_t *secs)
{
    const char *dash = strchr (s, '-');
    uint64_t f[3] = { 0, 0, 0 }, days = 0;
    int n;

    if (dash) {
        uint64_t d[3];
        if (timestr_fields (s, (size_t)(dash - s), d) != 1)
            return -1;
        days = d[0];
        s = dash + 1;
        n = timestr_fields (s, strlen (s), f);
        if (n < 0)
            return -1;
        /* D-H, D-H:M, D-H:M:S */
        *secs = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
        return 0;
    }
    n = timestr_fields (s, strlen (s), f);
    if (n == 1) /* M */
        *secs = f[0] * 60;
    else if (n == 2) /* M:S */
        *secs = f[0] * 60 + f[1];
    else if (n == 3) /* H:M:S */
        *secs = f[0] * 3600 + f[1] * 60 + f[2];
    else
        return -1;
    return 0;
}

int timestr_parse (const char *s, uint32_t *minutes, arbor_error_t *err)
{
    uint64_t secs, mins;

    if (!s || !*s) {
        errno = EINVAL;
        return errprintf (err, "empty time limit");
    }
    if (!strcasecmp (s, "INFINITE") || !strcasecmp (s, "UNLIMITED")
        || !strcmp (s, "-1")) {
        *minutes = TIME_INFINITE;
        return 0;
    }
    if (timestr_seconds (s, &secs) < 0) {
        errno = EINVAL;
        return errprintf (err,
                          "'%.40s' is not a time limit (M, M:S, H:M:S, "
                          "D-H, D-H:M, D-H:M:S or UNLIMITED)",
                          s);
    }
    mins = (secs + 59) / 60;
    if (mins >= TIME_INFINITE) {
        errno = EINVAL;
        return errprintf (err, "time limit '%.40s' is too large", s);
    }
    *minutes = (uint32_t)mins;
    return 0;
}

char *timestr_format (uint32_t minutes, char *buf, size_t len)
{
    unsigned days = minutes / 1440, hours = minutes / 60 % 24;
    unsigned mins = minutes % 60;

    if (!buf || len == 0)
        return buf;
    if (minutes == TIME_INFINITE)
        snprintf (buf, len, "UNLIMITED");
    else if (days > 0)
        snprintf (buf, len, "%u-%02u:%02u:00", days, hours, mins);
    else
        snprintf (buf, len, "%02u:%02u:00", hours, mins);
    return buf;
}
