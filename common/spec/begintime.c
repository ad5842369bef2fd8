/* begintime.c - Slurm's --begin times; see begintime.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "begintime.h"

/* now+N[unit]: the offset in seconds, or -1. */
static long long begin_offset (const char *s)
{
    /* Slurm's names, long and short, singular and plural, any case:
     * "now+1hour" is what the help text shows. */
    static const struct {
        const char *name;
        long long secs;
    } units[] = {
        { "", 1 },       { "s", 1 },         { "sec", 1 },
        { "second", 1 }, { "seconds", 1 },   { "m", 60 },
        { "min", 60 },   { "minute", 60 },   { "minutes", 60 },
        { "h", 3600 },   { "hour", 3600 },   { "hours", 3600 },
        { "d", 86400 },  { "day", 86400 },   { "days", 86400 },
        { "w", 604800 }, { "week", 604800 }, { "weeks", 604800 },
    };
    char *end;
    long long n;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    n = strtoll (s, &end, 10);
    if (errno || n > 100LL * 366 * 86400)
        return -1;
    for (size_t i = 0; i < sizeof (units) / sizeof (units[0]); i++)
        if (!strcasecmp (end, units[i].name))
            return n * units[i].secs;
    return -1;
}

/* The next time (after now) the clock shows h:m:s. */
static time_t begin_next (time_t now, int h, int m, int sec)
{
    struct tm tm;
    time_t t;

    localtime_r (&now, &tm);
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    t = mktime (&tm);
    if (t <= now) {
        tm.tm_mday++;
        tm.tm_isdst = -1;
        t = mktime (&tm);
    }
    return t;
}

/* Named times. 0 found, -1 not a name. */
static int begin_word (const char *s, time_t now, time_t *out)
{
    static const struct {
        const char *name;
        int hour;
    } words[] = {
        { "midnight", 0 }, { "elevenses", 11 }, { "noon", 12 },
        { "fika", 15 },    { "teatime", 16 },
    };
    struct tm tm;

    for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++)
        if (!strcasecmp (s, words[i].name)) {
            *out = begin_next (now, words[i].hour, 0, 0);
            return 0;
        }
    if (strcasecmp (s, "today") && strcasecmp (s, "tomorrow"))
        return -1;
    localtime_r (&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_mday += !strcasecmp (s, "tomorrow");
    tm.tm_isdst = -1;
    *out = mktime (&tm);
    return 0;
}

/* ":SS" at *s (advanced), if there. 0, or -1. */
static int begin_secs (const char **s, int *sec)
{
    int k = 0;

    if (**s != ':')
        return 0;
    if (sscanf (*s + 1, "%2d%n", sec, &k) != 1)
        return -1;
    *s += 1 + k;
    return 0;
}

static bool begin_hms_ok (int h, int mi, int sec)
{
    return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59;
}

/* YYYY-MM-DD[THH:MM[:SS]]. 0, or -1. */
static int begin_date (const char *s, time_t *out)
{
    struct tm tm = { 0 };
    int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
    time_t t;

    if (sscanf (s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
        return -1;
    s += n;
    if (*s == 'T') {
        if (sscanf (s + 1, "%2d:%2d%n", &h, &mi, &n) != 2)
            return -1;
        s += 1 + n;
        if (begin_secs (&s, &sec) < 0)
            return -1;
    }
    if (*s || mo < 1 || mo > 12 || d < 1 || d > 31
        || !begin_hms_ok (h, mi, sec))
        return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    t = mktime (&tm);
    /* mktime normalises "02-31" into March: refuse a day that is not. */
    if (t == (time_t)-1 || tm.tm_year != y - 1900 || tm.tm_mon != mo - 1
        || tm.tm_mday != d)
        return -1;
    *out = t;
    return 0;
}

/* HH:MM[:SS], the next time the clock shows it. 0, or -1. */
static int begin_clock (const char *s, time_t now, time_t *out)
{
    int h, mi, sec = 0, n = 0;

    if (sscanf (s, "%2d:%2d%n", &h, &mi, &n) != 2)
        return -1;
    s += n;
    if (begin_secs (&s, &sec) < 0 || *s || !begin_hms_ok (h, mi, sec))
        return -1;
    *out = begin_next (now, h, mi, sec);
    return 0;
}

int begin_check (uint64_t t, time_t now, arbor_error_t *err)
{
    if (t <= (uint64_t)BEGIN_MAX_AHEAD
        || (now > 0 && t - (uint64_t)BEGIN_MAX_AHEAD <= (uint64_t)now))
        return 0;
    errno = EINVAL;
    return errprintf (err,
                      "begin time %llu is more than 100 years ahead (hold "
                      "a job that should not start)",
                      (unsigned long long)t);
}

/* s, parsed into *t; 0 or -1. */
static int begin_any (const char *s, time_t now, time_t *t)
{
    long long off;

    if (!strncasecmp (s, "now", 3) && (s[3] == '\0' || s[3] == '+')) {
        off = s[3] ? begin_offset (s + 4) : 0;
        if (off < 0)
            return -1;
        *t = now + (time_t)off;
        return 0;
    }
    if (begin_word (s, now, t) == 0 || begin_date (s, t) == 0
        || begin_clock (s, now, t) == 0)
        return 0;
    return -1;
}

int begin_parse (const char *s, time_t now, time_t *out, arbor_error_t *err)
{
    time_t t;

    if (begin_any (s, now, &t) == 0) {
        if (t > now && t - now > BEGIN_MAX_AHEAD) {
            errno = EINVAL;
            return errprintf (err,
                              "invalid --begin '%s': more than 100 years "
                              "ahead",
                              s);
        }
        *out = t;
        return 0;
    }
    errno = EINVAL;
    return errprintf (err,
                      "invalid --begin '%s' (now+N[minutes|hours|days], "
                      "HH:MM[:SS], YYYY-MM-DD[THH:MM[:SS]], midnight, "
                      "noon, teatime, today, tomorrow)",
                      s);
}
