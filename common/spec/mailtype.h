/* mailtype.h - the job mail events of --mail-type, shared by both ends.
 *
 * The commands parse "--mail-type=BEGIN,END" into a mask that travels in
 * JOB_ALLOC; the controller decides from it which mails to send
 * (ctld/notify/mail.h) and names it back for "control show job" (MailType=).
 * The words, in any case, are Slurm's: NONE, BEGIN, END, FAIL, REQUEUE,
 * ALL (= INVALID_DEPEND, BEGIN, END, FAIL, REQUEUE, STAGE_OUT),
 * INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80,
 * TIME_LIMIT_50 and ARRAY_TASKS. Pure functions, no allocation.
 */
#ifndef ARBOR_COMMON_MAILTYPE_H
#define ARBOR_COMMON_MAILTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Mask bits. The values are part of the wire protocol: never renumbered. */
enum {
    MAIL_BEGIN = 1u << 0,
    MAIL_END = 1u << 1,
    MAIL_FAIL = 1u << 2,
    MAIL_REQUEUE = 1u << 3,
    MAIL_TIME100 = 1u << 4, /* TIME_LIMIT */
    MAIL_TIME90 = 1u << 5,
    MAIL_TIME80 = 1u << 6,
    MAIL_TIME50 = 1u << 7,
    MAIL_STAGE_OUT = 1u << 8, /* accepted; Arbor has no stage-out */
    MAIL_ARRAY_TASKS = 1u << 9,
    MAIL_INVALID_DEPEND = 1u << 10,
};
#define MAIL_ALL                                                            \
    (MAIL_INVALID_DEPEND | MAIL_BEGIN | MAIL_END | MAIL_FAIL | MAIL_REQUEUE \
     | MAIL_STAGE_OUT)
#define MAIL_KNOWN ((1u << 11) - 1) /* every defined bit */

/* Parse a comma-separated list of words into *mask ("NONE" alone is 0;
 * NONE with other words adds nothing). 0, or -1 with errno EINVAL and
 * err naming the word and the valid ones. */
int mailtype_parse (const char *s, uint32_t *mask, arbor_error_t *err);

/* The mask as Slurm prints it: "NONE", or its words comma-separated in
 * Slurm's order (ARRAY_TASKS,INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,
 * STAGE_OUT,TIME_LIMIT_50,TIME_LIMIT_80,TIME_LIMIT_90,TIME_LIMIT). Written
 * to buf (MAILTYPE_STR_LEN bytes are always enough); returns buf. */
#define MAILTYPE_STR_LEN 160
const char *mailtype_str (uint32_t mask, char *buf, size_t len);

#endif
