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

#include "opt.h"
#include "opt_slurm.h"

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
    char *a[] = { "srun", "--switches=1", "-q", "high",
                  "-N2",  "--wckey=w",    "x",  NULL };

    (void)state;
    assert_int_equal (parse_as (SLURM_CMD_RUN, &o, &err, a), -1);
    assert_int_equal (errno, ENOTSUP);
    assert_string_equal (err.text, "srun: error: not supported by Arbor: "
                                   "--qos, --wckey, --switches (see "
                                   "arbor-slurm(7))");
    assert_int_equal (o.nnodes, 2);
    opt_clear (&o);
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
        cmocka_unit_test (test_per_command),
        cmocka_unit_test (test_documented),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
