/* conf_test.c - unit tests for arbor.conf parsing. */
#include <errno.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "conf.h"
#include "log.h"
#include "timestr.h"

static struct conf *parse_ok (const char *text)
{
    arbor_error_t err = { "" };
    struct conf *c = conf_parse (text, "test.conf", &err);

    if (!c)
        fail_msg ("parse failed: %s", err.text);
    return c;
}

/* Parsing must fail with exactly 'want' as the error text. */
static void parse_bad (const char *text, const char *want)
{
    arbor_error_t err = { "" };

    errno = 0;
    if (conf_parse (text, "test.conf", &err))
        fail_msg ("parsed, expected '%s'", want);
    assert_int_not_equal (errno, 0);
    assert_string_equal (err.text, want);
}

static void test_defaults (void **state)
{
    struct conf *c = parse_ok ("");

    assert_string_equal (c->path, "test.conf");
    assert_string_equal (c->cluster_name, "arbor");
    assert_string_equal (c->control_addr, "127.0.0.1");
    assert_int_equal (c->ctld_port, CONF_DEFAULT_CTLD_PORT);
    assert_int_equal (c->noded_port, CONF_DEFAULT_NODED_PORT);
    assert_int_equal (c->tree_width, 16);
    assert_int_equal (c->kill_wait, 30);
    assert_int_equal (c->launch_timeout, 10);
    assert_int_equal (c->cred_expire, 300);
    assert_string_equal (c->spool_dir, "/var/spool/arbor/%n");
    assert_string_equal (c->state_save_location, "/var/lib/arbor");
    assert_null (c->munge_socket);
    assert_string_equal (c->arbor_user, "root");
    assert_null (c->ctld_log_file);
    assert_null (c->noded_log_file);
    assert_int_equal (c->debug_level, LOG_LVL_INFO);
    assert_int_equal (c->noded_debug_level, LOG_LVL_INFO);
    assert_null (c->stepd_path);
    assert_int_equal (c->nnodes, 0);
    assert_int_equal (c->nparts, 0);
    assert_null (conf_part_default (c));
    conf_destroy (c);
}

static const char example[] =
    "# the example from conf.h\n"
    "ClusterName=demo\n"
    "ControlAddr=127.0.0.1        # where arbor-ctld listens\n"
    "CtldPort=7817\n"
    "NodedPort=7818\n"
    "TreeWidth=4\n"
    "KillWait=5\n"
    "LaunchTimeout=20\n"
    "\n"
    "SpoolDir=/tmp/spool/%n\n"
    "StateSaveLocation=/tmp/state\n"
    "MungeSocket=/run/munge/munge.socket.2\n"
    "ArborUser=arbortest\n"
    "CtldLogFile=/var/log/arbor/ctld.log\n"
    "NodedLogFile=/var/log/arbor/noded-%n.log\n"
    "DebugLevel=debug\n"
    "NodedDebugLevel=verbose\n"
    "CredExpire=120\n"
    "StepdPath=/usr/sbin/arbor-stepd\n"
    "NodeName=n[1-4] NodeAddr=127.0.1.[1-4] CPUs=4 RealMemory=2000\n"
    "NodeName=big NodeAddr=10.0.0.9 CPUs=64\n"
    "PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE "
    "DefaultTime=60\n"
    "PartitionName=all Nodes=ALL MaxTime=1-0 State=UP\n";

