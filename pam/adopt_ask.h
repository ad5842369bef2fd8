/* adopt_ask.h - pam_arbor_adopt's questions to the node's daemons
 * (adopt_ask.c): blocking, over unix sockets, one exchange per question,
 * each bounded by the module's timeout= so that a login never hangs.
 */
#ifndef ARBOR_PAM_ADOPT_ASK_H
#define ARBOR_PAM_ADOPT_ASK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* The user's jobs on this node, from its noded's local socket
 * <spool>/noded.sock: job ids newest first and whether each has its
 * extern step here (caller frees both). -1 with err (noded down, ...). */
int adopt_ask_jobs (const char *spool, uid_t uid, int timeout_ms,
                    uint32_t **jobs, uint32_t **externs, size_t *count,
                    arbor_error_t *err);
/* Ask job's extern stepd (<spool>/stepd.<job>.<extern>.sock) to take
 * 'pid' into its container. -1 with err. */
int adopt_ask_stepd (const char *spool, uint32_t job, pid_t pid, int timeout_ms,
                     arbor_error_t *err);

#endif
