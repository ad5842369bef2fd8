/* mail_text.c - job mail subjects and MailProg's environment. See
 * mail_text.h for the forms. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "env.h"
#include "job/job.h"
#include "notify/mail_text.h"
#include "mailtype.h"

const char *mail_event_word (uint32_t ev)
{
    switch (ev) {
    case MAIL_INVALID_DEPEND: return "Invalid dependency";
    case MAIL_BEGIN: return "Began";
    case MAIL_END: return "Ended";
    case MAIL_FAIL: return "Failed";
    case MAIL_REQUEUE: return "Requeued";
    case MAIL_STAGE_OUT: return "StageOut/Teardown";
    case MAIL_TIME100: return "Reached time limit";
    case MAIL_TIME90: return "Reached 90% of time limit";
    case MAIL_TIME80: return "Reached 80% of time limit";
    case MAIL_TIME50: return "Reached 50% of time limit";
    default: return "unknown";
    }
}

const char *mail_hms (uint64_t secs, char *buf, size_t len)
{
    uint64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60;

    if (d)
        snprintf (buf, len, "%llu-%02llu:%02llu:%02llu", (unsigned long long)d,
                  (unsigned long long)h, (unsigned long long)m,
                  (unsigned long long)(secs % 60));
    else
        snprintf (buf, len, "%02llu:%02llu:%02llu", (unsigned long long)h,
                  (unsigned long long)m, (unsigned long long)(secs % 60));
    return buf;
}

uint64_t mail_run_secs (const struct job *j, time_t now)
{
    time_t end = j->end_time ? j->end_time : now;
    uint64_t off = j->suspended_secs;

    if (!j->start_time || end < j->start_time)
        return 0;
    if (j->suspended && j->suspend_time && j->suspend_time < end)
        off += (uint64_t)(end - j->suspend_time);
    return (uint64_t)(end - j->start_time) > off
               ? (uint64_t)(end - j->start_time) - off
               : 0;
}

/* ", Queued time T" or ", Run time T", as the event has one. */
static void mail_time_part (const struct job *j, uint32_t ev, time_t now,
                            char *buf, size_t len)
{
    char t[32];

    buf[0] = '\0';
    if (ev == MAIL_BEGIN && j->start_time && j->submit_time
        && j->start_time >= j->submit_time)
        snprintf (buf, len, ", Queued time %s",
                  mail_hms ((uint64_t)(j->start_time - j->submit_time), t,
                            sizeof (t)));
    else if ((ev
              & (MAIL_END | MAIL_FAIL | MAIL_REQUEUE | MAIL_TIME100
                 | MAIL_TIME90 | MAIL_TIME80 | MAIL_TIME50))
             && j->start_time)
        snprintf (buf, len, ", Run time %s",
                  mail_hms (mail_run_secs (j, now), t, sizeof (t)));
}

/* ", STATE, ExitCode N" for an end (no ExitCode after a signal). */
static void mail_end_part (const struct job *j, uint32_t ev,
                           const struct mail_summary *sum, char *buf,
                           size_t len)
{
    buf[0] = '\0';
    if (!(ev & (MAIL_END | MAIL_FAIL)))
        return;
    if (sum && sum->max_signal)
        snprintf (buf, len, ", Mixed, MaxSignal [%d]", sum->max_signal);
    else if (sum)
        snprintf (buf, len, ", %s, ExitCode [%d-%d]",
                  sum->min_rc == 0 && sum->max_rc > 0
                      ? "Mixed"
                      : job_state_str (sum->state),
                  sum->min_rc, sum->max_rc);
    else if (j->exit_signal)
        snprintf (buf, len, ", %s", job_state_str (j->state));
    else
        snprintf (buf, len, ", %s, ExitCode %d", job_state_str (j->state),
                  j->exit_rc);
}

const char *mail_subject (const struct job *j, uint32_t ev,
                          const struct mail_summary *sum, time_t now, char *buf,
                          size_t len)
{
    char tpart[64], epart[96];
    const char *name = j->name ? j->name : "";

    mail_time_part (j, ev, now, tpart, sizeof (tpart));
    mail_end_part (j, ev, sum, epart, sizeof (epart));
    if (sum)
        snprintf (buf, len, "Slurm Array Summary Job_id=%u_* (%u) Name=%s %s%s",
                  sum->array_job_id, sum->array_job_id, name,
                  mail_event_word (ev), epart);
    else if (j->array_job_id)
        snprintf (buf, len, "Slurm Array Task Job_id=%u_%u (%u) Name=%s %s%s%s",
                  j->array_job_id, j->array_task_id, j->id, name,
                  mail_event_word (ev), tpart, epart);
    else
        snprintf (buf, len, "Slurm Job_id=%u Name=%s %s%s%s", j->id, name,
                  mail_event_word (ev), tpart, epart);
    return buf;
}

static int mail_env_times (struct env *e, const struct job *j, uint32_t ev,
                           time_t now)
{
    char t[32];
    int rc = 0;

    if (ev == MAIL_BEGIN && j->start_time && j->start_time >= j->submit_time)
        rc |= env_set (e, "SLURM_JOB_QUEUED_TIME",
                       mail_hms ((uint64_t)(j->start_time - j->submit_time), t,
                                 sizeof (t)));
    else if (ev != MAIL_BEGIN && ev != MAIL_INVALID_DEPEND && j->start_time)
        rc |= env_set (e, "SLURM_JOB_RUN_TIME",
                       mail_hms (mail_run_secs (j, now), t, sizeof (t)));
    if (ev & (MAIL_END | MAIL_FAIL))
        rc |= env_setf (e, "SLURM_JOB_EXIT_CODE_MAX", "%d",
                        j->exit_signal ? 0 : j->exit_rc);
    return rc;
}

char **mail_env (const struct job *j, uint32_t ev, const char *partition,
                 const char *cluster, time_t now)
{
    struct env *e = env_create (NULL, 0);
    int rc = 0;

    if (!e)
        return NULL;
    rc |= env_setf (e, "SLURM_JOB_ID", "%u", j->id);
    rc |= env_set (e, "SLURM_JOB_NAME", j->name ? j->name : "");
    rc |= env_set (e, "SLURM_JOB_USER", j->user ? j->user : "");
    rc |= env_setf (e, "SLURM_JOB_UID", "%lu", (unsigned long)j->uid);
    rc |= env_setf (e, "SLURM_JOB_GID", "%lu", (unsigned long)j->gid);
    rc |= env_set (e, "SLURM_JOB_PARTITION", partition ? partition : "");
    rc |= env_set (e, "SLURM_JOB_ACCOUNT", j->account ? j->account : "");
    rc |= env_set (e, "SLURM_JOB_NODELIST", j->nodelist ? j->nodelist : "");
    rc |= env_set (e, "SLURM_JOB_WORK_DIR", j->cwd ? j->cwd : "");
    rc |= env_set (e, "SLURM_JOB_STATE", job_state_str (j->state));
    rc |= env_set (e, "SLURM_JOB_MAIL_TYPE", mail_event_word (ev));
    rc |= env_set (e, "SLURM_CLUSTER_NAME", cluster ? cluster : "");
    if (j->array_job_id) {
        rc |= env_setf (e, "SLURM_ARRAY_JOB_ID", "%u", j->array_job_id);
        rc |= env_setf (e, "SLURM_ARRAY_TASK_ID", "%u", j->array_task_id);
    }
    rc |= mail_env_times (e, j, ev, now);
    rc |= env_set (e, "PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    if (rc < 0) {
        env_destroy (e);
        errno = ENOMEM;
        return NULL;
    }
    return env_take (e);
}