static void test_example (void **state)
{
    struct conf *c = parse_ok (example);
    const struct conf_node *n;
    const struct conf_part *p;

    assert_string_equal (c->cluster_name, "demo");
    assert_int_equal (c->ctld_port, 7817);
    assert_int_equal (c->noded_port, 7818);
    assert_int_equal (c->tree_width, 4);
    assert_int_equal (c->kill_wait, 5);
    assert_int_equal (c->launch_timeout, 20);
    assert_int_equal (c->cred_expire, 120);
    assert_string_equal (c->spool_dir, "/tmp/spool/%n");
    assert_string_equal (c->state_save_location, "/tmp/state");
    assert_string_equal (c->munge_socket, "/run/munge/munge.socket.2");
    assert_string_equal (c->arbor_user, "arbortest");
    assert_string_equal (c->ctld_log_file, "/var/log/arbor/ctld.log");
    assert_string_equal (c->noded_log_file, "/var/log/arbor/noded-%n.log");
    assert_int_equal (c->debug_level, LOG_LVL_DEBUG);
    assert_int_equal (c->noded_debug_level, LOG_LVL_VERBOSE);
    assert_string_equal (c->stepd_path, "/usr/sbin/arbor-stepd");

    assert_int_equal (c->nnodes, 5);
    assert_string_equal (c->nodes[2].name, "n3");
    assert_string_equal (c->nodes[2].addr, "127.0.1.3");
    assert_int_equal (c->nodes[2].cpus, 4);
    assert_int_equal (c->nodes[2].real_memory, 2000);
    n = conf_node_find (c, "big");
    assert_non_null (n);
    assert_string_equal (n->addr, "10.0.0.9");
    assert_int_equal (n->cpus, 64);
    assert_int_equal (n->real_memory, 1);
    assert_int_equal (conf_node_index (c, "big"), 4);
    assert_int_equal (conf_node_index (c, "n1"), 0);
    assert_int_equal (conf_node_index (c, "n5"), -1);
    assert_null (conf_node_find (c, "nope"));

    assert_int_equal (c->nparts, 2);
    p = conf_part_find (c, "debug");
    assert_non_null (p);
    assert_true (p->is_default);
    assert_int_equal (p->nnodes, 4);
    assert_string_equal (p->nodes[3], "n4");
    assert_int_equal (p->max_time, TIME_INFINITE);
    assert_int_equal (p->default_time, 60);
    assert_ptr_equal (conf_part_default (c), p);
    p = conf_part_find (c, "all");
    assert_non_null (p);
    assert_false (p->is_default);
    assert_int_equal (p->nnodes, 5);
    assert_string_equal (p->nodes[4], "big");
    assert_int_equal (p->max_time, 1440);
    assert_int_equal (p->default_time, 1440); /* defaults to MaxTime */
    assert_null (conf_part_find (c, "nope"));
    conf_destroy (c);
}

static void test_aliases_case (void **state)
{
    struct conf *c = parse_ok ("SlurmctldPort=1234 slurmdport=2345\n"
                               "SLURMUSER=nobody clustername=x\n"
                               "SlurmdDebug=debug2 SlurmctldDebug=3\n"
                               "nodename=n1 cpus=2\n"
                               "partitionname=p nodes=n1 default=yes\n");

    assert_int_equal (c->ctld_port, 1234);
    assert_int_equal (c->noded_port, 2345);
    assert_string_equal (c->arbor_user, "nobody");
    assert_string_equal (c->cluster_name, "x");
    assert_int_equal (c->noded_debug_level, LOG_LVL_DEBUG2);
    assert_int_equal (c->debug_level, LOG_LVL_VERBOSE);
    assert_int_equal (c->nodes[0].cpus, 2);
    assert_true (c->parts[0].is_default);
    conf_destroy (c);
}

static void test_syntax (void **state)
{
    struct conf *c = parse_ok ("   # indented comment\n"
                               "ClusterName=\"my cluster\"  KillWait=7\r\n"
                               "SpoolDir=\"/a#b\"#comment\n"
                               "TreeWidth=5 # trailing\n"
                               "\t\n");

    assert_string_equal (c->cluster_name, "my cluster");
    assert_int_equal (c->kill_wait, 7);
    assert_string_equal (c->spool_dir, "/a#b");
    assert_int_equal (c->tree_width, 5);
    conf_destroy (c);
}

static void test_errors (void **state)
{
    parse_bad ("ClusterName=a\nFoo=1\n", "test.conf:2: unknown key 'Foo'");
    parse_bad ("NodeName=n1 CPUs=x\n",
               "test.conf:1: CPUs: 'x' is not a number");
    parse_bad ("NodeName=n1 RealMemory=-5\n",
               "test.conf:1: RealMemory: '-5' must not be negative");
    parse_bad ("KillWait=-5\n",
               "test.conf:1: KillWait: '-5' must not be negative");
    /* A scalar set twice, even through its Slurm alias, is refused. */
    parse_bad ("CtldPort=7000\nTreeWidth=2\nCtldPort=7001\n",
               "test.conf:3: CtldPort: set twice (first on line 1)");
    parse_bad ("NodedPort=7000 SlurmdPort=7001\n",
               "test.conf:1: SlurmdPort: set twice (first on line 1)");
    parse_bad ("\n\nClusterName\n",
               "test.conf:3: 'ClusterName': expected Key=Value");
    parse_bad ("=5\n", "test.conf:1: '=5': expected Key=Value");
    parse_bad ("ClusterName=\n", "test.conf:1: ClusterName: missing value");
    parse_bad ("ClusterName=\"abc\n", "test.conf:1: unterminated quote");
    parse_bad ("CtldPort=0\n",
               "test.conf:1: CtldPort: 0 is out of range (1-65535)");
    parse_bad ("SlurmdPort=65536\n",
               "test.conf:1: NodedPort: 65536 is out of range (1-65535)");
    parse_bad ("TreeWidth=0\n",
               "test.conf:1: TreeWidth: 0 is out of range (1-4294967294)");
    parse_bad ("KillWait=99999999999999999999\n",
               "test.conf:1: KillWait: 99999999999999999999 is out of range "
               "(0-4294967294)");
    parse_bad ("DebugLevel=loud\n",
               "test.conf:1: DebugLevel: 'loud' is not a log level (error, "
               "warning, info, verbose, debug, debug2)");
    parse_bad ("NodeName=n1 TreeWidth=3\n",
               "test.conf:1: unknown key 'TreeWidth'");
    parse_bad ("ClusterName=x NodeName=n1\n",
               "test.conf:1: NodeName: must start its line");
}

