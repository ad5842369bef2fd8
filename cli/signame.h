/* signame.h - signal names as scancel and srun take them.
 *
 * "USR1", "SIGUSR1", "usr1" and "10" all name SIGUSR1. Only the classic
 * named signals (HUP ... SYS) and numbers 1..64 are accepted; 0 is not a
 * signal here (JOB_CANCEL uses 0 for "cancel").
 */
#ifndef ARBOR_CLI_SIGNAME_H
#define ARBOR_CLI_SIGNAME_H

#include <stddef.h>
#include <stdint.h>

#define SIGNAME_MAX 64

/* 0 and *sig set, or -1 with errno EINVAL. */
int signame_parse (const char *s, int *sig);

/* "USR1" for SIGUSR1, else the number as text, into buf. Returns buf. */
const char *signame_name (int sig, char *buf, size_t len);

/* --signal=[R:]SIG[@TIME]: the warning signal and how many seconds before
 * the time limit (default 60, at most 65535). A "B:" prefix (batch shell
 * only) is accepted when allow_batch, and *batch then set. 0 or -1 with
 * errno EINVAL. */
int signame_parse_warning (const char *spec, int allow_batch, int *sig,
                           uint32_t *secs, int *batch);

#endif
