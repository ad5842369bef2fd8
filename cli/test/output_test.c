/* output_test.c - output patterns, line buffering with labels, task
 * bookkeeping and srun's exit status rule. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "output.h"
#include "tasks.h"

static char *slurp (const char *path)
{
    FILE *f = fopen (path, "r");
    char *buf = calloc (1, 65536);
    size_t n;

    assert_non_null (f);
    n = fread (buf, 1, 65535, f);
    buf[n] = '\0';
    fclose (f);
    return buf;
}

static void test_pattern (void **state)
{
    struct output_cfg cfg = {
        .job_id = 5, .step_id = 0, .user = "alice", .job_name = "sim"
    };
    char *s = output_pattern_expand (
        &cfg, "out-%j.%s-%t-%N-%%-%x-%u-%J-%n-%3t-%y.txt", 12, "node3", 2);
    assert_string_equal (s, "out-5.0-12-node3-%-sim-alice-5.0-2-012-%y.txt");
    free (s);
    cfg.job_id = 1;
    cfg.step_id = 2;
    s = output_pattern_expand (&cfg, "%N%", 3, NULL, 0);
    assert_string_equal (s, "unknown%");
    free (s);
    s = output_pattern_expand (&cfg, "lit\\%j", 3, NULL, 0);
    assert_string_equal (s, "lit%j");
    free (s);
}

/* A tmp dir for the file tests. */
static int tmp_setup (void **state)
{
    char *dir = strdup ("/tmp/output_test.XXXXXX");

    if (!mkdtemp (dir))
        return -1;
    *state = dir;
    return 0;
}

static int tmp_teardown (void **state)
{
    char cmd[300];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", (char *)*state);
    if (system (cmd) != 0)
        return -1;
    free (*state);
    return 0;
}

static void test_lines_label (void **state)
{
    char pat[256], path[300];
    struct output_cfg cfg = { .job_id = 9,
                              .step_id = 1,
                              .ntasks = 12,
                              .label = true,
                              .out_pattern = pat };
    struct output *o;
    arbor_error_t err;
    char *text;

    snprintf (pat, sizeof (pat), "%s/o-%%j.%%s", (char *)*state);
    assert_non_null (o = output_create (&cfg));
    /* Lines arrive in pieces and interleaved between tasks. */
    assert_int_equal (output_data (o, 0, 1, "hel", 3, &err), 0);
    assert_int_equal (output_data (o, 11, 1, "a\nb", 3, &err), 0);
    assert_int_equal (output_data (o, 0, 1, "lo\nworld\n", 9, &err), 0);
    assert_int_equal (output_data (o, 11, 2, "err\n", 4, &err), 0);
    assert_int_equal (output_data (o, 11, 1, "", 0, &err), 0); /* EOF */
    assert_int_equal (output_data (o, 0, 1, "tail", 4, &err), 0);
    assert_int_equal (output_data (o, 12, 1, "x", 1, &err), -1);
    assert_int_equal (output_data (o, 0, 3, "x", 1, &err), -1);
    output_destroy (o); /* flushes "tail" */
    snprintf (path, sizeof (path), "%s/o-9.1", (char *)*state);
    text = slurp (path);
    /* -e not given: stderr shares -o's file; ranks padded to width 2. */
    assert_string_equal (text, "11: a\n 0: hello\n 0: world\n11: err\n"
                               "11: b\n 0: tail\n");
    free (text);
}

static void test_per_task_files (void **state)
{
    char opat[256], epat[256], path[300];
    struct output_cfg cfg = { .job_id = 3,
                              .step_id = 0,
                              .ntasks = 2,
                              .out_pattern = opat,
                              .err_pattern = epat };
    struct output *o;
    arbor_error_t err;
    char *text;

    snprintf (opat, sizeof (opat), "%s/t%%t-%%N.out", (char *)*state);
    snprintf (epat, sizeof (epat), "%s/all.err", (char *)*state);
    assert_non_null (o = output_create (&cfg));
    assert_int_equal (output_set_node (o, 0, "n1", 0), 0);
    assert_int_equal (output_set_node (o, 1, "n2", 1), 0);
    assert_int_equal (output_data (o, 0, 1, "zero\n", 5, &err), 0);
    assert_int_equal (output_data (o, 1, 1, "one\n", 4, &err), 0);
    assert_int_equal (output_data (o, 1, 2, "e1\n", 3, &err), 0);
    assert_int_equal (output_data (o, 0, 2, "e0\n", 3, &err), 0);
    output_destroy (o);
    snprintf (path, sizeof (path), "%s/t0-n1.out", (char *)*state);
    text = slurp (path);
    assert_string_equal (text, "zero\n");
    free (text);
    snprintf (path, sizeof (path), "%s/t1-n2.out", (char *)*state);
    text = slurp (path);
    assert_string_equal (text, "one\n");
    free (text);
    snprintf (path, sizeof (path), "%s/all.err", (char *)*state);
    text = slurp (path);
    assert_string_equal (text, "e1\ne0\n");
    free (text);
}

