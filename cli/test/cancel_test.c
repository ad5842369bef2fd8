/* cancel_test.c - what arbor cancel and --signal parse: signal names,
 * --signal=[R:]SIG[@TIME], JOBID[_TASK][.STEP] ids, job states and
 * scancel's filters, a task found in a listing; and arbor queue -s's
 * rows from short reply lists. */
/* cmd_queue.c belongs to the arbor executable, not to a library: its
 * step rows are tested by compiling it in here (its static functions
 * become this file's). First, for its _GNU_SOURCE. */
#include "cmd_queue.c"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jobsel.h"
#include "jobview_make.h"
#include "proto.h"
#include "signame.h"

static void test_signal_names (void **state)
{
    int sig = 0;
    char buf[16];

    assert_int_equal (signame_parse ("USR1", &sig), 0);
    assert_int_equal (sig, SIGUSR1);
    assert_int_equal (signame_parse ("SIGUSR1", &sig), 0);
    assert_int_equal (sig, SIGUSR1);
    assert_int_equal (signame_parse ("sigusr2", &sig), 0);
    assert_int_equal (sig, SIGUSR2);
    assert_int_equal (signame_parse ("KILL", &sig), 0);
    assert_int_equal (sig, SIGKILL);
    assert_int_equal (signame_parse ("term", &sig), 0);
    assert_int_equal (sig, SIGTERM);
    assert_int_equal (signame_parse ("INT", &sig), 0);
    assert_int_equal (sig, SIGINT);
    assert_int_equal (signame_parse ("HUP", &sig), 0);
    assert_int_equal (sig, SIGHUP);
    assert_int_equal (signame_parse ("10", &sig), 0);
    assert_int_equal (sig, 10);
    assert_int_equal (signame_parse ("64", &sig), 0);
    assert_int_equal (sig, 64);

    assert_int_equal (signame_parse ("0", &sig), -1);
    assert_int_equal (errno, EINVAL);
    assert_int_equal (signame_parse ("65", &sig), -1);
    assert_int_equal (signame_parse ("-9", &sig), -1);
    assert_int_equal (signame_parse ("9x", &sig), -1);
    assert_int_equal (signame_parse ("SIG", &sig), -1);
    assert_int_equal (signame_parse ("USR3", &sig), -1);
    assert_int_equal (signame_parse ("", &sig), -1);
    assert_int_equal (signame_parse (NULL, &sig), -1);

    assert_string_equal (signame_name (SIGUSR1, buf, sizeof (buf)), "USR1");
    assert_string_equal (signame_name (SIGKILL, buf, sizeof (buf)), "KILL");
    assert_string_equal (signame_name (40, buf, sizeof (buf)), "40");
}

static void test_warning_signal (void **state)
{
    int sig, batch;
    uint32_t secs;

    assert_int_equal (signame_parse_warning ("USR1@30", 0, &sig, &secs, &batch),
                      0);
    assert_int_equal (sig, SIGUSR1);
    assert_int_equal (secs, 30);
    assert_int_equal (signame_parse_warning ("TERM", 0, &sig, &secs, &batch),
                      0);
    assert_int_equal (sig, SIGTERM);
    assert_int_equal (secs, 60); /* default */
    assert_int_equal (signame_parse_warning ("R:10@5", 0, &sig, &secs, &batch),
                      0);
    assert_int_equal (sig, 10);
    assert_int_equal (secs, 5);
    assert_int_equal (batch, 0);
    assert_int_equal (
        signame_parse_warning ("B:USR2@0", 1, &sig, &secs, &batch), 0);
    assert_int_equal (batch, 1);
    assert_int_equal (secs, 0);

    assert_int_equal (signame_parse_warning ("B:USR2", 0, &sig, &secs, &batch),
                      -1);
    assert_int_equal (signame_parse_warning ("USR1@", 0, &sig, &secs, &batch),
                      -1);
    assert_int_equal (signame_parse_warning ("USR1@x", 0, &sig, &secs, &batch),
                      -1);
    assert_int_equal (
        signame_parse_warning ("USR1@70000", 0, &sig, &secs, &batch), -1);
    assert_int_equal (signame_parse_warning ("@10", 0, &sig, &secs, &batch),
                      -1);
    assert_int_equal (signame_parse_warning ("NOPE@10", 0, &sig, &secs, &batch),
                      -1);
}

