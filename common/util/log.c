/* log.c - leveled logging for daemons and commands.
 *
 * One process-wide logger: an ident, a threshold level and a destination
 * (stderr, or a file opened for appending). Lines to a file carry an ISO
 * local timestamp with milliseconds, the ident and the level word:
 *     2026-11-22T02:40:01.123 arbor-noded[node3] debug: launch 5.0 ...
 * Lines to stderr are "ident: level: msg", the level word omitted for info.
 *
 * Each line is formatted into a buffer and written with a single write(2)
 * on an O_APPEND descriptor, so lines from noded and the stepds it spawns
 * sharing one log file do not interleave mid-line. The logger works before
 * log_open() (ident "arbor", level info, stderr). Log calls never change
 * errno, so "log_err (...); return -1;" keeps the caller's errno and %m
 * still works. log_open()/log_close() are meant to be called from the main
 * thread before any worker thread logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#define LOG_IDENT_MAX 128
#define LOG_LINE_MAX 4096

/* The logger is the one mutable global of the tree (STYLE rule 7 allows it
 * by exception, see log.h): every daemon, command and helper would
 * otherwise need a logger threaded through every call, libraries included
 * in their callers' error paths. */
static struct {
    char ident[LOG_IDENT_MAX];
    int level;
    int fd;                    /* -1: stderr */
    char path[PATH_MAX];       /* the file's, for log_reopen; "" stderr */
    time_t sec_window;         /* log_security: start of the current window */
    unsigned sec_count;        /* lines logged in it */
    unsigned long sec_dropped; /* lines suppressed since the last report */
} logger = { "arbor", LOG_LVL_INFO, -1, "", 0, 0, 0 };

static const char *const level_names[] = {
    [LOG_LVL_ERR] = "error",   [LOG_LVL_WARN] = "warning",
    [LOG_LVL_INFO] = "info",   [LOG_LVL_VERBOSE] = "verbose",
    [LOG_LVL_DEBUG] = "debug", [LOG_LVL_DEBUG2] = "debug2",
};

static const char *log_level_word (int level)
{
    if (level < LOG_LVL_ERR)
        level = LOG_LVL_ERR;
    if (level > LOG_LVL_DEBUG2)
        level = LOG_LVL_DEBUG2;
    return level_names[level];
}

int log_open (const char *ident, int level, const char *path)
{
    int fd = -1;

    if (ident)
        snprintf (logger.ident, sizeof (logger.ident), "%s", ident);
    logger.level = level;
    if (path) {
        fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            int e = errno;
            log_close ();
            errno = e;
            return -1;
        }
    }
    log_close ();
    logger.fd = fd;
    snprintf (logger.path, sizeof (logger.path), "%s", path ? path : "");
    return 0;
}

