/* env_test.c - task environments and block layout of arbor-stepd. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "task_env.h"

static void check_tpn (const uint32_t *t, size_t n, const char *want)
{
    char *s = layout_tasks_per_node (t, n);

    assert_non_null (s);
    assert_string_equal (s, want);
    free (s);
}

static void test_tasks_per_node (void **state)
{
    const uint32_t a[] = { 2, 2, 2, 1 };
    const uint32_t b[] = { 3, 2 };
    const uint32_t c[] = { 4, 4, 4, 4 };
    const uint32_t d[] = { 1, 2, 2, 1, 1 };
    const uint32_t e[] = { 4000000000u, 4000000000u };

    check_tpn (a, 4, "2(x3),1");
    check_tpn (b, 2, "3,2");
    check_tpn (c, 4, "4(x4)");
    check_tpn (d, 5, "1,2(x2),1(x2)");
    check_tpn (b, 1, "3");
    check_tpn (b, 0, "");
    check_tpn (e, 2, "4000000000(x2)");
}

static void test_layout (void **state)
{
    const uint32_t t[] = { 3, 2, 4 };

    assert_int_equal (layout_total (t, 3), 9);
    assert_int_equal (layout_first_rank (t, 3, 0), 0);
    assert_int_equal (layout_first_rank (t, 3, 1), 3);
    assert_int_equal (layout_first_rank (t, 3, 2), 5);
}

static void test_env_basic (void **state)
{
    char *init[] = { "A=1", "B=2", "bad", "=x", "A=3" };
    struct env *e = env_create (init, 5);

    assert_non_null (e);
    assert_int_equal (env_count (e), 2);
    assert_string_equal (env_get (e, "A"), "3");
    assert_string_equal (env_get (e, "B"), "2");
    assert_null (env_get (e, "AB"));
    assert_int_equal (env_setf (e, "C", "%d-%s", 7, "x"), 0);
    assert_string_equal (env_get (e, "C"), "7-x");
    assert_int_equal (env_set (e, "B", ""), 0);
    assert_string_equal (env_get (e, "B"), "");
    assert_int_equal (env_unset (e, "A"), 0);
    assert_null (env_get (e, "A"));
    assert_int_equal (env_count (e), 2);
    assert_null (env_vars (e)[2]);
    assert_int_equal (env_set (e, "X=Y", "1"), -1);
    assert_int_equal (errno, EINVAL);
    for (int i = 0; i < 200; i++)
        assert_int_equal (env_setf (e, "K", "%d", i), 0);
    assert_string_equal (env_get (e, "K"), "199");
    env_destroy (e);
}

/* Enough variables for the index to grow several times; keys that are
 * prefixes of others; unset moves the rest, which must still be found
 * where they are, in their order. */
static void test_env_many (void **state)
{
    enum { N = 1000 };
    struct env *e = env_create (NULL, 0);
    char key[32], want[32];
    char **vars;

    assert_non_null (e);
    for (int i = 0; i < N; i++) {
        snprintf (key, sizeof (key), "K%d", i);
        assert_int_equal (env_setf (e, key, "v%d", i), 0);
    }
    assert_int_equal (env_count (e), N);
    for (int i = 0; i < N; i += 2) {
        snprintf (key, sizeof (key), "K%d", i);
        assert_int_equal (env_unset (e, key), 0);
    }
    assert_int_equal (env_count (e), N / 2);
    for (int i = 0; i < N; i++) {
        snprintf (key, sizeof (key), "K%d", i);
        snprintf (want, sizeof (want), "v%d", i);
        if (i % 2)
            assert_string_equal (env_get (e, key), want);
        else
            assert_null (env_get (e, key));
    }
    assert_int_equal (env_set (e, "K1", "again"), 0); /* replaced in place */
    assert_int_equal (env_set (e, "K0", "back"), 0);  /* appended */
    vars = env_vars (e);
    assert_string_equal (vars[0], "K1=again");
    assert_string_equal (vars[1], "K3=v3");
    assert_string_equal (vars[N / 2], "K0=back");
    assert_null (vars[N / 2 + 1]);
    vars = env_take (e);
    assert_string_equal (vars[N / 2 - 1], "K999=v999");
    env_strv_free (vars);
}

