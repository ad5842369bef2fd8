/* opt_slurm_test.c - Slurm's other submission options (opt_slurm.h):
 * aliases, abbreviations, accepted values, the one message naming every
 * unsupported option, and docs/slurm-differences.md listing each. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "directives.h"
#include "opt.h"
#include "opt_slurm.h"
#include "optenv.h"

static int parse_as (unsigned cmd, struct alloc_opts *o, arbor_error_t *err,
                     char **argv)
{
    struct opt_extra extra = { NULL, NULL, NULL, NULL, cmd };
    int argc = 0;

    while (argv[argc])
        argc++;
    opt_defaults (o);
    return opt_parse (o, argc, argv, &extra, err);
}

static void test_aliases_and_prefixes (void **state)
{
    struct alloc_opts o;
    arbor_error_t err;
    char *a1[] = { "srun", "--tasks-per-node=3", "--ntasks-per-n=3", "x",
                   NULL };
    char *a2[] = { "srun", "--mem-p=1", "x", NULL };

    (void)state;
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, a1), 3);
    assert_int_equal (o.ntasks_per_node, 3);
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, a2), -1);
    assert_non_null (strstr (err.text, "is ambiguous"));
    assert_non_null (strstr (err.text, "'--mem-per-cpu'"));
    opt_clear (&o);
}

static void test_node_range (void **state)
{
    uint32_t lo, hi;

    (void)state;
    assert_int_equal (opt_parse_nodes ("2-4", &lo, &hi), 0);
    assert_int_equal (lo, 2);
    assert_int_equal (hi, 4);
    assert_int_equal (opt_parse_nodes ("3-3", &lo, &hi), 0);
    assert_int_equal (hi, 0);
    assert_int_equal (opt_parse_nodes ("5", &lo, &hi), 0);
    assert_int_equal (lo, 5);
    assert_int_equal (hi, 0);
    assert_int_equal (opt_parse_nodes ("4-2", &lo, &hi), -1);
    assert_int_equal (opt_parse_nodes ("0-2", &lo, &hi), -1);
    assert_int_equal (opt_parse_nodes ("2-", &lo, &hi), -1);
    assert_int_equal (opt_parse_nodes ("-2", &lo, &hi), -1);
}

static void test_accepted (void **state)
{
    struct alloc_opts o;
    arbor_error_t err;
    char *a[] = { "sbatch",
                  "--comment=a b",
                  "--time-min=1:30:00",
                  "--mincpus=4",
                  "--tmp=2G",
                  "--hint=nomultithread",
                  "--ntasks-per-core=1",
                  "--cpu-freq=low-high:performance",
                  "-M",
                  "c1",
                  "--get-user-env",
                  "--test-only",
                  "-C",
                  "[a|b]&ib",
                  "x",
                  NULL };
    char *bad_hint[] = { "srun", "--hint=fast", "x", NULL };
    char *bad_cons[] = { "srun", "--constraint=a||b", "x", NULL };
    char *bad_freq[] = { "srun", "--cpu-freq=warp", "x", NULL };

    (void)state;
    assert_true (parse_as (SLURM_CMD_BATCH, &o, &err, a) > 0);
    assert_string_equal (slurm_carried (&o.slurm, "comment"), "a b");
    assert_int_equal (o.slurm.time_min, 90);
    assert_int_equal (o.slurm.mincpus, 4);
    assert_int_equal (o.slurm.tmp_mb, 2048);
    assert_string_equal (o.slurm.clusters, "c1");
    assert_true (o.slurm.get_user_env && o.slurm.test_only);
    assert_string_equal (o.slurm.constraint, "[a|b]&ib");
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, bad_cons), -1);
    assert_string_equal (err.text, "srun: invalid constraint \"a||b\": a "
                                   "feature name expected at position 3");
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, bad_hint), -1);
    assert_string_equal (err.text, "srun: invalid --hint 'fast'");
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, bad_freq), -1);
    opt_clear (&o);
    assert_int_equal (slurm_cpu_freq_check ("2400000"), 0);
    assert_int_equal (slurm_cpu_freq_check ("OnDemand"), 0);
    assert_int_equal (slurm_cpu_freq_check ("low-"), -1);
}

/* Every unsupported option given is named, in one message, and parsing
 * went on past the first. */
static void test_unsupported_all_named (void **state)
{
    struct alloc_opts o;
    arbor_error_t err;
    char *a[] = {
        "srun", "--switches=1", "--reservation", "r", "-N2", "--wckey=w", "x",
        NULL
    };

    (void)state;
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, a), -1);
    assert_int_equal (errno, ENOTSUP);
    assert_string_equal (err.text, "srun: error: not supported by Arbor: "
                                   "--reservation, --wckey, --switches (see "
                                   "arbor-slurm(7))");
    assert_int_equal (o.nnodes, 2);
    opt_clear (&o);
}

/* -q/--qos on every command, sent as given in JOB_ALLOC.qos (the
 * controller judges the name); not given, the request has none ("" on
 * the wire: the association's default). */
