/* acct_text.c - accounting values to text and back; see acct_text.h.
 *
 * Times on the command line reuse common/spec/begintime.c (sbatch --begin's
 * parser, which looks forward) and turn its future answers into past
 * ones, since sacct asks about what has happened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acct_text.h"
#include "begintime.h"
#include "states.h"

char *acct_text_exit (int32_t exit_code, int32_t signal, char *buf, size_t len)
{
    snprintf (buf, len, "%" PRId32 ":%" PRId32, exit_code, signal);
    return buf;
}

char *acct_text_duration (uint64_t secs, char *buf, size_t len)
{
    uint64_t days = secs / 86400;

    if (days)
        snprintf (buf, len, "%" PRIu64 "-%02u:%02u:%02u", days,
                  (unsigned)(secs % 86400 / 3600), (unsigned)(secs % 3600 / 60),
                  (unsigned)(secs % 60));
    else
        snprintf (buf, len, "%02u:%02u:%02u", (unsigned)(secs / 3600),
                  (unsigned)(secs % 3600 / 60), (unsigned)(secs % 60));
    return buf;
}

/* sacct shows milliseconds only for CPU times under an hour, and then
 * drops the hours: "02:03.500"; whole seconds keep the "00:" hours. */
char *acct_text_cpu (uint64_t usec, char *buf, size_t len)
{
    uint64_t secs = usec / 1000000, ms = usec % 1000000 / 1000;

    if (secs >= 3600 || ms == 0)
        return acct_text_duration (secs, buf, len);
    snprintf (buf, len, "%02u:%02u.%03u", (unsigned)(secs / 60),
              (unsigned)(secs % 60), (unsigned)ms);
    return buf;
}

char *acct_text_size (uint64_t n, enum acct_unit unit, char *buf, size_t len)
{
    static const char units[] = { '\0', 'K', 'M', 'G', 'T', 'P', 'E' };
    double v = (double)n;
    size_t u = (size_t)unit;

    if (n == 0) {
        snprintf (buf, len, "0");
        return buf;
    }
    /* Scale up while the value stays a multiple of half a unit. */
    while (v >= 1024 && (uint64_t)v % 512 == 0 && u + 1 < sizeof (units)) {
        v /= 1024;
        u++;
    }
    if (v == (double)(uint64_t)v)
        snprintf (buf, len, "%" PRIu64 "%.1s", (uint64_t)v, &units[u]);
    else
        snprintf (buf, len, "%.2f%.1s", v, &units[u]);
    return buf;
}

bool acct_text_unit_valid (char c)
{
    return c && strchr ("KMGTPkmgtp", c) != NULL;
}

char *acct_text_size_as (uint64_t n, enum acct_unit unit, char to, char *buf,
                         size_t len)
{
    static const char units[] = "\0KMGTP";
    const char *p;
    double v = (double)n;
    int shift;

    if (!to)
        return acct_text_size (n, unit, buf, len);
    to = (char)(to >= 'a' ? to - 32 : to);
    if (n == 0 || !(p = strchr (units + 1, to))) {
        snprintf (buf, len, "0");
        return buf;
    }
    for (shift = (int)(p - units) - (int)unit; shift > 0; shift--)
        v /= 1024;
    for (; shift < 0; shift++)
        v *= 1024;
    if (v == (double)(uint64_t)v)
        snprintf (buf, len, "%" PRIu64 "%c", (uint64_t)v, to);
    else
        snprintf (buf, len, "%.2f%c", v, to);
    return buf;
}

