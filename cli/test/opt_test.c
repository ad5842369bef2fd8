/* opt_test.c - the shared allocation options and the --mem parser. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "directives.h"
#include "opt.h"

static int parse (struct alloc_opts *o, arbor_error_t *err, int argc,
                  char **argv)
{
    unsetenv ("SLURM_PARTITION");
    unsetenv ("SLURM_TIMELIMIT");
    unsetenv ("SLURM_EXCLUSIVE");
    opt_init (o);
    return opt_parse (o, argc, argv, NULL, err);
}

static void test_mem (void **state)
{
    uint64_t mb;

    assert_int_equal (opt_parse_mem ("100", &mb), 0);
    assert_int_equal (mb, 100);
    assert_int_equal (opt_parse_mem ("100M", &mb), 0);
    assert_int_equal (mb, 100);
    assert_int_equal (opt_parse_mem ("4G", &mb), 0);
    assert_int_equal (mb, 4096);
    assert_int_equal (opt_parse_mem ("4gb", &mb), 0);
    assert_int_equal (mb, 4096);
    assert_int_equal (opt_parse_mem ("1T", &mb), 0);
    assert_int_equal (mb, 1024 * 1024);
    assert_int_equal (opt_parse_mem ("1025K", &mb), 0);
    assert_int_equal (mb, 2); /* kilobytes round up */
    assert_int_equal (opt_parse_mem ("0", &mb), 0);
    assert_int_equal (mb, 0);
    assert_int_equal (opt_parse_mem ("", &mb), -1);
    assert_int_equal (opt_parse_mem ("x", &mb), -1);
    assert_int_equal (opt_parse_mem ("-5", &mb), -1);
    assert_int_equal (opt_parse_mem ("10Q", &mb), -1);
    assert_int_equal (opt_parse_mem ("10MM", &mb), -1);
    assert_int_equal (opt_parse_mem ("99999999999999999999", &mb), -1);
    assert_int_equal (opt_parse_mem ("9999999999999999T", &mb), -1);
    assert_int_equal (errno, ERANGE);
}

static void test_count (void **state)
{
    uint32_t n;

    assert_int_equal (opt_parse_count ("16", false, &n), 0);
    assert_int_equal (n, 16);
    assert_int_equal (opt_parse_count ("0", false, &n), -1);
    assert_int_equal (opt_parse_count ("0", true, &n), 0);
    assert_int_equal (opt_parse_count ("+3", false, &n), -1);
    assert_int_equal (opt_parse_count ("3x", false, &n), -1);
    assert_int_equal (opt_parse_count ("4294967296", false, &n), -1);
}

static void test_all_options (void **state)
{
    char *argv[] = { "arbor run",
                     "-N",
                     "2",
                     "--ntasks=8",
                     "-c",
                     "2",
                     "--ntasks-per-node",
                     "4",
                     "-w",
                     "n[1-2]",
                     "--exclude=n3",
                     "-p",
                     "debug",
                     "-t",
                     "1:30:00",
                     "--mem=2G",
                     "--exclusive",
                     "-J",
                     "job",
                     "-D",
                     "/tmp",
                     "-vv",
                     "--jobid=7",
                     "hostname",
                     "-N",
                     "9",
                     NULL };
    struct alloc_opts o;
    arbor_error_t err;
    int ind = parse (&o, &err, 26, argv);

    assert_int_equal (ind, 23);
    assert_string_equal (argv[ind], "hostname");
    assert_int_equal (o.nnodes, 2); /* the command's -N 9 is not ours */
    assert_int_equal (o.ntasks, 8);
    assert_int_equal (o.cpus_per_task, 2);
    assert_int_equal (o.ntasks_per_node, 4);
    assert_string_equal (o.nodelist, "n[1-2]");
    assert_string_equal (o.exclude, "n3");
    assert_string_equal (o.partition, "debug");
    assert_int_equal (o.time_limit, 90);
    assert_int_equal (o.mem_mb, 2048);
    assert_true (o.exclusive);
    assert_string_equal (o.job_name, "job");
    assert_string_equal (o.chdir, "/tmp");
    assert_int_equal (o.verbose, 2);
    assert_int_equal (o.jobid, 7);
    opt_clear (&o);
}