static char *launch_env[] = {
    "PATH=/usr/bin:/bin", "USER=launcher", "HOME=/home/launcher",
    "SLURM_PROCID=99",    "KEEP=me",
};
static uint32_t tasks_32[] = { 3, 2 };
static uint32_t cpus_32[] = { 4, 2 };
static char *argv_hostname[] = { "hostname" };

static void init_32 (struct msg_stepd_init *in, uint32_t node_id)
{
    memset (in, 0, sizeof (*in));
    in->job_id = 5;
    in->step_id = 1;
    in->uid = 1001;
    in->gid = 1002;
    in->user = "alice";
    in->node_id = node_id;
    in->argv = argv_hostname;
    in->argv_count = 1;
    in->env = launch_env;
    in->env_count = 5;
    in->cwd = "/home/alice/run";
    in->io_host = "127.0.0.1";
    in->io_port = 4000;
    in->step_nodelist = "node[1-2]";
    in->tasks = tasks_32;
    in->tasks_count = 2;
    in->cpus = cpus_32;
    in->cpus_count = 2;
    in->job_nodelist = "node[1-4]";
    in->cpus_per_task = 1;
    in->stdin_task = STDIN_ALL;
    in->job_name = "";
}

static struct env *task_env (struct msg_stepd_init *in, const char *node,
                             uint32_t local)
{
    struct env_step s = { in, node, "demo", "/home/alice", NULL, NULL };
    arbor_error_t err = { "" };
    struct env *e = env_task_create (&s, local, &err);

    if (!e)
        fail_msg ("env_task_create: %s", err.text);
    return e;
}

static void expect (struct env *e, const char *key, const char *want)
{
    const char *v = env_get (e, key);

    if (!v)
        fail_msg ("%s is not set", key);
    if (strcmp (v, want) != 0)
        fail_msg ("%s=%s, expected %s", key, v, want);
}

/* Every task of a 2-node step with tasks [3,2]. */
static void test_env_layout_32 (void **state)
{
    const struct {
        uint32_t node, local;
        const char *rank;
    } want[] = {
        { 0, 0, "0" }, { 0, 1, "1" }, { 0, 2, "2" },
        { 1, 0, "3" }, { 1, 1, "4" },
    };
    struct msg_stepd_init in;
    char buf[16];

    for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
        init_32 (&in, want[i].node);
        struct env *e =
            task_env (&in, want[i].node ? "node2" : "node1", want[i].local);
        expect (e, "SLURM_PROCID", want[i].rank);
        expect (e, "ARBOR_PROCID", want[i].rank);
        snprintf (buf, sizeof (buf), "%u", want[i].local);
        expect (e, "SLURM_LOCALID", buf);
        expect (e, "ARBOR_LOCALID", buf);
        snprintf (buf, sizeof (buf), "%u", want[i].node);
        expect (e, "SLURM_NODEID", buf);
        expect (e, "ARBOR_NODEID", buf);
        expect (e, "SLURM_TASKS_PER_NODE", "3,2");
        expect (e, "SLURM_STEP_TASKS_PER_NODE", "3,2");
        expect (e, "SLURM_CPUS_ON_NODE", want[i].node ? "2" : "4");
        expect (e, "SLURMD_NODENAME", want[i].node ? "node2" : "node1");
        env_destroy (e);
    }
}

