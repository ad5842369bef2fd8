/* mail_text.h - what a job mail says: its subject, in Slurm's words, and
 * the environment MailProg gets. Pure (no controller state beyond the
 * job records given), so that every subject can be unit tested.
 *
 * Subjects, one per event (N the job id, T an array task, A its array):
 *   Slurm Job_id=N Name=NAME Began, Queued time HH:MM:SS
 *   Slurm Job_id=N Name=NAME Ended, Run time HH:MM:SS, COMPLETED, ExitCode 0
 *   Slurm Job_id=N Name=NAME Failed, Run time HH:MM:SS, FAILED, ExitCode 3
 *   Slurm Job_id=N Name=NAME Requeued, Run time HH:MM:SS
 *   Slurm Job_id=N Name=NAME Reached 50% of time limit, Run time HH:MM:SS
 *   Slurm Job_id=N Name=NAME Reached time limit, Run time HH:MM:SS
 *   Slurm Job_id=N Name=NAME Invalid dependency
 *   Slurm Array Task Job_id=A_T (N) Name=NAME Began, Queued time ...
 *   Slurm Array Summary Job_id=A_* (A) Name=NAME Ended, COMPLETED,
 *       ExitCode [0-0]          (or "Mixed, ExitCode [0-3]")
 * A job ended by a signal has no ExitCode part (", CANCELLED" alone).
 * Times longer than a day read D-HH:MM:SS.
 */
#ifndef ARBOR_CTLD_MAIL_TEXT_H
#define ARBOR_CTLD_MAIL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "states.h"

struct job;

/* An array's tasks once all have ended: what its summary mail says. */
struct mail_summary {
    uint32_t array_job_id;
    enum job_state state; /* COMPLETED if all did, else the first other */
    int min_rc, max_rc;   /* over the tasks that exited */
    int max_signal;       /* highest signal that ended a task; 0 none */
};

/* "Began", "Ended", "Failed", "Requeued", "Invalid dependency",
 * "Reached 90% of time limit", ...: what SLURM_JOB_MAIL_TYPE says for
 * the one MAIL_* bit 'ev'; "unknown" for another value. */
const char *mail_event_word (uint32_t ev);

/* secs as "HH:MM:SS", or "D-HH:MM:SS" from a day up. Returns buf. */
const char *mail_hms (uint64_t secs, char *buf, size_t len);

/* What j ran for: until its end (ended) or 'now', without the time it
 * spent suspended. */
uint64_t mail_run_secs (const struct job *j, time_t now);

/* The subject for event 'ev' of j at 'now'; for an array summary, 'sum'
 * (else NULL). Written to buf; returns buf. */
const char *mail_subject (const struct job *j, uint32_t ev,
                          const struct mail_summary *sum, time_t now, char *buf,
                          size_t len);

/* MailProg's environment: SLURM_JOB_ID, _NAME, _USER, _UID, _GID,
 * _PARTITION (partition's name given), _ACCOUNT, _NODELIST, _WORK_DIR,
 * _STATE, _MAIL_TYPE (mail_event_word), SLURM_CLUSTER_NAME, the array's
 * SLURM_ARRAY_JOB_ID/TASK_ID, SLURM_JOB_QUEUED_TIME (Began) or
 * SLURM_JOB_RUN_TIME, SLURM_JOB_EXIT_CODE_MAX (Ended, Failed), and
 * PATH. NULL-terminated, free with env_strv_free; NULL with errno ENOMEM. */
char **mail_env (const struct job *j, uint32_t ev, const char *partition,
                 const char *cluster, time_t now);

#endif
