/* gpu_env_test.c - which GPUs each task sees (gpu_env.c) under every
 * --gpu-bind and --gpus-per-task, with and without ConstrainDevices,
 * the variables that say so, and the errors the stepd prints. */
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

#include "gpu_env.h"

#define N(a) (sizeof (a) / sizeof ((a)[0]))

static const uint32_t four[] = { 0, 1, 2, 3 };
static const uint32_t upper[] = { 4, 5, 6, 7 };
static const uint32_t two[] = { 2, 3 };

/* A step of 'ntasks' tasks here on GPUs gpus[0..n), the job holding the
 * node's GPUs 0-7, binding as 'bind' says ("" none given). f starts
 * zeroed; the test clears f.b at its end. */
struct fixture {
    struct gpu_env_step s;
    struct gpubind b;
};

static struct gpu_env_step *setup (struct fixture *f, const uint32_t *gpus,
                                   size_t n, uint32_t ntasks, const char *bind)
{
    static const uint32_t job[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

    gpubind_clear (&f->b); /* the previous setup's */
    memset (f, 0, sizeof (*f));
    assert_int_equal (gpubind_parse (bind, &f->b, NULL), 0);
    f->s.gpus = gpus;
    f->s.ngpus = n;
    f->s.job_gpus = job;
    f->s.njob = N (job);
    f->s.bind = &f->b;
    f->s.ntasks = ntasks;
    f->s.node = "n1";
    return &f->s;
}

/* CUDA_VISIBLE_DEVICES of local task 'local' ("ERR: ..." on failure),
 * checking that the other runtimes' variables say the same. */
static const char *vis (const struct gpu_env_step *s, uint32_t local)
{
    static const char *const others[] = { "ROCR_VISIBLE_DEVICES",
                                          "ZE_AFFINITY_MASK",
                                          "GPU_DEVICE_ORDINAL" };
    static char buf[256];
    struct env *e = env_create (NULL, 0);
    arbor_error_t err = { "" };
    const char *v;

    assert_non_null (e);
    errno = 0;
    if (gpu_env_set (e, s, local, &err) < 0) {
        assert_int_equal (errno, EINVAL);
        snprintf (buf, sizeof (buf), "ERR: %s", err.text);
    } else {
        v = env_get (e, "CUDA_VISIBLE_DEVICES");
        snprintf (buf, sizeof (buf), "%s", v ? v : "(unset)");
        for (size_t i = 0; v && i < N (others); i++)
            assert_string_equal (env_get (e, others[i]), v);
    }
    env_destroy (e);
    return buf;
}

/* The visible lists of tasks 0..ntasks-1, joined by ' '. */
static const char *all (const struct gpu_env_step *s)
{
    static char buf[512];
    size_t used = 0;

    buf[0] = '\0';
    for (uint32_t t = 0; t < s->ntasks; t++)
        used += (size_t)snprintf (buf + used, sizeof (buf) - used, "%s%s",
                                  t ? " " : "", vis (s, t));
    return buf;
}

static void test_unbound (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, two, N (two), 3, "");

    (void)state;
    /* Not given, or none: every task sees all of the step's GPUs. */
    assert_string_equal (all (s), "2,3 2,3 2,3");
    s->constrained = true;
    assert_string_equal (all (s), "0,1 0,1 0,1");
    s = setup (&f, two, N (two), 3, "none");
    s->gpus_per_task = 1; /* none turns --gpus-per-task's binding off */
    assert_string_equal (all (s), "2,3 2,3 2,3");
    s = setup (&f, two, N (two), 2, "verbose");
    assert_string_equal (all (s), "2,3 2,3");
    s->bind = NULL;
    assert_string_equal (all (s), "2,3 2,3");
    gpubind_clear (&f.b);
}