static void test_env_fields (void **state)
{
    struct msg_stepd_init in;
    struct env *e;

    init_32 (&in, 1);
    e = task_env (&in, "node2", 1);
    expect (e, "SLURM_JOB_ID", "5");
    expect (e, "SLURM_JOBID", "5");
    expect (e, "ARBOR_JOB_ID", "5");
    expect (e, "SLURM_STEP_ID", "1");
    expect (e, "SLURM_STEPID", "1");
    expect (e, "ARBOR_STEP_ID", "1");
    expect (e, "SLURM_NTASKS", "5");
    expect (e, "SLURM_NPROCS", "5");
    expect (e, "ARBOR_NTASKS", "5");
    expect (e, "SLURM_STEP_NUM_TASKS", "5");
    expect (e, "SLURM_NNODES", "2");
    expect (e, "SLURM_STEP_NUM_NODES", "2");
    expect (e, "ARBOR_NNODES", "2");
    expect (e, "SLURM_JOB_NUM_NODES", "4");
    expect (e, "SLURM_JOB_NODELIST", "node[1-4]");
    expect (e, "SLURM_NODELIST", "node[1-4]");
    expect (e, "ARBOR_JOB_NODELIST", "node[1-4]");
    expect (e, "SLURM_STEP_NODELIST", "node[1-2]");
    expect (e, "ARBOR_STEP_NODELIST", "node[1-2]");
    expect (e, "SLURM_SUBMIT_DIR", "/home/alice/run");
    expect (e, "ARBOR_SUBMIT_DIR", "/home/alice/run");
    expect (e, "SLURM_SUBMIT_HOST", "127.0.0.1");
    expect (e, "SLURM_LAUNCH_NODE_IPADDR", "127.0.0.1");
    expect (e, "SLURM_CLUSTER_NAME", "demo");
    expect (e, "ARBOR_CLUSTER_NAME", "demo");
    expect (e, "ARBOR_NODENAME", "node2");
    expect (e, "SLURM_JOB_NAME", "hostname");
    expect (e, "SLURM_JOB_UID", "1001");
    expect (e, "SLURM_JOB_GID", "1002");
    expect (e, "SLURM_JOB_USER", "alice");
    expect (e, "USER", "alice");
    expect (e, "LOGNAME", "alice");
    expect (e, "HOME", "/home/alice");
    expect (e, "PATH", "/usr/bin:/bin");
    expect (e, "KEEP", "me");
    assert_null (env_get (e, "SLURM_CPUS_PER_TASK"));
    assert_null (env_get (e, "SLURM_TASK_PID"));
    env_destroy (e);

    /* Same user as the launcher: USER/HOME kept; -c 2 exported. */
    launch_env[1] = "USER=alice";
    in.cpus_per_task = 2;
    in.job_name = "myjob";
    e = task_env (&in, "node2", 0);
    launch_env[1] = "USER=launcher";
    expect (e, "HOME", "/home/launcher");
    expect (e, "SLURM_CPUS_PER_TASK", "2");
    expect (e, "SLURM_JOB_NAME", "myjob");
    env_destroy (e);
}

static void test_env_bad_layout (void **state)
{
    struct msg_stepd_init in;
    struct env_step s = { &in, "node2", "demo", NULL, NULL, NULL };
    arbor_error_t err = { "" };

    init_32 (&in, 1);
    assert_null (env_task_create (&s, 2, &err));
    assert_int_equal (errno, EINVAL);
    assert_non_null (strstr (err.text, "not in the step layout"));
    in.node_id = 2;
    assert_null (env_task_create (&s, 0, &err));
}

/* srun -m cyclic over tasks [3,2]: node 0 runs 0,2,4 and node 1 runs
 * 1,3, as the stepd's placement (place.h) gives them. */
static void test_env_cyclic (void **state)
{
    static const uint32_t node0[] = { 0, 2, 4 }, node1[] = { 1, 3 };
    struct msg_stepd_init in;
    arbor_error_t err = { "" };
    struct env *e;

    init_32 (&in, 1);
    in.distribution = "cyclic";
    struct env_step s = { &in, "node2", "demo", NULL, node1, NULL };
    e = env_task_create (&s, 1, &err);
    assert_non_null (e);
    expect (e, "SLURM_PROCID", "3");
    expect (e, "ARBOR_PROCID", "3");
    expect (e, "SLURM_LOCALID", "1");
    expect (e, "SLURM_NODEID", "1");
    expect (e, "SLURM_GTIDS", "1,3");
    expect (e, "SLURM_DISTRIBUTION", "cyclic");
    assert_null (env_get (e, "SLURM_DIST_PLANESIZE"));
    env_destroy (e);
    init_32 (&in, 0);
    in.distribution = "plane=2";
    s.ranks = node0;
    s.node_name = "node1";
    e = env_task_create (&s, 2, &err);
    assert_non_null (e);
    expect (e, "SLURM_PROCID", "4");
    expect (e, "SLURM_GTIDS", "0,2,4");
    expect (e, "SLURM_DISTRIBUTION", "plane");
    expect (e, "SLURM_DIST_PLANESIZE", "2");
    env_destroy (e);
    /* no ranks given: block, and SLURM_DISTRIBUTION says so */
    init_32 (&in, 1);
    e = task_env (&in, "node2", 0);
    expect (e, "SLURM_PROCID", "3");
    expect (e, "SLURM_GTIDS", "3,4");
    expect (e, "SLURM_DISTRIBUTION", "block");
    env_destroy (e);
}