static void test_open_error (void **state)
{
    struct output_cfg cfg = { .ntasks = 1,
                              .out_pattern = "/nonexistent/dir/out" };
    struct output *o = output_create (&cfg);
    arbor_error_t err;

    assert_int_equal (output_data (o, 0, 1, "x\n", 2, &err), -1);
    assert_non_null (strstr (err.text, "/nonexistent/dir/out"));
    output_destroy (o);
}

static void test_exit_rule (void **state)
{
    struct task_table tt;
    int code, sig;

    assert_int_equal (tasks_init (&tt, 4), 0);
    assert_false (tasks_all_ended (&tt));
    assert_int_equal (tasks_exit_code (&tt), 0);
    tasks_set_running (&tt, 0);
    assert_int_equal (tasks_set_exit (&tt, 0, 0, 0), 0);
    assert_int_equal (tasks_set_exit (&tt, 1, 2, 0), 0);
    assert_int_equal (tasks_set_exit (&tt, 2, 7, 0), 0);
    assert_int_equal (tasks_exit_code (&tt), 7);          /* highest code */
    assert_int_equal (tasks_set_exit (&tt, 2, 0, 0), -1); /* already over */
    assert_int_equal (errno, EALREADY);
    assert_int_equal (tasks_set_exit (&tt, 4, 0, 0), -1);
    assert_int_equal (errno, EINVAL);
    assert_false (tasks_all_ended (&tt));
    assert_int_equal (tasks_set_exit (&tt, 3, 0, 9), 0);
    assert_true (tasks_all_ended (&tt));
    assert_int_equal (tasks_exit_code (&tt), 128 + 9); /* signal wins */
    tasks_clear (&tt);

    assert_int_equal (tasks_init (&tt, 3), 0);
    tasks_set_exit (&tt, 0, 0, 15);
    tasks_set_exit (&tt, 1, 0, 2);
    assert_int_equal (tasks_exit_code (&tt), 128 + 15); /* largest signal */
    tasks_exit_status (&tt, &code, &sig); /* for accounting: "0:15" */
    assert_int_equal (code, 0);
    assert_int_equal (sig, 15);
    tasks_clear (&tt);

    assert_int_equal (tasks_init (&tt, 2), 0);
    tasks_set_exit (&tt, 0, 3, 0);
    tasks_set_exit (&tt, 1, 300, 0);
    tasks_exit_status (&tt, &code, &sig); /* "255:0", as the rc */
    assert_int_equal (code, 255);
    assert_int_equal (sig, 0);
    assert_int_equal (tasks_exit_code (&tt), 255);
    tasks_clear (&tt);

    assert_int_equal (tasks_init (&tt, 2), 0);
    tasks_set_exit (&tt, 0, 0, 0);
    tasks_set_lost (&tt, 1);
    assert_true (tasks_all_ended (&tt));
    assert_int_equal (tasks_exit_code (&tt), 1); /* lost = 1 */
    tasks_clear (&tt);
}

static void collect (const char *text, void *arg)
{
    char *buf = arg;

    strcat (buf, text);
    strcat (buf, "|");
}

static void test_summary (void **state)
{
    uint32_t ids[] = { 0, 1, 2, 3, 5, 7, 8, 9 };
    struct task_table tt;
    char buf[512] = "";

    assert_string_equal (tasks_ranged (ids, 8, buf, sizeof (buf)), "0-3,5,7-9");
    assert_string_equal (tasks_ranged (ids, 8, buf, 8), "0-3,...");
    buf[0] = '\0';
    assert_int_equal (tasks_init (&tt, 16), 0);
    for (uint32_t i = 0; i < 16; i++)
        tasks_set_running (&tt, i);
    tasks_summary (&tt, collect, buf);
    assert_string_equal (buf, "tasks 0-15: running|");
    buf[0] = '\0';
    tasks_set_exit (&tt, 3, 0, 0);
    tasks_set_exit (&tt, 4, 1, 0);
    tasks_summary (&tt, collect, buf);
    assert_string_equal (buf, "tasks 0-2,5-15: running|tasks 3: exited|"
                              "tasks 4: exited abnormally|");
    tasks_clear (&tt);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_pattern),
        cmocka_unit_test_setup_teardown (test_lines_label, tmp_setup,
                                         tmp_teardown),
        cmocka_unit_test_setup_teardown (test_per_task_files, tmp_setup,
                                         tmp_teardown),
        cmocka_unit_test (test_open_error),
        cmocka_unit_test (test_exit_rule),
        cmocka_unit_test (test_summary),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