static void test_qos (void **state)
{
    static const unsigned cmds[] = { SLURM_CMD_RUN, SLURM_CMD_ALLOC,
                                     SLURM_CMD_BATCH };
    struct alloc_opts o;
    arbor_error_t err;
    struct msg_job_alloc m;
    char *a[] = { "srun", "-q", "high", "-N1", "x", NULL };
    char *b[] = { "sbatch", "--qos=Debug", "x", NULL };
    char *c[] = { "salloc", "--qo=low", "x", NULL }; /* an abbreviation */
    char *none[] = { "srun", "x", NULL };

    (void)state;
    for (size_t i = 0; i < sizeof (cmds) / sizeof (cmds[0]); i++) {
        assert_int_equal (parse_as (cmds[i], &o, &err, a), 4);
        assert_string_equal (slurm_carried (&o.slurm, "qos"), "high");
        m = opt_job_alloc (&o, "x", "/");
        assert_string_equal (m.qos, "high");
        assert_int_equal (o.nnodes, 1);
        opt_clear (&o);
    }
    assert_int_equal (parse_as (SLURM_CMD_BATCH, &o, &err, b), 2);
    assert_string_equal (opt_job_alloc (&o, "x", "/").qos, "Debug");
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_ALLOC, &o, &err, c), 2);
    assert_string_equal (opt_job_alloc (&o, "x", "/").qos, "low");
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, none), 1);
    assert_null (slurm_carried (&o.slurm, "qos"));
    m = opt_job_alloc (&o, "x", "/");
    assert_true (m.qos == NULL || !strcmp (m.qos, ""));
    opt_clear (&o);
}

/* "#SBATCH -q" and "#SBATCH --qos=" reach the same parser; the last
 * one given wins, as for any option. */
static void test_qos_directive (void **state)
{
    static const char script[] = "#!/bin/sh\n#SBATCH -q normal\n"
                                 "#SBATCH --qos=high -N 2\nhostname\n";
    static const char *const prefixes[] = { "#SBATCH", NULL };
    struct directives d;
    struct alloc_opts o;
    arbor_error_t err;
    struct opt_extra extra = { NULL, NULL, NULL, NULL, SLURM_CMD_BATCH };

    (void)state;
    assert_int_equal (directives_parse (script, sizeof (script) - 1, prefixes,
                                        "sbatch", &d, &err),
                      0);
    opt_defaults (&o);
    assert_int_equal (opt_parse (&o, d.argc, d.argv, &extra, &err), d.argc);
    assert_string_equal (slurm_carried (&o.slurm, "qos"), "high");
    assert_int_equal (o.nnodes, 2);
    opt_clear (&o);
    directives_clear (&d);
}

/* SBATCH_QOS, SALLOC_QOS and SLURM_QOS: each command's table row turns
 * the variable into --qos=VALUE (optenv.h), which the command's parser
 * takes as the option. */
static void test_qos_env (void **state)
{
    static const struct {
        const char *var;
        const char *prog;
        unsigned cmd;
    } vars[] = {
        { "SBATCH_QOS", "sbatch", SLURM_CMD_BATCH },
        { "SALLOC_QOS", "salloc", SLURM_CMD_ALLOC },
        { "SLURM_QOS", "srun", SLURM_CMD_RUN },
    };

    (void)state;
    for (size_t i = 0; i < sizeof (vars) / sizeof (vars[0]); i++) {
        const struct optenv tab[] = { { vars[i].var, "qos", false },
                                      { NULL, NULL, false } };
        struct opt_extra extra = { NULL, NULL, NULL, NULL, vars[i].cmd };
        struct alloc_opts o;
        arbor_error_t err;
        int argc;
        char **argv;

        setenv (vars[i].var, "scavenger", 1);
        argv = optenv_argv (vars[i].prog, tab, &argc);
        unsetenv (vars[i].var);
        assert_non_null (argv);
        assert_int_equal (argc, 2);
        assert_string_equal (argv[1], "--qos=scavenger");
        opt_defaults (&o);
        assert_int_equal (opt_parse (&o, argc, argv, &extra, &err), argc);
        assert_string_equal (slurm_carried (&o.slurm, "qos"), "scavenger");
        opt_clear (&o);
        optenv_free (argv);
    }
}

/* An option of another command stays unrecognized: --slurmd-debug is srun's,
 * --no-shell salloc's. */
static void test_per_command (void **state)
{
    struct alloc_opts o;
    arbor_error_t err;
    char *a[] = { "sbatch", "--slurmd-debug=2", "x", NULL };
    char *b[] = { "salloc", "--no-shell", "x", NULL };

    (void)state;
    assert_int_equal (parse_as (SLURM_CMD_BATCH, &o, &err, a), -1);
    assert_non_null (strstr (err.text, "unrecognized option"));
    opt_clear (&o);
    assert_int_equal (parse_as (SLURM_CMD_ALLOC, &o, &err, b), -1);
    assert_non_null (strstr (err.text, "not supported by Arbor: --no-shell"));
    opt_clear (&o);
}

/* docs/slurm-differences.md names every unsupported option. */
static void test_documented (void **state)
{
    FILE *f = fopen (ARBOR_SOURCE_DIR "/docs/slurm-differences.md", "r");
    static char doc[64 * 1024];
    size_t n;
    int count = 0;

    (void)state;
    assert_non_null (f);
    n = fread (doc, 1, sizeof (doc) - 1, f);
    fclose (f);
    doc[n] = '\0';
    for (int i = 0; slurm_unsupported[i].name; i++, count++) {
        char want[64];
        snprintf (want, sizeof (want), "`--%s`", slurm_unsupported[i].name);
        if (!strstr (doc, want)) {
            snprintf (want, sizeof (want), "/--%s`", slurm_unsupported[i].name);
            if (!strstr (doc, want))
                fail_msg ("docs/slurm-differences.md does not list --%s",
                          slurm_unsupported[i].name);
        }
    }
    assert_true (count < SLURM_UNSUP_MAX);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_aliases_and_prefixes),
        cmocka_unit_test (test_node_range),
        cmocka_unit_test (test_accepted),
        cmocka_unit_test (test_unsupported_all_named),
        cmocka_unit_test (test_qos),
        cmocka_unit_test (test_qos_directive),
        cmocka_unit_test (test_qos_env),
        cmocka_unit_test (test_per_command),
        cmocka_unit_test (test_documented),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