/* srun's output variables for the launcher and the node: the launcher's
 * listener as srun's comm host and port, and the node's topology address
 * as Slurm sets it without a topology plugin. */
static void test_env_launcher_and_topology (void **state)
{
    struct msg_stepd_init in;
    struct env *e;

    init_32 (&in, 1);
    e = task_env (&in, "node2", 0);
    expect (e, "SLURM_SRUN_COMM_HOST", "127.0.0.1");
    expect (e, "SLURM_SRUN_COMM_PORT", "4000");
    expect (e, "SLURM_STEP_LAUNCHER_PORT", "4000");
    expect (e, "SLURM_TOPOLOGY_ADDR", "node2");
    expect (e, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
    env_destroy (e);
}

/* SLURM_SUBMIT_DIR and SLURM_SUBMIT_HOST describe the allocation: the
 * launcher's values (arbor alloc's, the batch script's, arbor run's) are
 * kept; ARBOR_SUBMIT_DIR follows SLURM_SUBMIT_DIR. */
static void test_env_submit_from_launcher (void **state)
{
    char *env[] = { "PATH=/bin", "SLURM_SUBMIT_DIR=/home/alice/proj",
                    "SLURM_SUBMIT_HOST=login1", "SLURM_JOB_START_TIME=100" };
    struct msg_stepd_init in;
    struct env *e;

    init_32 (&in, 0);
    in.env = env;
    in.env_count = 4;
    e = task_env (&in, "node1", 0);
    expect (e, "SLURM_SUBMIT_DIR", "/home/alice/proj");
    expect (e, "ARBOR_SUBMIT_DIR", "/home/alice/proj");
    expect (e, "SLURM_SUBMIT_HOST", "login1");
    expect (e, "SLURM_LAUNCH_NODE_IPADDR", "127.0.0.1");
    expect (e, "SLURM_JOB_START_TIME", "100");
    env_destroy (e);
}

/* The batch script: one task on the job's first node, no step or
 * launcher variables, the node's own. */
static void test_env_batch (void **state)
{
    char *env[] = { "PATH=/bin", "SLURM_SUBMIT_DIR=/home/alice",
                    "SLURM_NNODES=2" };
    static uint32_t one[] = { 1 }, cpus[] = { 4 };
    struct msg_stepd_init in;
    struct env *e;

    init_32 (&in, 0);
    in.step_id = STEP_ID_BATCH;
    in.env = env;
    in.env_count = 3;
    in.tasks = one;
    in.tasks_count = 1;
    in.cpus = cpus;
    in.cpus_count = 1;
    in.io_host = "";
    in.io_port = 0;
    e = task_env (&in, "node1", 0);
    expect (e, "SLURM_JOB_ID", "5");
    expect (e, "SLURM_PROCID", "0");
    expect (e, "SLURM_LOCALID", "0");
    expect (e, "SLURM_NODEID", "0");
    expect (e, "SLURM_NNODES", "2");
    expect (e, "SLURM_CPUS_ON_NODE", "4");
    expect (e, "SLURM_JOB_NODELIST", "node[1-4]");
    expect (e, "SLURM_SUBMIT_DIR", "/home/alice");
    expect (e, "SLURMD_NODENAME", "node1");
    expect (e, "SLURM_TOPOLOGY_ADDR", "node1");
    expect (e, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
    expect (e, "SLURM_CLUSTER_NAME", "demo");
    expect (e, "SLURM_JOB_USER", "alice");
    assert_null (env_get (e, "SLURM_STEP_ID"));
    assert_null (env_get (e, "SLURM_STEP_NODELIST"));
    assert_null (env_get (e, "SLURM_SRUN_COMM_HOST"));
    assert_null (env_get (e, "SLURM_SRUN_COMM_PORT"));
    assert_null (env_get (e, "SLURM_LAUNCH_NODE_IPADDR"));
    env_destroy (e);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_tasks_per_node),
        cmocka_unit_test (test_layout),
        cmocka_unit_test (test_env_basic),
        cmocka_unit_test (test_env_many),
        cmocka_unit_test (test_env_layout_32),
        cmocka_unit_test (test_env_fields),
        cmocka_unit_test (test_env_bad_layout),
        cmocka_unit_test (test_env_cyclic),
        cmocka_unit_test (test_env_launcher_and_topology),
        cmocka_unit_test (test_env_submit_from_launcher),
        cmocka_unit_test (test_env_batch),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