static void test_job_ids (void **state)
{
    uint32_t job, task, step;
    char buf[48];

    assert_int_equal (jobsel_parse_id ("5", &job, &task, &step), 0);
    assert_int_equal (job, 5);
    assert_int_equal (task, JOBSEL_NO_TASK);
    assert_int_equal (step, STEP_ID_ALL);
    assert_int_equal (jobsel_parse_id ("5.0", &job, &task, &step), 0);
    assert_int_equal (step, 0);
    assert_int_equal (task, JOBSEL_NO_TASK);
    assert_int_equal (jobsel_parse_id ("123.17", &job, &task, &step), 0);
    assert_int_equal (job, 123);
    assert_int_equal (step, 17);
    assert_int_equal (jobsel_parse_id ("7.batch", &job, &task, &step), 0);
    assert_int_equal (step, STEP_ID_BATCH);
    assert_int_equal (jobsel_parse_id ("7.extern", &job, &task, &step), 0);
    assert_int_equal (step, STEP_ID_EXTERN);

    const char *bad[] = { "5.x",   "x",  "",   "0",           "5.",  ".5",
                          "5.1.2", "-5", "5 ", "99999999999", "5.-1" };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        assert_int_equal (jobsel_parse_id (bad[i], &job, &task, &step), -1);
        assert_int_equal (errno, EINVAL);
    }
    assert_int_equal (jobsel_parse_id (NULL, &job, &task, &step), -1);

    assert_string_equal (jobsel_id_str (5, STEP_ID_ALL, buf, sizeof (buf)),
                         "5");
    assert_string_equal (jobsel_id_str (5, 2, buf, sizeof (buf)), "5.2");
    assert_string_equal (jobsel_id_str (5, STEP_ID_BATCH, buf, sizeof (buf)),
                         "5.batch");
}

/* "ID_TASK": one task of an array, alone or with a step. */
static void test_task_ids (void **state)
{
    uint32_t job, task, step;
    char buf[48];

    assert_int_equal (jobsel_parse_id ("5_3", &job, &task, &step), 0);
    assert_int_equal (job, 5);
    assert_int_equal (task, 3);
    assert_int_equal (step, STEP_ID_ALL);
    assert_int_equal (jobsel_parse_id ("12_0", &job, &task, &step), 0);
    assert_int_equal (job, 12);
    assert_int_equal (task, 0);
    assert_int_equal (jobsel_parse_id ("12_4000000.2", &job, &task, &step), 0);
    assert_int_equal (task, 4000000);
    assert_int_equal (step, 2);
    assert_int_equal (jobsel_parse_id ("9_1.batch", &job, &task, &step), 0);
    assert_int_equal (job, 9);
    assert_int_equal (task, 1);
    assert_int_equal (step, STEP_ID_BATCH);

    const char *bad[] = { "5_",    "_3",   "5_x",   "5_-1",
                          "5_3_4", "5__3", "5_3.",  "5._3",
                          "0_3",   "5_3 ", "5_3.x", "5_99999999999" };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        job = task = step = 77;
        errno = 0;
        assert_int_equal (jobsel_parse_id (bad[i], &job, &task, &step), -1);
        assert_int_equal (errno, EINVAL);
        assert_int_equal (job, 77); /* untouched on failure */
        assert_int_equal (task, 77);
        assert_int_equal (step, 77);
    }

    assert_string_equal (jobsel_task_str (5, 3, STEP_ID_ALL, buf, sizeof (buf)),
                         "5_3");
    assert_string_equal (jobsel_task_str (5, 3, 2, buf, sizeof (buf)), "5_3.2");
    assert_string_equal (
        jobsel_task_str (5, 0, STEP_ID_BATCH, buf, sizeof (buf)), "5_0.batch");
    assert_string_equal (
        jobsel_task_str (5, JOBSEL_NO_TASK, 1, buf, sizeof (buf)), "5.1");
}

/* Finding a task in a listing of job views, as an older controller's
 * shorter lists make them (jobview_from_lists): what a list did not say
 * is 0 or unset. */
static void test_list_lookup (void **state)
{
    const uint32_t ids[] = { 40, 41, 42, 50 };
    const uint32_t arrays[] = { 40, 40, 40, 0 }; /* 50: not said */
    const uint32_t tasks[] = { 0, 1, 0, 0 };     /* 42's: not said */
    const char *const states[] = { "RUNNING", "PENDING", "CANCELLED", NULL };
    struct job_list l = { 0 };

    for (int k = 0; k < 4; k++) {
        struct job_view v = { 0 };
        v.rec.id = ids[k];
        v.rec.array_job_id = arrays[k];
        v.rec.array_task_id = tasks[k];
        jvm_set (&v.rec.state_shown, states[k]);
        jvm_push (&l, &v);
    }
    assert_int_equal (jobsel_list_task (&l, 40, 0), 0);
    assert_int_equal (jobsel_list_task (&l, 40, 1), 1);
    assert_int_equal (jobsel_list_task (&l, 40, 2), -1);
    assert_int_equal (jobsel_list_task (&l, 50, 0), -1);
    assert_int_equal (l.jobs[2].rec.array_job_id, 40);
    assert_int_equal (l.jobs[3].rec.array_job_id, 0);
    assert_true (jobsel_view_active (&l.jobs[0]));
    assert_true (jobsel_view_active (&l.jobs[1]));
    assert_false (jobsel_view_active (&l.jobs[2]));
    assert_false (jobsel_view_active (&l.jobs[3])); /* no state: not active */
    job_list_clear (&l);
    assert_int_equal (jobsel_list_task (&l, 40, 0), -1);
}