/* The JOB_ALLOC request: every option carried, "" for unset strings. */
static void test_job_alloc (void **state)
{
    char *argv[] = { "arbor run",
                     "-N",
                     "2",
                     "-n",
                     "8",
                     "-c",
                     "2",
                     "-w",
                     "n[1-2]",
                     "-t",
                     "5",
                     "--mem-per-cpu=1G",
                     "--signal=USR1@30",
                     "--exclusive",
                     "-O",
                     "x",
                     NULL };
    struct alloc_opts o;
    arbor_error_t err;
    struct msg_job_alloc m;

    assert_int_equal (parse (&o, &err, 16, argv), 15);
    m = opt_job_alloc (&o, "x", "/work");
    assert_string_equal (m.name, "x");
    assert_string_equal (m.cwd, "/work");
    assert_string_equal (m.partition, "");
    assert_string_equal (m.nodelist, "n[1-2]");
    assert_string_equal (m.exclude, "");
    assert_int_equal (m.nnodes, 2);
    assert_int_equal (m.ntasks, 8);
    assert_int_equal (m.cpus_per_task, 2);
    assert_int_equal (m.ntasks_per_node, 0);
    assert_int_equal (m.time_limit, 5);
    assert_int_equal (m.mem_mb, 0);
    assert_int_equal (m.mem_per_cpu_mb, 1024);
    assert_int_equal (m.warn_signal, SIGUSR1);
    assert_int_equal (m.warn_time, 30);
    assert_true (m.exclusive);
    assert_true (m.overcommit);
    opt_clear (&o);
}

static void test_errors (void **state)
{
    char *a1[] = { "arbor run", "--foo", "x", NULL };
    char *a2[] = { "arbor run", "-n", "x", "cmd", NULL };
    char *a3[] = { "arbor run", "--ntasks=0", "cmd", NULL };
    char *a4[] = { "arbor run", "--mem", "lots", NULL };
    char *a5[] = { "arbor run", "-t", "1:x", NULL };
    char *a6[] = { "arbor run", "-w", "n[1-", NULL };
    char *a7[] = { "arbor run", "-N", NULL };
    char *a8[] = { "arbor run", "-Q", NULL };
    struct alloc_opts o;
    arbor_error_t err;

    assert_int_equal (parse (&o, &err, 3, a1), -1);
    assert_string_equal (err.text, "arbor run: unrecognized option '--foo'");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 4, a2), -1);
    assert_string_equal (err.text, "arbor run: invalid --ntasks 'x'");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a3), -1);
    assert_string_equal (err.text, "arbor run: invalid --ntasks '0'");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a4), -1);
    assert_string_equal (err.text, "arbor run: invalid --mem 'lots'");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a5), -1);
    assert_string_equal (err.text, "arbor run: invalid --time '1:x'");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a6), -1);
    assert_string_equal (err.text, "arbor run: invalid --nodelist 'n[1-'");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 2, a7), -1);
    assert_string_equal (err.text,
                         "arbor run: option '--nodes' requires an argument");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 2, a8), -1);
    assert_string_equal (err.text, "arbor run: invalid option -- 'Q'");
    opt_clear (&o);
}

/* A command's own options come back through the callback. */
static int extra_cb (int c, const char *arg, void *data)
{
    int *seen = data;

    if (c == 'l') {
        (*seen)++;
        return 0;
    }
    if (c == 'i')
        return strcmp (arg, "bad") ? 0 : -1;
    return -1;
}

static void test_extra (void **state)
{
    static const struct option longopts[] = {
        { "label", no_argument, NULL, 'l' },
        { "input", required_argument, NULL, 'i' },
        { NULL, 0, NULL, 0 },
    };
    int seen = 0;
    struct opt_extra extra = { longopts, "li:", extra_cb, &seen, 0 };
    char *a1[] = { "srun", "-l", "--label", "-n2", "-i", "0", "cmd", NULL };
    char *a2[] = { "srun", "--input=bad", "cmd", NULL };
    struct alloc_opts o;
    arbor_error_t err;

    opt_init (&o);
    assert_int_equal (opt_parse (&o, 7, a1, &extra, &err), 6);
    assert_int_equal (seen, 2);
    assert_int_equal (o.ntasks, 2);
    opt_clear (&o);
    opt_init (&o);
    assert_int_equal (opt_parse (&o, 3, a2, &extra, &err), -1);
    assert_string_equal (err.text, "srun: invalid --input 'bad'");
    opt_clear (&o);
}

static void test_env (void **state)
{
    char *argv[] = { "arbor run", "-p", "other", "cmd", NULL };
    struct alloc_opts o;
    arbor_error_t err;

    setenv ("SLURM_PARTITION", "envpart", 1);
    setenv ("SLURM_TIMELIMIT", "10", 1);
    opt_init (&o);
    assert_string_equal (o.partition, "envpart");
    assert_int_equal (o.time_limit, 10);
    assert_int_equal (o.cpus_per_task, 1);
    assert_int_equal (opt_parse (&o, 4, argv, NULL, &err), 3);
    assert_string_equal (o.partition, "other"); /* the command line wins */
    opt_clear (&o);
    unsetenv ("SLURM_PARTITION");
    unsetenv ("SLURM_TIMELIMIT");
}