int log_reopen (void)
{
    int fd;

    if (!logger.path[0])
        return 0;
    fd = open (logger.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1; /* the old file stays */
    if (logger.fd >= 0)
        close (logger.fd);
    logger.fd = fd;
    return 0;
}

void log_close (void)
{
    int e = errno;

    if (logger.fd >= 0)
        close (logger.fd);
    logger.fd = -1;
    logger.path[0] = '\0';
    errno = e;
}

int log_get_level (void)
{
    return logger.level;
}

void log_set_level (int level)
{
    logger.level = level;
}

int log_level_parse (const char *s)
{
    static const struct {
        const char *name;
        int level;
    } extra[] = {
        { "err", LOG_LVL_ERR },
        { "warn", LOG_LVL_WARN },
    };
    char *end;
    long n;

    if (!s || !*s)
        return -1;
    for (int i = LOG_LVL_ERR; i <= LOG_LVL_DEBUG2; i++) {
        if (!strcasecmp (s, level_names[i]))
            return i;
    }
    for (size_t i = 0; i < sizeof (extra) / sizeof (extra[0]); i++) {
        if (!strcasecmp (s, extra[i].name))
            return extra[i].level;
    }
    errno = 0;
    n = strtol (s, &end, 10);
    if (errno || *end || end == s || s[0] == '-' || s[0] == '+'
        || n < LOG_LVL_ERR || n > LOG_LVL_DEBUG2)
        return -1;
    return (int)n;
}

/* Format the "2026-11-22T02:40:01.123 " prefix into buf. */
static size_t log_timestamp (char *buf, size_t len)
{
    struct timeval tv;
    struct tm tm;
    size_t n;

    gettimeofday (&tv, NULL);
    if (!localtime_r (&tv.tv_sec, &tm))
        return 0;
    n = strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
    if (n == 0)
        return 0;
    n += snprintf (buf + n, len - n, ".%03ld ", (long)(tv.tv_usec / 1000));
    return n < len ? n : len - 1;
}

/* Write a whole line; retry short writes and EINTR, give up quietly:
 * there is nowhere left to report a failing log. */
static void log_write (int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

/* Format one line for 'fd' (-1: stderr style) and write it. */
static void log_line (int fd, int level, const char *fmt, va_list ap)
{
    char buf[LOG_LINE_MAX];
    size_t n = 0;
    int m;

    if (fd >= 0) {
        n = log_timestamp (buf, sizeof (buf));
        m = snprintf (buf + n, sizeof (buf) - n, "%s %s: ", logger.ident,
                      log_level_word (level));
    } else if (level == LOG_LVL_INFO) {
        m = snprintf (buf, sizeof (buf), "%s: ", logger.ident);
    } else {
        m = snprintf (buf, sizeof (buf), "%s: %s: ", logger.ident,
                      log_level_word (level));
    }
    if (m > 0)
        n += (size_t)m;
    if (n < sizeof (buf) - 1) {
        m = vsnprintf (buf + n, sizeof (buf) - n, fmt, ap);
        if (m > 0)
            n += (size_t)m;
    }
    if (n > sizeof (buf) - 2) /* truncated: keep room for the newline */
        n = sizeof (buf) - 2;
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n++] = '\n';
    log_write (fd >= 0 ? fd : STDERR_FILENO, buf, n);
}

void log_vmsg (int level, const char *fmt, va_list ap)
{
    int e = errno;

    if (logger.level >= LOG_LVL_ERR && level <= logger.level) {
        errno = e; /* for %m */
        log_line (logger.fd, level, fmt, ap);
    }
    errno = e;
}

void log_msg (int level, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    log_vmsg (level, fmt, ap);
    va_end (ap);
}

/* One token window for all security lines: a flood of any kind is one
 * flood, and a counter per kind would let an attacker rotate kinds. */
void log_security (const char *fmt, ...)
{
    struct timespec ts;
    char line[LOG_LINE_MAX];
    va_list ap;
    int e = errno;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    if (ts.tv_sec >= logger.sec_window + LOG_SEC_INTERVAL) {
        if (logger.sec_dropped > 0)
            log_msg (LOG_LVL_WARN,
                     "security: %lu similar messages "
                     "suppressed",
                     logger.sec_dropped);
        logger.sec_window = ts.tv_sec;
        logger.sec_count = 0;
        logger.sec_dropped = 0;
    }
    if (logger.sec_count >= LOG_SEC_BURST) {
        logger.sec_dropped++;
        errno = e;
        return;
    }
    logger.sec_count++;
    va_start (ap, fmt);
    errno = e;
    vsnprintf (line, sizeof (line), fmt, ap);
    va_end (ap);
    log_msg (LOG_LVL_WARN, "security: %s", line);
    errno = e;
}

void die (const char *fmt, ...)
{
    int e = errno;
    va_list ap;

    /* Always tell the user on stderr; also leave a trace in the log file
     * when one is open. */
    if (logger.fd >= 0) {
        va_start (ap, fmt);
        errno = e;
        log_line (logger.fd, LOG_LVL_ERR, fmt, ap);
        va_end (ap);
    }
    va_start (ap, fmt);
    errno = e;
    log_line (-1, LOG_LVL_ERR, fmt, ap);
    va_end (ap);
    exit (1);
}