static void test_per_task (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, four, N (four), 4, "per_task:1");

    (void)state;
    assert_string_equal (all (s), "0 1 2 3");
    s = setup (&f, four, N (four), 3, "per_task:2");
    assert_string_equal (all (s), "0,1 2,3 0,1"); /* wraps round */
    s = setup (&f, four, N (four), 2, "per_task:3");
    assert_string_equal (all (s), "0,1,2 0,1,3");
    s = setup (&f, four, N (four), 2, "per_task:8");
    assert_string_equal (all (s), "0,1,2,3 0,1,2,3");
    /* --gpus-per-task without --gpu-bind implies per_task. */
    s = setup (&f, upper, N (upper), 4, "");
    s->gpus_per_task = 1;
    assert_string_equal (all (s), "4 5 6 7");
    s->constrained = true;
    assert_string_equal (all (s), "0 1 2 3");
    /* ... and an explicit --gpu-bind overrides it. */
    s = setup (&f, upper, N (upper), 2, "per_task:2");
    s->gpus_per_task = 1;
    assert_string_equal (all (s), "4,5 6,7");
    gpubind_clear (&f.b);
}

/* "GPU binding is ignored if there is only one task." */
static void test_one_task (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, two, N (two), 1, "map_gpu:3");

    (void)state;
    assert_string_equal (vis (s, 0), "2,3");
    s->step_tasks = 1;
    assert_string_equal (vis (s, 0), "2,3");
    /* One task here of a step with more elsewhere: it binds. */
    s->step_tasks = 4;
    assert_string_equal (vis (s, 0), "3");
    s = setup (&f, two, N (two), 1, "per_task:1");
    s->step_tasks = 2;
    assert_string_equal (vis (s, 0), "2");
    gpubind_clear (&f.b);
}

static void test_map (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, two, N (two), 3, "map_gpu:3,2");

    (void)state;
    assert_string_equal (all (s), "3 2 3");
    /* Constrained, ids count from 0 within the step's GPUs. */
    s = setup (&f, two, N (two), 4, "map_gpu:1*2,0");
    s->constrained = true;
    assert_string_equal (all (s), "1 1 0 1");
    s = setup (&f, two, N (two), 2, "map_gpu:5");
    s->constrained = true;
    assert_string_equal (vis (s, 0), "ERR: --gpu-bind=map_gpu:5: GPU 5 is "
                                     "not one of the step's on n1 (0-1)");
    s = setup (&f, two, N (two), 2, "map_gpu:2,0");
    s->node = NULL;
    assert_string_equal (vis (s, 0), "2");
    assert_string_equal (vis (s, 1), "ERR: --gpu-bind=map_gpu:0: GPU 0 is "
                                     "not one of the step's (2-3)");
    gpubind_clear (&f.b);
}

static void test_mask (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, four, N (four), 3, "mask_gpu:3,c");

    (void)state;
    assert_string_equal (all (s), "0,1 2,3 0,1");
    s = setup (&f, upper, N (upper), 2, "mask_gpu:0x30,0xc0");
    assert_string_equal (all (s), "4,5 6,7");
    s->constrained = true;
    assert_string_equal (all (s), "ERR: --gpu-bind=mask_gpu:0x30: GPU 4 is "
                                  "not one of the step's on n1 (0-3) "
                                  "ERR: --gpu-bind=mask_gpu:0xc0: GPU 6 is "
                                  "not one of the step's on n1 (0-3)");
    s = setup (&f, upper, N (upper), 2, "mask_gpu:5,a");
    s->constrained = true;
    assert_string_equal (all (s), "0,2 1,3");
    gpubind_clear (&f.b);
}

/* Two sockets: GPUs 0-1 on CPUs 0-7, GPUs 2-3 on CPUs 8-15. */
static const char *const sockets[] = { "0-7", "0-7", "8-15", "8-15" };

static void cpus (cpu_set_t *set, int lo, int hi)
{
    CPU_ZERO (set);
    for (int c = lo; c <= hi; c++)
        CPU_SET (c, set);
}

static void test_closest (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, four, N (four), 4, "closest");
    cpu_set_t t[4];
    const char *const partly[] = { NULL, "0-7", NULL, "8-15" };

    (void)state;
    cpus (&t[0], 0, 3);
    cpus (&t[1], 8, 11);
    cpus (&t[2], 4, 4);
    CPU_SET (12, &t[2]);  /* both sockets */
    cpus (&t[3], 16, 17); /* near no GPU: all of them */
    s->gpu_cpus = sockets;
    assert_string_equal (all (s), "0,1,2,3 0,1,2,3 0,1,2,3 0,1,2,3");
    s->task_cpus = t; /* the tasks' CPUs known */
    assert_string_equal (all (s), "0,1 2,3 0,1,2,3 0,1,2,3");
    s->gpu_cpus = partly;
    assert_string_equal (all (s), "1 3 1,3 0,1,2,3");
    s->gpu_cpus = NULL;
    assert_string_equal (all (s), "0,1,2,3 0,1,2,3 0,1,2,3 0,1,2,3");
    gpubind_clear (&f.b);
}

