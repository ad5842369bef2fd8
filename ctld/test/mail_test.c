/* mail_test.c - job mail (mail.h, mail_text.h): the subjects a user
 * sees, in Slurm's words, for each event; MailProg's environment; the
 * recipient by default (MailDomain) and the --mail-user values refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctld.h"
#include "env.h"
#include "fixture.h"
#include "job/job.h"
#include "notify/mail.h"
#include "notify/mail_text.h"
#include "mailtype.h"

static const char conf_text[] =
    "ClusterName=t\n"
    "NodedPort=1\n"
    "MailDomain=example.org\n"
    "NodeName=n[1-2] NodeAddr=127.0.0.[1-2] CPUs=4 RealMemory=1000\n"
    "PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=60\n";

/* A job that waited 65 s and ran 3725 s (1:02:05). */
static struct job job_at (enum job_state st, int rc, int sig)
{
    return (struct job){ .id = 42,
                         .name = "sim",
                         .user = "alice",
                         .state = st,
                         .exit_rc = rc,
                         .exit_signal = sig,
                         .submit_time = 1000,
                         .start_time = 1065,
                         .end_time = 1065 + 3725 };
}

static void check (const struct job *j, uint32_t ev,
                   const struct mail_summary *s, const char *want)
{
    char buf[512];

    assert_string_equal (mail_subject (j, ev, s, 5000, buf, sizeof (buf)),
                         want);
}

static void test_subjects (void **state)
{
    struct job j = job_at (JOB_COMPLETED, 0, 0);

    check (&j, MAIL_BEGIN, NULL,
           "Slurm Job_id=42 Name=sim Began, Queued time 00:01:05");
    check (&j, MAIL_END, NULL,
           "Slurm Job_id=42 Name=sim Ended, Run time 01:02:05, COMPLETED, "
           "ExitCode 0");
    j = job_at (JOB_FAILED, 3, 0);
    check (&j, MAIL_FAIL, NULL,
           "Slurm Job_id=42 Name=sim Failed, Run time 01:02:05, FAILED, "
           "ExitCode 3");
    j = job_at (JOB_CANCELLED, 143, 15); /* a signal: no ExitCode */
    check (&j, MAIL_END, NULL,
           "Slurm Job_id=42 Name=sim Ended, Run time 01:02:05, CANCELLED");
    j = job_at (JOB_NODE_FAIL, 0, 0);
    check (&j, MAIL_REQUEUE, NULL,
           "Slurm Job_id=42 Name=sim Requeued, Run time 01:02:05");
    check (&j, MAIL_INVALID_DEPEND, NULL,
           "Slurm Job_id=42 Name=sim Invalid dependency");
    j = job_at (JOB_RUNNING, 0, 0);
    j.end_time = 0; /* still running: up to 'now' (5000) */
    check (&j, MAIL_TIME90, NULL,
           "Slurm Job_id=42 Name=sim Reached 90% of time limit, Run time "
           "01:05:35");
    check (&j, MAIL_TIME100, NULL,
           "Slurm Job_id=42 Name=sim Reached time limit, Run time 01:05:35");
    j.suspended_secs = 35; /* suspended time does not count */
    check (&j, MAIL_TIME50, NULL,
           "Slurm Job_id=42 Name=sim Reached 50% of time limit, Run time "
           "01:05:00");
}

static void test_arrays (void **state)
{
    struct job j = job_at (JOB_COMPLETED, 0, 0);
    struct mail_summary s = { .array_job_id = 40, .state = JOB_COMPLETED };
    char buf[32];

    j.array_job_id = 40;
    j.array_task_id = 2;
    check (&j, MAIL_BEGIN, NULL,
           "Slurm Array Task Job_id=40_2 (42) Name=sim Began, Queued time "
           "00:01:05");
    check (&j, MAIL_END, &s,
           "Slurm Array Summary Job_id=40_* (40) Name=sim Ended, COMPLETED, "
           "ExitCode [0-0]");
    s.state = JOB_FAILED;
    s.max_rc = 4;
    check (&j, MAIL_FAIL, &s,
           "Slurm Array Summary Job_id=40_* (40) Name=sim Failed, Mixed, "
           "ExitCode [0-4]");
    s.max_signal = 9;
    check (&j, MAIL_FAIL, &s,
           "Slurm Array Summary Job_id=40_* (40) Name=sim Failed, Mixed, "
           "MaxSignal [9]");
    assert_string_equal (mail_hms (90061, buf, sizeof (buf)), "1-01:01:01");
}

static const char *env_get_in (char **env, const char *key)
{
    size_t n = strlen (key);

    for (size_t i = 0; env[i]; i++)
        if (!strncmp (env[i], key, n) && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

static void test_env (void **state)
{
    struct job j = job_at (JOB_FAILED, 3, 0);
    char **env;

    j.nodelist = "n[1-2]";
    j.cwd = "/home/alice";
    env = mail_env (&j, MAIL_FAIL, "debug", "t", 5000);
    assert_non_null (env);
    assert_string_equal (env_get_in (env, "SLURM_JOB_ID"), "42");
    assert_string_equal (env_get_in (env, "SLURM_JOB_MAIL_TYPE"), "Failed");
    assert_string_equal (env_get_in (env, "SLURM_JOB_STATE"), "FAILED");
    assert_string_equal (env_get_in (env, "SLURM_JOB_RUN_TIME"), "01:02:05");
    assert_string_equal (env_get_in (env, "SLURM_JOB_EXIT_CODE_MAX"), "3");
    assert_string_equal (env_get_in (env, "SLURM_JOB_PARTITION"), "debug");
    assert_string_equal (env_get_in (env, "SLURM_JOB_NODELIST"), "n[1-2]");
    assert_null (env_get_in (env, "SLURM_ARRAY_JOB_ID"));
    env_strv_free (env);
}

static void test_recipient (void **state)
{
    struct outbox out = { 0 };
    struct ctld *ctx = fixture_ctld (conf_text, &out);
    struct msg_job_alloc r = { .mail_type = MAIL_END, .mail_user = "" };
    struct job j = { .user = "alice" };
    arbor_error_t err;

    assert_non_null (ctx);
    assert_int_equal (mail_job_init (ctx, &j, &r, &err), 0);
    assert_string_equal (j.mail_user, "alice@example.org");
    free (j.mail_user);
    j.mail_user = NULL;
    r.mail_user = "bob@site.org";
    assert_int_equal (mail_job_init (ctx, &j, &r, &err), 0);
    assert_string_equal (j.mail_user, "bob@site.org");
    free (j.mail_user);
    j.mail_user = NULL;
    /* no mail asked, no user given: nowhere */
    r.mail_type = 0;
    r.mail_user = "";
    assert_int_equal (mail_job_init (ctx, &j, &r, &err), 0);
    assert_null (j.mail_user);
    /* what MailProg could take for an option, or split: refused */
    const char *bad[] = { "-s x", "-oQ/tmp/x", "a b", "a\nb" };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        r.mail_type = MAIL_END;
        r.mail_user = (char *)bad[i];
        errno = 0;
        assert_int_equal (mail_job_init (ctx, &j, &r, &err), -1);
        assert_int_equal (errno, EINVAL);
        assert_null (j.mail_user);
    }
    r.mail_user = "";
    r.mail_type = 1u << 30; /* not a MAIL_* bit */
    assert_int_equal (mail_job_init (ctx, &j, &r, &err), -1);
    fixture_free (ctx);
    outbox_clear (&out);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_subjects),
        cmocka_unit_test (test_arrays),
        cmocka_unit_test (test_env),
        cmocka_unit_test (test_recipient),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