/* --mem-per-cpu and --signal (protocol 1.1 fields of JOB_ALLOC). */
static void test_mem_per_cpu_signal (void **state)
{
    struct alloc_opts o;
    arbor_error_t err;
    char *a1[] = { "arbor run", "--mem-per-cpu=512", "--signal=USR1@30", "cmd",
                   NULL };
    char *a2[] = { "arbor run", "--signal", "R:TERM", "cmd", NULL };
    char *a3[] = { "arbor run", "--mem=1G", "--mem-per-cpu=1G", "cmd", NULL };
    char *a4[] = { "arbor run", "--signal=NOPE@5", "cmd", NULL };

    assert_int_equal (parse (&o, &err, 4, a1), 3);
    assert_int_equal (o.mem_per_cpu_mb, 512);
    assert_int_equal (o.mem_mb, 0);
    assert_int_equal (o.warn_signal, 10);
    assert_int_equal (o.warn_time, 30);
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 4, a2), 3);
    assert_int_equal (o.warn_signal, 15);
    assert_int_equal (o.warn_time, 60);
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 4, a3), -1);
    assert_non_null (strstr (err.text, "mutually exclusive"));
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a4), -1);
    assert_string_equal (err.text, "arbor run: invalid --signal 'NOPE@5'");
    opt_clear (&o);
}

/* --nice: 100 without a value, any integer within +-2147483645 (the
 * controller decides who may go negative); the value only with '='. */
static void test_nice (void **state)
{
    struct alloc_opts o;
    arbor_error_t err;
    char *a1[] = { "arbor run", "--nice", "cmd", NULL };
    char *a2[] = { "arbor run", "--nice=-2147483645", "cmd", NULL };
    char *a3[] = { "arbor run", "--nice=2147483646", "cmd", NULL };
    char *a4[] = { "arbor run", "--nice=1x", "cmd", NULL };
    char *a5[] = { "arbor run", "--nice", "5", NULL };
    int32_t v;

    assert_int_equal (parse (&o, &err, 3, a1), 2);
    assert_int_equal (o.nice, 100);
    assert_int_equal (opt_job_alloc (&o, "x", "/").nice, 100);
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a2), 2);
    assert_int_equal (o.nice, -2147483645);
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a3), -1);
    assert_string_equal (err.text,
                         "arbor run: invalid --nice '2147483646': an integer "
                         "from -2147483645 to 2147483645 expected");
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 3, a4), -1);
    assert_non_null (strstr (err.text, "invalid --nice '1x'"));
    opt_clear (&o);
    /* as with srun, "--nice 5" is --nice (100) then the command "5" */
    assert_int_equal (parse (&o, &err, 3, a5), 2);
    assert_int_equal (o.nice, 100);
    opt_clear (&o);
    assert_int_equal (parse (&o, &err, 1, a1), 1);
    assert_int_equal (opt_job_alloc (&o, "x", "/").nice, 0);
    opt_clear (&o);
    assert_int_equal (opt_parse_nice ("0", &v), 0);
    assert_int_equal (v, 0);
    assert_int_equal (opt_parse_nice ("-99999999999999999999", &v), -1);
    assert_int_equal (errno, ERANGE);
    assert_int_equal (opt_parse_nice ("", &v), -1);
    assert_int_equal (errno, EINVAL);
}

/* #SBATCH lines reach the same parser: "--nice" there is 100 too. */
static void test_nice_directive (void **state)
{
    static const char script[] = "#!/bin/sh\n#SBATCH --nice\n"
                                 "#SBATCH -J x --nice=-7\necho\n";
    static const char *const prefixes[] = { "#SBATCH", NULL };
    struct directives d;
    struct alloc_opts o;
    arbor_error_t err;

    assert_int_equal (directives_parse (script, sizeof (script) - 1, prefixes,
                                        "sbatch", &d, &err),
                      0);
    opt_defaults (&o);
    assert_int_equal (opt_parse (&o, d.argc, d.argv, NULL, &err), d.argc);
    assert_int_equal (o.nice, -7);
    opt_clear (&o);
    directives_clear (&d);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_mem),
        cmocka_unit_test (test_count),
        cmocka_unit_test (test_all_options),
        cmocka_unit_test (test_job_alloc),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_extra),
        cmocka_unit_test (test_env),
        cmocka_unit_test (test_mem_per_cpu_signal),
        cmocka_unit_test (test_nice),
        cmocka_unit_test (test_nice_directive),
    };

    return cmocka_run_group_tests (tests, NULL, NULL);
}