static void test_node_errors (void **state)
{
    parse_bad ("NodeName=n[1-4] NodeAddr=127.0.1.[1-3]\n",
               "test.conf:1: NodeAddr: 3 addresses for 4 nodes");
    parse_bad ("NodeName=n[1-2] NodeAddr=127.0.0.1\n",
               "test.conf:1: NodeAddr: 1 addresses for 2 nodes");
    parse_bad ("NodeName=n[1-3]\nNodeName=x,n2\n",
               "test.conf:2: NodeName: duplicate node 'n2'");
    parse_bad ("NodeName=n[3-1]\n",
               "test.conf:1: NodeName: hostlist 'n[3-1]': range 3-1 is "
               "decreasing");
    parse_bad ("NodeName=n1 NodeAddr=a[\n",
               "test.conf:1: NodeAddr: hostlist 'a[': missing ']'");
}

static void test_node_default (void **state)
{
    struct conf *c = parse_ok ("NodeName=DEFAULT CPUs=8 RealMemory=100\n"
                               "NodeName=a[1-2]\n"
                               "NodeName=b CPUs=2\n"
                               "NodeName=DEFAULT CPUs=16\n"
                               "NodeName=c\n");

    assert_int_equal (c->nnodes, 4);
    assert_int_equal (c->nodes[0].cpus, 8);
    assert_int_equal (c->nodes[1].real_memory, 100);
    assert_string_equal (c->nodes[1].addr, "a2"); /* addr defaults to name */
    assert_int_equal (c->nodes[2].cpus, 2);
    assert_int_equal (c->nodes[3].cpus, 16);
    assert_int_equal (c->nodes[3].real_memory, 100);
    conf_destroy (c);
    parse_bad ("NodeName=DEFAULT NodeAddr=x\n",
               "test.conf:1: NodeAddr: not allowed for NodeName=DEFAULT");
}

static void test_partitions (void **state)
{
    struct conf *c;

    /* No default marked: the first partition. Nodes may come later. */
    c = parse_ok ("PartitionName=a Nodes=n[2-3] MaxTime=30\n"
                  "PartitionName=b Nodes=n1\n"
                  "PartitionName=empty\n"
                  "NodeName=n[1-3]\n");
    assert_string_equal (conf_part_default (c)->name, "a");
    assert_false (c->parts[0].is_default);
    assert_int_equal (c->parts[0].nnodes, 2);
    assert_string_equal (c->parts[0].nodes[0], "n2");
    assert_int_equal (c->parts[0].max_time, 30);
    assert_int_equal (c->parts[0].default_time, 30);
    assert_int_equal (c->parts[2].nnodes, 0);
    assert_null (c->parts[2].nodes);
    conf_destroy (c);

    c = parse_ok ("NodeName=n1\nPartitionName=a Nodes=n1 Default=NO\n"
                  "PartitionName=b Nodes=n1 Default=YES\n");
    assert_string_equal (conf_part_default (c)->name, "b");
    conf_destroy (c);

    c = parse_ok ("NodeName=n1\n"
                  "PartitionName=DEFAULT MaxTime=2:00:00\n"
                  "PartitionName=p Nodes=n1\n"
                  "PartitionName=q Nodes=n1 DefaultTime=10\n");
    assert_int_equal (c->parts[0].max_time, 120);
    assert_int_equal (c->parts[0].default_time, 120);
    assert_int_equal (c->parts[1].max_time, 120);
    assert_int_equal (c->parts[1].default_time, 10);
    conf_destroy (c);
}

