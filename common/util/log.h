/* log.h - leveled logging for daemons and commands.
 *
 * Libraries never log (STYLE rule 5); daemons and commands do, once, where
 * the context is richest. The log destination is process-wide state set by
 * log_open(): a logger is the one place where a global is clearer than
 * threading a context through every call.
 *
 * Lines look like
 *     2026-11-22T02:40:01.123 arbor-noded[node3] debug: launch 5.0 from ...
 * on a file, and "arbor: error: ..." on stderr for commands.
 */
#ifndef ARBOR_LOG_H
#define ARBOR_LOG_H

#include <stdarg.h>

enum log_level {
    LOG_LVL_QUIET = -1,
    LOG_LVL_ERR = 0,
    LOG_LVL_WARN,
    LOG_LVL_INFO,
    LOG_LVL_VERBOSE,
    LOG_LVL_DEBUG,
    LOG_LVL_DEBUG2,
};

/* Start logging as 'ident' (e.g. "arbor-noded[node3]") at 'level' to 'path'
 * (appended) or to stderr when path is NULL. Returns 0, or -1 with errno if
 * the file cannot be opened (logging then stays on stderr). Timestamps are
 * written only to files. */
int log_open (const char *ident, int level, const char *path);
void log_close (void);
/* Open log_open's file again by its name (after logrotate moved it):
 * 0, or -1 with errno, logging then going on to the old file. Nothing to
 * do on stderr. */
int log_reopen (void);
int log_get_level (void);
void log_set_level (int level);

/* Parse "error|warn|info|verbose|debug|debug2" or a number 0-5.
 * Returns the level, or -1 if 's' names none. */
int log_level_parse (const char *s);

void log_msg (int level, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
void log_vmsg (int level, const char *fmt, va_list ap);

#define log_err(...) log_msg (LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg (LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg (LOG_LVL_INFO, __VA_ARGS__)
#define log_verbose(...) log_msg (LOG_LVL_VERBOSE, __VA_ARGS__)
#define log_debug(...) log_msg (LOG_LVL_DEBUG, __VA_ARGS__)
#define log_debug2(...) log_msg (LOG_LVL_DEBUG2, __VA_ARGS__)

/* Security events (refused, forged, replayed or malformed connections,
 * privileged requests refused): logged at warning, prefixed "security: ",
 * and rate-limited process-wide to LOG_SEC_BURST lines per
 * LOG_SEC_INTERVAL seconds so that a hostile peer cannot flood the log;
 * the first line after a quiet interval says how many were suppressed.
 * Callers name the peer address and uid when known. */
#define LOG_SEC_BURST 20
#define LOG_SEC_INTERVAL 10
void log_security (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2)));

/* Commands only: print "ident: error: MSG" and exit(1). */
void die (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));

#endif