char *acct_text_time (uint64_t t, const char *fmt, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (t == 0 || !localtime_r (&tt, &tm)
        || strftime (buf, len, fmt ? fmt : "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf (buf, len, "Unknown");
    return buf;
}

const char *acct_text_time_format (void)
{
    const char *f = getenv ("SLURM_TIME_FORMAT");

    if (!f || !strchr (f, '%'))
        return NULL;
    return f;
}

/* ---- -S / -E ---------------------------------------------------------- */

/* The same wall-clock time 'days' days later (DST-safe). */
static time_t acct_text_add_days (time_t t, int days)
{
    struct tm tm;

    localtime_r (&t, &tm);
    tm.tm_mday += days;
    tm.tm_isdst = -1;
    return mktime (&tm);
}

/* HH:MM[:SS] or a named hour: begin_parse gives the next one, sacct
 * wants the last one. */
static bool acct_text_is_clock (const char *s)
{
    static const char *const hours[] = {
        "midnight", "noon", "elevenses", "fika", "teatime",
    };

    for (size_t i = 0; i < sizeof (hours) / sizeof (hours[0]); i++)
        if (!strcasecmp (s, hours[i]))
            return true;
    return strchr (s, ':') && !strchr (s, '-') && !strchr (s, 'T');
}

/* "-HH:MM[:SS]" after a month and day: 0, or -1. */
static int acct_text_hms (const char *s, struct tm *tm)
{
    int h, mi, sec = 0, n = 0;

    if (*s == '\0')
        return 0;
    if (sscanf (s, "-%2d:%2d%n", &h, &mi, &n) != 2)
        return -1;
    s += n;
    if (*s == ':' && sscanf (s, ":%2d%n", &sec, &n) == 1)
        s += n;
    if (*s || h > 23 || mi > 59 || sec > 59 || h < 0 || mi < 0 || sec < 0)
        return -1;
    tm->tm_hour = h;
    tm->tm_min = mi;
    tm->tm_sec = sec;
    return 0;
}

/* MM/DD[/YY][-HH:MM[:SS]] or MM.DD[.YY]...: 0, or -1. Without a year,
 * the last such day (this year's, or last year's if still to come); YY
 * is 20YY, a four-digit year itself. */
static int acct_text_month_day (const char *s, time_t now, time_t *out)
{
    struct tm tm, nowtm;
    int mo, d, y = -1, n = 0;
    char sep;

    if (sscanf (s, "%2d%c%2d%n", &mo, &sep, &d, &n) != 3
        || (sep != '/' && sep != '.'))
        return -1;
    s += n;
    if (*s == sep) {
        if (sscanf (s + 1, "%4d%n", &y, &n) != 1 || y < 0)
            return -1;
        s += 1 + n;
    }
    localtime_r (&now, &nowtm);
    memset (&tm, 0, sizeof (tm));
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || acct_text_hms (s, &tm) < 0)
        return -1;
    tm.tm_year = y < 0 ? nowtm.tm_year : y < 100 ? 100 + y : y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_isdst = -1;
    if ((*out = mktime (&tm)) == (time_t)-1 || tm.tm_mday != d)
        return -1;
    if (y < 0 && *out > now) {
        tm.tm_year--;
        tm.tm_mday = d;
        tm.tm_mon = mo - 1;
        tm.tm_isdst = -1;
        *out = mktime (&tm);
    }
    return 0;
}

/* now-N[unit]: begin_parse reads the offset of the same text with '+'. */
static int acct_text_now_minus (const char *s, time_t now, time_t *out)
{
    char plus[64];
    time_t later;

    if (strncasecmp (s, "now-", 4) || strlen (s) >= sizeof (plus))
        return -1;
    snprintf (plus, sizeof (plus), "now+%s", s + 4);
    if (begin_parse (plus, now, &later, NULL) < 0)
        return -1;
    *out = now - (later - now);
    return 0;
}

int acct_text_parse_time (const char *s, time_t now, time_t *out,
                          arbor_error_t *err)
{
    time_t t;

    if (acct_text_now_minus (s, now, out) == 0
        || acct_text_month_day (s, now, out) == 0)
        return 0;
    if (begin_parse (s, now, &t, NULL) == 0) {
        *out = acct_text_is_clock (s) ? acct_text_add_days (t, -1) : t;
        return 0;
    }
    errno = EINVAL;
    return errprintf (err,
                      "invalid time '%s' (YYYY-MM-DD[THH:MM[:SS]], "
                      "MM/DD[/YY], HH:MM[:SS], now[{+|-}N[units]], today, "
                      "midnight, noon...)",
                      s);
}

/* ---- -s --------------------------------------------------------------- */

/* States sacct names that Arbor's jobs never reach; accepted, as sacct
 * does, and simply match nothing. */
static const struct {
    const char *name, *code;
} acct_text_other_states[] = {
    { "BOOT_FAIL", "BF" },    { "DEADLINE", "DL" }, { "PREEMPTED", "PR" },
    { "RESIZING", "RS" },     { "REVOKED", "RV" },  { "CONFIGURING", "CF" },
    { "SPECIAL_EXIT", "SE" }, { "REQUEUED", "RQ" },
};

const char *acct_text_state (const char *word)
{
    int s = job_state_parse (word, true);

    if (s >= 0)
        return job_state_str ((enum job_state)s);
    for (size_t i = 0; i < sizeof (acct_text_other_states)
                               / sizeof (acct_text_other_states[0]);
         i++)
        if (!strcasecmp (word, acct_text_other_states[i].name)
            || !strcasecmp (word, acct_text_other_states[i].code))
            return acct_text_other_states[i].name;
    return NULL;
}