static void test_single (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, four, N (four), 4, "single:1");
    cpu_set_t t[6];

    (void)state;
    for (int i = 0; i < 4; i++)
        cpus (&t[i], 4 * i, 4 * i + 3);
    s->gpu_cpus = sockets;
    s->task_cpus = t;
    assert_string_equal (all (s), "0 1 2 3");
    s = setup (&f, four, N (four), 4, "single:2");
    s->gpu_cpus = sockets;
    s->task_cpus = t;
    assert_string_equal (all (s), "0 0 2 2");
    /* Six tasks on the first socket, one per GPU: the close GPUs first,
     * then the others, then a new round. */
    for (int i = 0; i < 6; i++)
        cpus (&t[i], i, i);
    s = setup (&f, four, N (four), 6, "single:1");
    s->gpu_cpus = sockets;
    s->task_cpus = t;
    assert_string_equal (all (s), "0 1 2 3 0 1");
    /* Nothing known of the topology: in order, N tasks each. */
    s = setup (&f, two, N (two), 5, "single:2");
    assert_string_equal (all (s), "2 2 3 3 2");
    s->constrained = true;
    assert_string_equal (all (s), "0 0 1 1 0");
    gpubind_clear (&f.b);
}

static void test_variables (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, two, N (two), 2, "per_task:1");
    char *const inherited[] = { "CUDA_VISIBLE_DEVICES=7", "SLURM_STEP_GPUS=7" };
    struct env *e = env_create (inherited, 2);

    (void)state;
    s->constrained = true;
    assert_int_equal (gpu_env_set (e, s, 1, NULL), 0);
    assert_string_equal (env_get (e, "CUDA_VISIBLE_DEVICES"), "1");
    assert_string_equal (env_get (e, "SLURM_STEP_GPUS"), "2,3");
    assert_string_equal (env_get (e, "SLURM_JOB_GPUS"), "0,1,2,3,4,5,6,7");
    assert_string_equal (env_get (e, "SLURM_GPUS_ON_NODE"), "2");
    env_destroy (e);
    /* The batch step: the job's variables, none of a step's. */
    e = env_create (inherited, 2);
    s->batch = true;
    s->ntasks = 1;
    assert_int_equal (gpu_env_set (e, s, 0, NULL), 0);
    assert_string_equal (env_get (e, "CUDA_VISIBLE_DEVICES"), "0,1");
    assert_null (env_get (e, "SLURM_STEP_GPUS"));
    assert_string_equal (env_get (e, "SLURM_JOB_GPUS"), "0,1,2,3,4,5,6,7");
    env_destroy (e);
    /* A step without GPUs in a job with some: empty lists hide them. */
    e = env_create (inherited, 2);
    s = setup (&f, NULL, 0, 2, "map_gpu:1");
    assert_int_equal (gpu_env_check (s, NULL), 0);
    assert_int_equal (gpu_env_set (e, s, 1, NULL), 0);
    assert_string_equal (env_get (e, "CUDA_VISIBLE_DEVICES"), "");
    assert_string_equal (env_get (e, "ZE_AFFINITY_MASK"), "");
    assert_string_equal (env_get (e, "SLURM_STEP_GPUS"), "");
    assert_string_equal (env_get (e, "SLURM_GPUS_ON_NODE"), "0");
    env_destroy (e);
    /* No GPUs for the job either: nothing is touched. */
    e = env_create (inherited, 2);
    s->njob = 0;
    assert_int_equal (gpu_env_set (e, s, 0, NULL), 0);
    assert_int_equal (env_count (e), 2);
    assert_string_equal (env_get (e, "CUDA_VISIBLE_DEVICES"), "7");
    env_destroy (e);
    gpubind_clear (&f.b);
}

