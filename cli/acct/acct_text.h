/* acct_text.h - the words and numbers of accounting output, as sacct
 * writes and reads them.
 *
 * Formatters write into a caller's buffer and return it:
 *   exit codes      "exit:signal"                          "1:0", "0:9"
 *   durations       [D-]HH:MM:SS                           "1-02:03:04"
 *   CPU times       sacct's: MM:SS.mmm under an hour when there is a
 *                   fraction, else [D-]HH:MM:SS            "00:01.250"
 *   sizes           scaled up by 1024 while no precision is lost (a half
 *                   counts as exact), two decimals then    "1180K", "2.50G"
 *                   or in one unit (sacct --units=M)       "1.15M"
 *   times           YYYY-MM-DDTHH:MM:SS local, or a strftime format
 *                   (SLURM_TIME_FORMAT); "Unknown" for 0
 * Parsers take what sacct's options take: -S/-E times (in the past, as
 * sacct reads them) and -s state names or codes. Pure functions: the
 * only state read is the local time zone.
 */
#ifndef ARBOR_CLI_ACCT_TEXT_H
#define ARBOR_CLI_ACCT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "error.h"

/* Units of acct_text_size's input. */
enum acct_unit {
    ACCT_UNIT_NONE,
    ACCT_UNIT_K,
    ACCT_UNIT_M,
};

char *acct_text_exit (int32_t exit_code, int32_t signal, char *buf, size_t len);
char *acct_text_duration (uint64_t secs, char *buf, size_t len);
char *acct_text_cpu (uint64_t usec, char *buf, size_t len);
char *acct_text_size (uint64_t n, enum acct_unit unit, char *buf, size_t len);
/* sacct --units: n (in 'unit') in unit 'to', one of "KMGTP" (any
 * case), whole or with two decimals: 1180K as M is "1.15M"; 0 is "0".
 * 'to' 0: as acct_text_size. */
char *acct_text_size_as (uint64_t n, enum acct_unit unit, char to, char *buf,
                         size_t len);
/* Is c a unit --units takes (K, M, G, T, P, any case)? */
bool acct_text_unit_valid (char c);
/* fmt NULL: YYYY-MM-DDTHH:MM:SS. */
char *acct_text_time (uint64_t t, const char *fmt, char *buf, size_t len);

/* The strftime format SLURM_TIME_FORMAT asks for, or NULL for the
 * standard one ("standard", "relative" (not supported: standard), unset,
 * or a value without a '%'). Borrowed from the environment. */
const char *acct_text_time_format (void);

/* A -S/-E time: YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY][-HH:MM[:SS]] (also
 * with dots), HH:MM[:SS], now[{+|-}N[seconds|minutes|hours|days|weeks]],
 * today, tomorrow, midnight, noon, elevenses, fika, teatime. Clock times
 * and named hours are the last such moment (today's, or yesterday's if
 * it is still to come); a month and day without a year is the last such
 * day. 0 with *out, or -1 with errno EINVAL and err. */
int acct_text_parse_time (const char *s, time_t now, time_t *out,
                          arbor_error_t *err);

/* A -s word: a state's full name or sacct's code for it (any case), as
 * the full name ("cd" -> "COMPLETED"); NULL if it names no state. */
const char *acct_text_state (const char *word);

#endif