static void test_partition_errors (void **state)
{
    parse_bad ("NodeName=n[1-2]\nPartitionName=p Nodes=n[1-3]\n",
               "test.conf:2: Nodes: node 'n3' is not defined");
    parse_bad ("NodeName=n1\nPartitionName=a Nodes=n1 Default=YES\n"
               "PartitionName=b Nodes=n1 Default=YES\n",
               "test.conf:3: Default: partition 'a' is already the default");
    parse_bad ("PartitionName=a\nPartitionName=a\n",
               "test.conf:2: PartitionName: duplicate partition 'a'");
    parse_bad ("PartitionName=a Default=maybe\n",
               "test.conf:1: Default: 'maybe' is not YES or NO");
    parse_bad ("PartitionName=a MaxTime=1:2:3:4\n",
               "test.conf:1: MaxTime: '1:2:3:4' is not a time limit (M, "
               "M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED)");
    parse_bad ("PartitionName=a MaxTime=10 DefaultTime=20\n",
               "test.conf:1: DefaultTime: exceeds MaxTime");
    parse_bad ("PartitionName=a State=DOWN\n",
               "test.conf:1: State: 'DOWN': only UP is supported");
    parse_bad ("PartitionName=a Shared=YES\n",
               "test.conf:1: unknown key 'Shared'");
    parse_bad ("NodeName=n1\nPartitionName=a Nodes=n[1-\n",
               "test.conf:2: Nodes: hostlist 'n[1-': missing ']'");
}

static void test_expand (void **state)
{
    char *s;

    s = conf_expand ("/var/spool/arbor/%n", "node3");
    assert_string_equal (s, "/var/spool/arbor/node3");
    free (s);
    s = conf_expand ("%n-%n:%%n:100%%:%x:%", "a");
    assert_string_equal (s, "a-a:%n:100%:%x:%");
    free (s);
    s = conf_expand ("plain", "a");
    assert_string_equal (s, "plain");
    free (s);
    s = conf_expand ("x%ny", NULL);
    assert_string_equal (s, "xy");
    free (s);
    assert_null (conf_expand (NULL, "a"));
}

static void test_default_path (void **state)
{
    unsetenv ("ARBOR_CONF");
    unsetenv ("SLURM_CONF");
    /* ARBOR_SYSCONFDIR is private to the library: check the shape. */
    const char *d = conf_default_path ();
    assert_true (d[0] == '/');
    assert_true (strlen (d) > 11);
    assert_string_equal (d + strlen (d) - 11, "/arbor.conf");
    setenv ("SLURM_CONF", "/s.conf", 1);
    assert_string_equal (conf_default_path (), "/s.conf");
    setenv ("ARBOR_CONF", "/a.conf", 1);
    assert_string_equal (conf_default_path (), "/a.conf");
    unsetenv ("ARBOR_CONF");
    unsetenv ("SLURM_CONF");
}

static void test_load (void **state)
{
    char path[] = "/tmp/conf_test.XXXXXX";
    int fd = mkstemp (path);
    arbor_error_t err = { "" };
    char want[256];
    struct conf *c;

    assert_true (fd >= 0);
    assert_true (write (fd, example, strlen (example))
                 == (ssize_t)strlen (example));
    assert_int_equal (write (fd, "Bogus=1\n", 8), 8);
    close (fd);
    errno = 0;
    assert_null (conf_load (path, &err));
    assert_int_equal (errno, EINVAL);
    snprintf (want, sizeof (want), "%s:24: unknown key 'Bogus'", path);
    assert_string_equal (err.text, want);
    assert_int_equal (truncate (path, (off_t)strlen (example)), 0);
    c = conf_load (path, &err);
    assert_non_null (c);
    assert_string_equal (c->path, path);
    assert_int_equal (c->nnodes, 5);
    conf_destroy (c);
    /* NULL path: conf_default_path(). */
    setenv ("ARBOR_CONF", path, 1);
    c = conf_load (NULL, &err);
    assert_non_null (c);
    assert_string_equal (c->cluster_name, "demo");
    conf_destroy (c);
    unsetenv ("ARBOR_CONF");
    unlink (path);
    errno = 0;
    assert_null (conf_load (path, &err));
    assert_int_equal (errno, ENOENT);
    snprintf (want, sizeof (want), "%s: No such file or directory", path);
    assert_string_equal (err.text, want);
}