static void test_task_gpus (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, upper, N (upper), 2, "mask_gpu:0x90");
    arbor_error_t err = { "" };
    bool on[4];

    (void)state;
    assert_int_equal (gpu_env_task_gpus (s, 0, on, &err), 2);
    assert_true (on[0] && !on[1] && !on[2] && on[3]);
    errno = 0;
    assert_int_equal (gpu_env_task_gpus (s, 2, on, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "task 2 of 2, 4 GPUs: out of range");
    s->ngpus = 0;
    assert_int_equal (gpu_env_task_gpus (s, 1, NULL, &err), 0);
    gpubind_clear (&f.b);
}

static void test_check (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, two, N (two), 2, "map_gpu:2,3*2");
    const uint32_t unsorted[] = { 3, 2 }, dup[] = { 1, 1 };
    const char *const bad_cpus[] = { "0-7", "7-0" };
    arbor_error_t err = { "" };

    (void)state;
    assert_int_equal (gpu_env_check (s, &err), 0);
    s->constrained = true;
    errno = 0;
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_int_equal (errno, EINVAL);
    assert_string_equal (err.text, "--gpu-bind=map_gpu:2: GPU 2 is not one "
                                   "of the step's on n1 (0-1)");
    s = setup (&f, two, N (two), 2, "mask_gpu:1,8");
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_string_equal (err.text, "--gpu-bind=mask_gpu:0x1: GPU 0 is not "
                                   "one of the step's on n1 (2-3)");
    s = setup (&f, unsorted, N (unsorted), 2, "");
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_string_equal (err.text, "the step's GPUs: GPU 2 after GPU 3 "
                                   "(ascending and unique expected)");
    s->gpus = two;
    s->job_gpus = dup;
    s->njob = 2;
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_non_null (strstr (err.text, "the job's GPUs: GPU 1 after GPU 1"));
    s->njob = GPU_ENV_GPUS_MAX + 1;
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_string_equal (err.text, "the job's GPUs: 1025 GPUs, more than "
                                   "1024");
    s->njob = 0;
    s->gpu_cpus = bad_cpus;
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_non_null (strstr (err.text, "GPU 3: core list '7-0'"));
    s->gpu_cpus = NULL;
    assert_int_equal (gpu_env_check (s, &err), 0);
    /* Ranges in the message. */
    const uint32_t spread[] = { 0, 2, 3, 4, 9 };
    s = setup (&f, spread, N (spread), 2, "map_gpu:1");
    assert_int_equal (gpu_env_check (s, &err), -1);
    assert_string_equal (err.text, "--gpu-bind=map_gpu:1: GPU 1 is not one "
                                   "of the step's on n1 (0,2-4,9)");
    gpubind_clear (&f.b);
}

static void test_note (void **state)
{
    struct fixture f = { 0 };
    struct gpu_env_step *s = setup (&f, two, N (two), 2, "verbose,per_task:1");
    char buf[128];

    (void)state;
    s->constrained = true;
    assert_int_equal (gpu_env_note (s, 1, 5, buf, sizeof (buf), NULL), 0);
    assert_string_equal (buf, "gpu-bind=per_task:1 - n1, task  5  1: GPUs 3 "
                              "visible as 1\n");
    s = setup (&f, two, N (two), 1, "closest");
    assert_int_equal (gpu_env_note (s, 0, 0, buf, sizeof (buf), NULL), 0);
    assert_string_equal (buf, "gpu-bind=none - n1, task  0  0: GPUs 2,3 "
                              "visible as 2,3\n");
    s = setup (&f, NULL, 0, 1, "");
    assert_int_equal (gpu_env_note (s, 0, 0, buf, sizeof (buf), NULL), 0);
    assert_string_equal (buf, "gpu-bind=none - n1, task  0  0: GPUs none "
                              "visible as none\n");
    gpubind_clear (&f.b);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_unbound),   cmocka_unit_test (test_per_task),
        cmocka_unit_test (test_one_task),  cmocka_unit_test (test_map),
        cmocka_unit_test (test_mask),      cmocka_unit_test (test_closest),
        cmocka_unit_test (test_single),    cmocka_unit_test (test_variables),
        cmocka_unit_test (test_task_gpus), cmocka_unit_test (test_check),
        cmocka_unit_test (test_note),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
