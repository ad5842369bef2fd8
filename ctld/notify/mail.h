/* mail.h - job mail: what --mail-type asks for, sent through MailProg.
 *
 * A job carries a MAIL_* mask (common/spec/mailtype.h) and where its mail
 * goes (--mail-user; by default its owner's name, "@MailDomain" added
 * when that is set). The job's life calls the hooks below, one line each
 * where it happens: job_start (BEGIN), job_end (END or FAIL), job_requeue
 * (REQUEUE), the scheduler finding a dependency that can never be
 * satisfied (INVALID_DEPEND), and the 1 s timer (TIME_LIMIT_50/80/90 and
 * TIME_LIMIT, once each per run: the mask of those sent is kept with the
 * job and persisted, so that a restarted controller does not send them
 * again).
 *
 * As Slurm does, a job that ends COMPLETED or CANCELLED gets END, any
 * other end FAIL (END when only END was asked for); a run that ends to
 * be requeued gets neither. Array tasks mail one by one only with
 * ARRAY_TASKS; otherwise BEGIN comes for the first task that starts and
 * END/FAIL once, as the array's summary, when its last task ends.
 *
 * MailProg (default /bin/mail) is run as "MailProg -s SUBJECT USER", as
 * the controller's own user (SlurmUser's role), with the job's details
 * in its environment (mail_text.h), never from a shell, in the
 * background (spawn.h): at most MAIL_MAX_RUNNING at once, the others
 * queued (at most MAIL_MAX_QUEUED; more are dropped, and logged). A
 * MailProg that is missing, fails or hangs (killed after
 * MAIL_PROG_TIMEOUT) is logged as an error: it never affects the job.
 */
#ifndef ARBOR_CTLD_MAIL_H
#define ARBOR_CTLD_MAIL_H

#include <stdint.h>
#include <time.h>

#include "error.h"
#include "proto.h"

struct ctld;
struct job;
struct mailer;

#define MAIL_DEFAULT_PROG "/bin/mail"
#define MAIL_PROG_TIMEOUT 120 /* s */
#define MAIL_MAX_RUNNING 16
#define MAIL_MAX_QUEUED 4096
#define MAIL_USER_MAX 256 /* bytes of a --mail-user */

struct mailer *mailer_create (void);
/* Drops what is queued (logged); running MailProgs are left to finish. */
void mailer_destroy (struct mailer *m);

/* j's mail from its request: the mask checked, the default recipient
 * filled in; a --mail-user that is too long, holds blanks or control
 * characters, or starts with '-' (MailProg would take it for an option)
 * is refused. 0, or -1 with errno EINVAL / ENOMEM and err. */
int mail_job_init (const struct ctld *ctx, struct job *j,
                   const struct msg_job_alloc *req, arbor_error_t *err);
/* The restore: j's mail as recorded (JOB_REC). 0, or -1 with errno
 * ENOMEM. */
int mail_job_restore (struct job *j, uint32_t type, const char *user,
                      uint32_t sent);

/* The hooks (see above). Each does nothing unless j asked for it. */
void mail_job_began (struct ctld *ctx, struct job *j);
void mail_job_ended (struct ctld *ctx, struct job *j);
void mail_job_requeued (struct ctld *ctx, struct job *j);
void mail_job_invalid_depend (struct ctld *ctx, struct job *j);
/* Every second, before the time limits are enforced (term_tick), so
 * that a job reaching its limit hears it before it ends. */
void mail_tick (struct ctld *ctx, time_t now);

#endif