static void test_arbor_uid (void **state)
{
    struct conf *c = parse_ok ("");
    struct passwd *pw;

    assert_int_equal (conf_arbor_uid (c), 0);
    free (c->arbor_user);
    c->arbor_user = strdup ("4242");
    assert_int_equal (conf_arbor_uid (c), 4242);
    free (c->arbor_user);
    c->arbor_user = strdup ("no-such-user-xyz");
    assert_int_equal (conf_arbor_uid (c), -1);
    if ((pw = getpwnam ("nobody"))) {
        free (c->arbor_user);
        c->arbor_user = strdup ("nobody");
        assert_int_equal (conf_arbor_uid (c), (long)pw->pw_uid);
    }
    conf_destroy (c);
}

/* A large emulated cluster parses quickly and finds duplicates. */
static void test_many_nodes (void **state)
{
    struct conf *c = parse_ok ("NodeName=n[1-20000] "
                               "NodeAddr=10.0.[0-199].[1-100]\n"
                               "PartitionName=p Nodes=ALL\n");

    assert_int_equal (c->nnodes, 20000);
    assert_string_equal (c->nodes[19999].addr, "10.0.199.100");
    assert_int_equal (c->parts[0].nnodes, 20000);
    conf_destroy (c);
    parse_bad ("NodeName=n[1-20000]\nNodeName=n19999\n",
               "test.conf:2: NodeName: duplicate node 'n19999'");
}

/* Termination and containment keys, and conf_get() for plugins. */
static void test_containment_keys (void **state)
{
    struct conf *c = parse_ok ("NodeName=n1\n");

    assert_string_equal (c->proctrack_type, "proctrack/cgroup");
    assert_string_equal (c->task_plugin, "none");
    assert_string_equal (c->cgroup_root, "arbor");
    assert_null (c->epilog);
    assert_int_equal (c->unkillable_step_timeout, 60);
    assert_int_equal (c->over_time_limit, 0);
    assert_null (conf_get (c, "CgroupRoot"));
    conf_destroy (c);

    c = parse_ok ("ProctrackType=proctrack/pgid\n"
                  "Epilog=/bin/true UnkillableStepTimeout=5 OverTimeLimit=2\n"
                  "SlurmdPort=7000 CgroupRoot=test/b\nNodeName=n1\n");
    assert_string_equal (c->proctrack_type, "proctrack/pgid");
    assert_string_equal (c->epilog, "/bin/true");
    assert_int_equal (c->unkillable_step_timeout, 5);
    assert_int_equal (c->over_time_limit, 2);
    assert_string_equal (conf_get (c, "CGROUPROOT"), "test/b");
    assert_string_equal (conf_get (c, "NodedPort"), "7000");
    assert_string_equal (conf_get (c, "SlurmdPort"), "7000");
    assert_null (conf_get (c, "NoSuchKey"));
    conf_destroy (c);
    parse_bad ("UnkillableStepTimeout=0\n",
               "test.conf:1: UnkillableStepTimeout: 0 is out of range "
               "(1-4294967294)");
}

/* MpiDefault is checked and stored canonical; MpiParams is kept as
 * written for the stepd to read. */
static void test_mpi_keys (void **state)
{
    struct conf *c = parse_ok ("NodeName=n1\n");

    assert_string_equal (c->mpi_default, "none");
    assert_null (c->mpi_params);
    conf_destroy (c);
    c = parse_ok ("MpiDefault=PMIx_v4 MpiParams=tree_width=4\nNodeName=n1\n");
    assert_string_equal (c->mpi_default, "pmix");
    assert_string_equal (c->mpi_params, "tree_width=4");
    assert_string_equal (conf_get (c, "MpiDefault"), "PMIx_v4");
    conf_destroy (c);
    parse_bad ("MpiDefault=openmpi\n",
               "test.conf:1: MpiDefault: 'openmpi' is not an MPI type "
               "(none, pmix, pmi2)");
    assert_string_equal (conf_mpi_type ("pmi2"), "pmi2");
    assert_string_equal (conf_mpi_type ("pmix_v3"), "pmix");
    assert_string_equal (conf_mpi_type ("NONE"), "none");
    assert_null (conf_mpi_type ("pmix_v9"));
    assert_null (conf_mpi_type (""));
    assert_null (conf_mpi_type (NULL));
}

/* The emulation rule: nodes on loopback addresses nest their cgroups. */
static const char nest_conf_text[] =
    "NodeName=node[1-2] NodeAddr=127.0.1.[1-2] CPUs=8\n"
    "NodeName=lo NodeAddr=localhost\n"
    "NodeName=six NodeAddr=::1\n"
    "NodeName=real NodeAddr=10.1.2.3 CPUs=2\n"
    "NodeName=named CPUs=2\n"
    "NodeName=127.5.5.5\n"
    "NodeName=near NodeAddr=128.0.0.1\n"
    "PartitionName=p Nodes=ALL Default=YES\n";