/* Step row i of 'r', as arbor queue -s prints it; caller frees. */
static char *step_row (const struct msg_step_info_reply *r, uint32_t i)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);

    assert_non_null (f);
    queue_step_row (f, r, i);
    assert_int_equal (fclose (f), 0);
    return buf;
}

/* arbor queue -s and a STEP_INFO_REPLY whose lists are shorter than
 * job_ids (an older controller): nothing is read past any list (the
 * missing ones are NULL here, so a read would crash). */
static void test_queue_short_steps (void **state)
{
    uint32_t ids[] = { 7, 9 }, steps[] = { 2 }, arrays[] = { 7, 7 };
    uint32_t tasks[] = { 3 };
    char *names[] = { "sim" };
    struct msg_step_info_reply r = {
        .job_ids = ids,
        .job_ids_count = 2,
        .step_ids = steps,
        .step_ids_count = 1,
        .names = names,
        .names_count = 1,
    };
    char *row;

    row = step_row (&r, 0); /* no array lists, no start times */
    assert_non_null (strstr (row, "7.2 "));
    assert_non_null (strstr (row, " sim "));
    assert_non_null (strstr (row, " 0:00 "));
    free (row);
    row = step_row (&r, 1); /* no step id either: the job's id alone */
    assert_non_null (strstr (row, "              9 "));
    free (row);

    r.array_job_ids = arrays;
    r.array_job_ids_count = 2;
    r.array_task_ids = tasks;
    r.array_task_ids_count = 1;
    row = step_row (&r, 0);
    assert_non_null (strstr (row, "7_3.2 "));
    free (row);
    row = step_row (&r, 1); /* an array id, but no task id: the job id */
    assert_non_null (strstr (row, "              9 "));
    assert_null (strstr (row, "7_"));
    free (row);
}

static void test_states (void **state)
{
    assert_string_equal (jobsel_state_code ("RUNNING"), "R");
    assert_string_equal (jobsel_state_code ("COMPLETING"), "CG");
    assert_string_equal (jobsel_state_code ("CANCELLED"), "CA");
    assert_string_equal (jobsel_state_code ("TIMEOUT"), "TO");
    assert_string_equal (jobsel_state_code ("OUT_OF_MEMORY"), "OOM");
    assert_string_equal (jobsel_state_code ("NODE_FAIL"), "NF");
    assert_string_equal (jobsel_state_code ("BOGUS"), "??");
    assert_true (jobsel_state_valid ("pd"));
    assert_true (jobsel_state_valid ("Running"));
    assert_true (jobsel_state_valid ("all"));
    assert_false (jobsel_state_valid ("RUN"));
    assert_true (jobsel_state_in ("PD,R", "RUNNING"));
    assert_true (jobsel_state_in ("cancelled", "CANCELLED"));
    assert_true (jobsel_state_in ("all", "TIMEOUT"));
    assert_false (jobsel_state_in ("PD,R", "COMPLETED"));
    assert_true (jobsel_state_active ("PENDING"));
    assert_false (jobsel_state_active ("COMPLETING"));
}

static void test_filters (void **state)
{
    struct jobsel_filter none = { 0 };
    struct jobsel_filter user = { .user = "alice,bob" };
    struct jobsel_filter both = { .user = "alice",
                                  .name = "sim",
                                  .states = "PD" };
    struct jobsel_filter part = { .partition = "debug" };

    assert_true (jobsel_filter_empty (&none));
    assert_false (jobsel_filter_empty (&user));
    /* No state filter: only active jobs. */
    assert_true (jobsel_filter_match (&none, "x", "y", "RUNNING", "p"));
    assert_false (jobsel_filter_match (&none, "x", "y", "COMPLETED", "p"));
    assert_true (jobsel_filter_match (&user, "bob", "y", "PENDING", "p"));
    assert_false (jobsel_filter_match (&user, "carol", "y", "RUNNING", "p"));
    assert_false (jobsel_filter_match (&user, "Bob", "y", "RUNNING", "p"));
    /* Filters intersect. */
    assert_true (jobsel_filter_match (&both, "alice", "sim", "PENDING", "p"));
    assert_false (jobsel_filter_match (&both, "alice", "sim", "RUNNING", "p"));
    assert_false (jobsel_filter_match (&both, "alice", "simx", "PENDING", "p"));
    assert_true (jobsel_filter_match (&part, "a", "b", "RUNNING", "debug"));
    assert_false (jobsel_filter_match (&part, "a", "b", "RUNNING", "batch"));
    assert_true (jobsel_in_list ("a,bb,c", "bb", false));
    assert_false (jobsel_in_list ("a,bb,c", "b", false));
    assert_false (jobsel_in_list ("", "a", false));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_signal_names),
        cmocka_unit_test (test_warning_signal),
        cmocka_unit_test (test_job_ids),
        cmocka_unit_test (test_task_ids),
        cmocka_unit_test (test_list_lookup),
        cmocka_unit_test (test_queue_short_steps),
        cmocka_unit_test (test_states),
        cmocka_unit_test (test_filters),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
