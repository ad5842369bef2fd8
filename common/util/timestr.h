/* timestr.h - Slurm's time limit formats.
 *
 * "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", "INFINITE"/"UNLIMITED".
 * Limits are kept in minutes (seconds round up), as Slurm does.
 */
#ifndef ARBOR_TIMESTR_H
#define ARBOR_TIMESTR_H

#include <stdint.h>
#include <stddef.h>
#include "error.h"

#define TIME_INFINITE UINT32_MAX

/* Returns 0 and sets *minutes, or -1 with errno EINVAL and err. */
int timestr_parse (const char *s, uint32_t *minutes, arbor_error_t *err);
/* Formats minutes as "D-HH:MM:SS" / "HH:MM:SS" / "UNLIMITED" into buf. */
char *timestr_format (uint32_t minutes, char *buf, size_t len);

#endif