/* Features=, Gres= (per node, NodeName=DEFAULT too), GresTypes,
 * ConstrainDevices (issue 35). */
static void test_gres_features_keys (void **state)
{
    struct conf *c =
        parse_ok ("GresTypes=gpu,nic\nConstrainDevices=yes\n"
                  "NodeName=DEFAULT Features=ib Gres=nic:1\n"
                  "NodeName=n[1-2] Gres=gpu:a100:4,nic:1 Features=a100,ib\n"
                  "NodeName=n3\n");

    (void)state;
    assert_true (c->constrain_devices);
    assert_string_equal (c->gres_types, "gpu,nic");
    assert_string_equal (c->nodes[1].features, "a100,ib");
    assert_string_equal (c->nodes[1].gres, "gpu:a100:4,nic:1");
    assert_string_equal (c->nodes[2].features, "ib"); /* the DEFAULT's */
    assert_string_equal (c->nodes[2].gres, "nic:1");
    conf_destroy (c);
    parse_bad ("NodeName=n1 Gres=gpu:2\n",
               "test.conf:1: Gres: 'gpu' is not in GresTypes (add "
               "GresTypes=gpu)");
    parse_bad ("GresTypes=gpu\nNodeName=n1 Gres=gpu:0\n",
               "test.conf:2: Gres: invalid value \"gpu:0\": a count of at "
               "least 1 expected");
    parse_bad ("NodeName=n1 Features=a,,b\n",
               "test.conf:1: Features: 'a,,b': an empty feature name");
    parse_bad ("NodeName=n1 Features=a/b\n",
               "test.conf:1: Features: 'a/b': '/' cannot be in a feature "
               "name");
}

static void test_node_nests (void **state)
{
    arbor_error_t err = { "" };
    struct conf *c = conf_parse (nest_conf_text, "test.conf", &err);

    if (!c)
        fail_msg ("%s", err.text);
    assert_true (conf_node_nests (c, "node1"));
    assert_true (conf_node_nests (c, "node2"));
    assert_true (conf_node_nests (c, "lo"));
    assert_true (conf_node_nests (c, "six"));
    assert_true (conf_node_nests (c, "127.5.5.5")); /* addr defaults to name */
    assert_false (conf_node_nests (c, "real"));
    assert_false (conf_node_nests (c, "named"));
    assert_false (conf_node_nests (c, "near"));
    assert_false (conf_node_nests (c, "nosuchnode"));
    assert_false (conf_node_nests (c, NULL));
    assert_false (conf_node_nests (NULL, "node1"));
    conf_destroy (c);
}

/* NodesShareHost=YES: nodes on real addresses (arbor local --netns) nest
 * too; unknown nodes still do not. */
static void test_node_nests_shared_host (void **state)
{
    arbor_error_t err = { "" };
    struct conf *c = conf_parse ("NodesShareHost=YES\n"
                                 "NodeName=n[1-2] NodeAddr=10.211.7.[1-2]\n"
                                 "PartitionName=p Nodes=ALL Default=YES\n",
                                 "test.conf", &err);

    if (!c)
        fail_msg ("%s", err.text);
    assert_true (c->nodes_share_host);
    assert_true (conf_node_nests (c, "n1"));
    assert_true (conf_node_nests (c, "n2"));
    assert_false (conf_node_nests (c, "nosuchnode"));
    conf_destroy (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_node_nests),
        cmocka_unit_test (test_node_nests_shared_host),
        cmocka_unit_test (test_gres_features_keys),
        cmocka_unit_test (test_defaults),
        cmocka_unit_test (test_example),
        cmocka_unit_test (test_aliases_case),
        cmocka_unit_test (test_syntax),
        cmocka_unit_test (test_errors),
        cmocka_unit_test (test_node_errors),
        cmocka_unit_test (test_node_default),
        cmocka_unit_test (test_partitions),
        cmocka_unit_test (test_partition_errors),
        cmocka_unit_test (test_expand),
        cmocka_unit_test (test_default_path),
        cmocka_unit_test (test_load),
        cmocka_unit_test (test_arbor_uid),
        cmocka_unit_test (test_many_nodes),
        cmocka_unit_test (test_containment_keys),
        cmocka_unit_test (test_mpi_keys),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
