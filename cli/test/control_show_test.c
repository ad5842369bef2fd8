/* control_show_test.c - arbor control show's pure parts on hand-built
 * job views (jobview.h) and replies: the record layout (control_rec),
 * the value formats, the job, step, node and partition views and their
 * text (also from an older controller's shorter lists), show config's
 * lines, show hostnames and hostlist, and the --json records, whose
 * members must be exactly the "required" list of the shipped schema
 * (docs/schema/), in that order.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "conf.h"
#include "control/control.h"
#include "jobview_make.h"
#include "proto.h"
#include "timestr.h"

/* The text of 'rec', freed by the caller; the record is cleared. */
static char *rec_text (struct control_rec *rec, bool oneliner)
{
    char *t = control_rec_text (rec, oneliner);

    assert_non_null (t);
    control_rec_clear (rec);
    return t;
}

/* Does 'text' hold 'word' as a whole KEY=VALUE word (space, newline or
 * start before it; space, newline or end after it)? */
static void has_word (const char *text, const char *word)
{
    size_t n = strlen (word);

    for (const char *p = text; (p = strstr (p, word)); p++)
        if ((p == text || p[-1] == ' ' || p[-1] == '\n')
            && (p[n] == ' ' || p[n] == '\n' || !p[n]))
            return;
    fail_msg ("'%s' not in:\n%s", word, text);
}

/* ---- layout and values --------------------------------------------------- */

static void test_rec_layout (void **state)
{
    struct control_rec rec = { 0 };
    char *t;

    (void)state;
    assert_int_equal (control_rec_add (&rec, "JobId=%d JobName=%s", 5, "sim"),
                      0);
    control_rec_add (&rec, "UserId=alice(1001)");
    control_rec_add (&rec, "Power=");
    t = control_rec_text (&rec, false);
    assert_string_equal (t, "JobId=5 JobName=sim\n   UserId=alice(1001)\n"
                            "   Power=\n\n");
    free (t);
    t = rec_text (&rec, true);
    assert_string_equal (t, "JobId=5 JobName=sim UserId=alice(1001) Power=\n");
    free (t);
    assert_int_equal (rec.n, 0);
    /* one line: no indent at all */
    control_rec_add (&rec, "PartitionName=debug");
    t = rec_text (&rec, false);
    assert_string_equal (t, "PartitionName=debug\n\n");
    free (t);
    control_rec_clear (NULL);
}

static void test_values (void **state)
{
    char b[64];

    (void)state;
    assert_string_equal (control_duration (0, b, sizeof (b)), "00:00:00");
    assert_string_equal (control_duration (-5, b, sizeof (b)), "00:00:00");
    assert_string_equal (control_duration (3661, b, sizeof (b)), "01:01:01");
    assert_string_equal (control_duration (90061, b, sizeof (b)), "1-01:01:01");
    assert_string_equal (control_limit (TIME_INFINITE, b, sizeof (b)),
                         "UNLIMITED");
    assert_string_equal (control_limit (30, b, sizeof (b)), "00:30:00");
    assert_string_equal (control_limit (1500, b, sizeof (b)), "1-01:00:00");
    assert_string_equal (control_mem (0, b, sizeof (b)), "0");
    assert_string_equal (control_mem (512, b, sizeof (b)), "512M");
    assert_string_equal (control_mem (1536, b, sizeof (b)), "1536M");
    assert_string_equal (control_mem (8192, b, sizeof (b)), "8G");
    assert_string_equal (control_mem (2097152, b, sizeof (b)), "2T");
    assert_string_equal (control_null (NULL), "(null)");
    assert_string_equal (control_null (""), "(null)");
    assert_string_equal (control_null ("x"), "x");
    assert_string_equal (control_time (0, b, sizeof (b)), "Unknown");
    /* main() runs under TZ=UTC */
    assert_string_equal (control_time (1767323045, b, sizeof (b)),
                         "2026-01-02T03:04:05");
}

/* ---- jobs ---------------------------------------------------------------- */

/* Job 7: a running batch job with every 2.8 list; job 9: task 2 of
 * array 8, pending, planned to start at 1767326000. */
static const uint32_t ids[] = { 7, 9 }, arrays[] = { 0, 8 }, tasks[] = { 0, 2 };
static const char *const names[] = { "sim", "arr" }, *const users[] = {
    "root", "root"
};
static const char *const parts[] = { "debug", "debug" };
static const char *const states[] = { "RUNNING", "PENDING" };
static const char *const reasons[] = { "", "Resources" };
static const char *const nodelists[] = { "node[1-2]", "" };
static const uint32_t nnodes[] = { 2, 1 }, ncpus[] = { 8, 2 };
static const uint32_t limits[] = { 60, 30 };
static const uint64_t starts[] = { 1767323046, 0 };
static const uint32_t nsteps[] = { 2, 0 };
static const uint64_t submits[] = { 1767323045, 1767323050 };
static const char *const dirs[] = { "/home/alice", "/tmp" };
static const char *const outs[] = { "/home/alice/slurm-7.out", "" };
static const char *const errs[] = { "/home/alice/slurm-7.err", "" };
static const char *const deps[] = { "", "afterok:7" };
static const uint32_t batchf[] = { 1, 0 }, restarts[] = { 1, 0 };
static const uint64_t expected[] = { 0, 1767326000 };
static const char *const accounts[] = { "phys", "" };
static const char *const qos[] = { "high", NULL }; /* 9: before 2.14 */
static const uint32_t prios[] = { 0, 4242 };
static const char *const commands[] = { "/home/alice/job.sh", "sleep 5" };
static const uint32_t uids[] = { 1001, 1002 }, gids[] = { 100, 100 };
static const int32_t nices[] = { 0, -5 };
static const uint32_t ntasks[] = { 8, 2 }, cpt[] = { 1, 1 };
static const uint64_t mem_node[] = { 2048, 0 }, mem_cpu[] = { 0, 512 };
static const uint64_t eligibles[] = { 1767323045, 0 };
static const bool requeues[] = { true, false };
static const char *const reqs[] = { "node[1-2]", "" }, *const excs[] = {
    "", "node3"
};
static const char *const hosts[] = { "login1", "" }, *const ins[] = {
    "/dev/null", ""
};

/* Job k's identity, state and times. */
static void job_view_life (struct job_view *v, int k)
{
    v->rec.id = ids[k];
    v->rec.array_job_id = arrays[k];
    v->rec.array_task_id = tasks[k];
    jvm_set (&v->rec.name, names[k]);
    jvm_set (&v->rec.user, users[k]);
    v->rec.uid = uids[k];
    v->rec.gid = gids[k];
    jvm_set (&v->rec.partition, parts[k]);
    jvm_set (&v->rec.state_shown, states[k]);
    jvm_set (&v->rec.reason, reasons[k]);
    jvm_set (&v->rec.dependency, deps[k]);
    jvm_set (&v->rec.account, accounts[k]);
    jvm_set (&v->rec.qos, qos[k]);
    v->rec.priority = prios[k];
    v->req.nice = nices[k];
    v->rec.time_limit = limits[k];
    v->rec.start_time = starts[k];
    v->rec.submit_time = submits[k];
    v->rec.eligible_time = eligibles[k];
    v->rec.expected_start = expected[k];
    v->rec.batch_id = batchf[k]; /* a batch job has a BATCH_REC */
    v->rec.restarts = restarts[k];
    v->rec.requeue = requeues[k];
}

/* Job k's resources, files and command. */
static void job_view_res (struct job_view *v, int k)
{
    jvm_set (&v->rec.nodelist, nodelists[k]);
    jvm_set (&v->rec.req_nodelist, reqs[k]);
    jvm_set (&v->rec.exc_nodelist, excs[k]);
    jvm_set (&v->rec.submit_host, hosts[k]);
    v->rec.nnodes = nnodes[k];
    v->rec.ncpus = ncpus[k];
    v->rec.ntasks = ntasks[k];
    v->rec.cpus_per_task = cpt[k];
    v->rec.mem_per_node = mem_node[k];
    v->rec.mem_per_cpu = mem_cpu[k];
    v->rec.nsteps = nsteps[k];
    jvm_set (&v->req.cwd, dirs[k]);
    jvm_set (&v->req.command, commands[k]);
    jvm_set (&v->rec.std_in, ins[k]);
    jvm_set (&v->rec.std_out, outs[k]);
    jvm_set (&v->rec.std_err, errs[k]);
}

/* Jobs 7 and 9, as views. */
static struct job_list job_views (void)
{
    struct job_list l = { 0 };

    for (int k = 0; k < 2; k++) {
        struct job_view v = { 0 };
        job_view_life (&v, k);
        job_view_res (&v, k);
        jvm_push (&l, &v);
    }
    return l;
}

static char *job_text (const struct control_job *j)
{
    struct control_rec rec = { 0 };

    assert_int_equal (control_job_text (j, &rec), 0);
    return rec_text (&rec, false);
}

static void test_job_running (void **state)
{
    struct job_list l = job_views ();
    struct control_job j;
    char *t;

    (void)state;
    control_job_get (&l.jobs[0], 1767323046 + 125, &j);
    assert_int_equal (j.run_secs, 125);
    assert_string_equal (j.batch_host, "node1");
    assert_int_equal (j.mem_total, 4096); /* 2048 on each of 2 nodes */
    t = job_text (&j);
    /* scontrol's first line, then three-space indented lines */
    assert_true (
        !strncmp (t, "JobId=7 JobName=sim\n   UserId=root(1001) ",
                  strlen ("JobId=7 JobName=sim\n   UserId=root(1001) ")));
    assert_non_null (strstr (t, "\n\n"));
    assert_string_equal (strstr (t, "\n\n"), "\n\n");
    has_word (t, "JobState=RUNNING");
    has_word (t, "Reason=None");
    has_word (t, "Dependency=(null)");
    has_word (t, "Account=phys");
    has_word (t, "QOS=high");
    has_word (t, "Requeue=1");
    has_word (t, "Restarts=1");
    has_word (t, "BatchFlag=1");
    has_word (t, "ExitCode=0:0");
    has_word (t, "RunTime=00:02:05");
    has_word (t, "TimeLimit=01:00:00");
    has_word (t, "SubmitTime=2026-01-02T03:04:05");
    has_word (t, "StartTime=2026-01-02T03:04:06");
    has_word (t, "EndTime=2026-01-02T04:04:06"); /* at its limit */
    has_word (t, "NodeList=node[1-2]");
    has_word (t, "BatchHost=node1");
    has_word (t, "ReqNodeList=node[1-2]");
    has_word (t, "ExcNodeList=(null)");
    has_word (t, "AllocNode:Sid=login1:0");
    has_word (t, "NumNodes=2");
    has_word (t, "NumCPUs=8");
    has_word (t, "NumTasks=8");
    has_word (t, "TRES=cpu=8,mem=4G,node=2,billing=8");
    has_word (t, "MinMemoryNode=2G");
    has_word (t, "Command=/home/alice/job.sh");
    has_word (t, "StdOut=/home/alice/slurm-7.out");
    has_word (t, "StdErr=/home/alice/slurm-7.err");
    has_word (t, "StdIn=/dev/null");
    has_word (t, "RunningSteps=2");
    assert_null (strstr (t, "Steps=7")); /* only with -d */
    free (t);
    j.steps = "7.batch,7.0";
    t = job_text (&j);
    has_word (t, "Steps=7.batch,7.0");
    free (t);
    job_list_clear (&l);
}

static void test_job_pending_array (void **state)
{
    struct job_list l = job_views ();
    struct control_job j;
    json_t *o;
    char *t;

    (void)state;
    control_job_get (&l.jobs[1], 1767323100, &j);
    assert_int_equal (j.run_secs, 0);
    t = job_text (&j);
    assert_true (!strncmp (t,
                           "JobId=9 ArrayJobId=8 ArrayTaskId=2 JobName=arr\n",
                           strlen ("JobId=9 ArrayJobId=8 ArrayTaskId=2 "
                                   "JobName=arr\n")));
    has_word (t, "JobState=PENDING");
    has_word (t, "Reason=Resources");
    has_word (t, "Dependency=afterok:7");
    has_word (t, "Priority=4242");
    has_word (t, "Nice=-5");
    has_word (t, "Account=(null)");
    has_word (t, "QOS=normal"); /* the record names none */
    has_word (t, "BatchFlag=0");
    has_word (t, "EligibleTime=Unknown");
    /* the planned start, and the end at its limit after it */
    has_word (t, "StartTime=2026-01-02T03:53:20");
    has_word (t, "EndTime=2026-01-02T04:23:20");
    has_word (t, "NodeList=(null)");
    has_word (t, "ExcNodeList=node3");
    has_word (t, "TRES=cpu=2,mem=1G,node=1,billing=2");
    has_word (t, "MinMemoryCPU=512M");
    /* not a batch job: no StdIn/StdOut/StdErr, no BatchHost */
    assert_null (strstr (t, "StdOut="));
    assert_null (strstr (t, "BatchHost="));
    free (t);
    /* folded with the array's other pending tasks: one record, the tasks
     * as a range, as scontrol shows a pending array */
    j.array_tasks = "2-7";
    t = job_text (&j);
    assert_true (!strncmp (t,
                           "JobId=9 ArrayJobId=8 ArrayTaskId=2-7 JobName=arr\n",
                           strlen ("JobId=9 ArrayJobId=8 ArrayTaskId=2-7 "
                                   "JobName=arr\n")));
    free (t);
    o = control_json_job (&j);
    assert_true (json_is_null (json_object_get (o, "array_task_id")));
    assert_string_equal (
        json_string_value (json_object_get (o, "array_task_string")), "2-7");
    json_decref (o);
    job_list_clear (&l);
}

static void test_job_ended_signal (void **state)
{
    struct job_list l = job_views ();
    struct control_job j;
    char *t;

    (void)state;
    l.jobs[0].rec.end_time = 1767323046 + 3600 * 25;
    l.jobs[0].rec.exit_rc = 128 + 9;
    control_job_get (&l.jobs[0], 0, &j);
    t = job_text (&j);
    has_word (t, "ExitCode=0:9");
    has_word (t, "RunTime=1-01:00:00");
    has_word (t, "EndTime=2026-01-03T04:04:06");
    free (t);
    l.jobs[0].rec.exit_rc = 3;
    control_job_get (&l.jobs[0], 0, &j);
    t = job_text (&j);
    has_word (t, "ExitCode=3:0");
    free (t);
    job_list_clear (&l);
}

/* A controller before 2.8 sends none of uids ... std_ins, and one before
 * 2.3 not even the times: a view with those zero and unset (as
 * jobview_from_lists makes it) gives zeros and unset values, never a
 * crash. */
static void test_job_older_controller (void **state)
{
    struct job_list l = { 0 };
    struct job_view v = { 0 };
    struct control_job j;
    char *t;

    (void)state;
    v.rec.id = 3;
    jvm_set (&v.rec.name, "old");
    jvm_set (&v.rec.user, "root");
    jvm_set (&v.rec.state_shown, "PENDING");
    jvm_push (&l, &v);
    control_job_get (&l.jobs[0], 1000, &j);
    assert_int_equal (j.time_limit, TIME_INFINITE);
    assert_int_equal (j.cpus_per_task, 1);
    t = job_text (&j);
    has_word (t, "JobId=3");
    has_word (t, "UserId=root(0)"); /* root's uid from this host */
    has_word (t, "GroupId=root(0)");
    has_word (t, "Nice=0");
    has_word (t, "Reason=None");
    has_word (t, "TimeLimit=UNLIMITED");
    has_word (t, "SubmitTime=Unknown");
    has_word (t, "Partition=(null)");
    has_word (t, "ReqNodeList=(null)");
    has_word (t, "NumTasks=0");
    has_word (t, "CPUs/Task=1");
    has_word (t, "TRES=cpu=0,node=0,billing=0");
    has_word (t, "WorkDir=(null)");
    has_word (t, "RunningSteps=0");
    free (t);
    job_list_clear (&l);
}

/* ---- steps --------------------------------------------------------------- */

static void test_steps (void **state)
{
    uint32_t jid[] = { 7, 9 }, sid[] = { 0, STEP_ID_BATCH };
    uint32_t arr[] = { 0, 8 }, tsk[] = { 0, 2 };
    char *nm[] = { "hostname", "batch" }, *us[] = { "alice", "bob" };
    char *pt[] = { "debug", "debug" }, *nl[] = { "node[1-3]", "node4" };
    uint32_t st[] = { 1767323047, 1767323048 }, nt[] = { 6, 1 };
    uint32_t ui[] = { 1001, 1002 }, cp[] = { 6, 1 }, mm[] = { 3072, 0 };
    struct msg_step_info_reply r = { 0 };
    struct control_rec rec = { 0 };
    struct control_step s;
    char *t;

    (void)state;
#define SET(f, v) (r.f = v, r.f##_count = 2)
    SET (job_ids, jid);
    SET (step_ids, sid);
    SET (array_job_ids, arr);
    SET (array_task_ids, tsk);
    SET (names, nm);
    SET (users, us);
    SET (partitions, pt);
    SET (nodelists, nl);
    SET (start_times, st);
    SET (ntasks, nt);
    SET (uids, ui);
    SET (cpus, cp);
    SET (mem_mbs, mm);
#undef SET
    control_step_get (&r, 0, &s);
    assert_string_equal (s.id, "7.0");
    assert_int_equal (s.nnodes, 3);
    assert_int_equal (control_step_text (&s, &rec), 0);
    t = rec_text (&rec, false);
    assert_true (
        !strncmp (t,
                  "StepId=7.0 UserId=1001 StartTime=2026-01-02T03:04:07 "
                  "TimeLimit=UNLIMITED\n   State=RUNNING ",
                  strlen ("StepId=7.0 UserId=1001 StartTime="
                          "2026-01-02T03:04:07 TimeLimit=UNLIMITED\n"
                          "   State=RUNNING ")));
    has_word (t, "NodeList=node[1-3]");
    has_word (t, "Nodes=3");
    has_word (t, "CPUs=6");
    has_word (t, "Tasks=6");
    has_word (t, "Name=hostname");
    has_word (t, "TRES=cpu=6,mem=3G,node=3");
    free (t);
    control_step_get (&r, 1, &s);
    assert_string_equal (s.id, "8_2.batch");
    /* before 2.8: no uids, cpus, mem_mbs */
    r.uids_count = r.cpus_count = r.mem_mbs_count = 0;
    control_step_get (&r, 1, &s);
    assert_int_equal (control_step_text (&s, &rec), 0);
    t = rec_text (&rec, true);
    has_word (t, "StepId=8_2.batch");
    has_word (t, "UserId=0");
    has_word (t, "TRES=cpu=0,node=1");
    assert_ptr_equal (strchr (t, '\n'), t + strlen (t) - 1); /* one line */
    free (t);
}

/* ---- nodes and partitions ------------------------------------------------ */

static char *n_names[] = { "node1", "node2", "node3" };
static char *n_states[] = { "MIXED", "DRAIN", "DOWN" };
static char *n_reasons[] = { "", "disk swap", "Not responding" };
static char *n_addrs[] = { "127.0.1.1", "127.0.1.2", "" };
static char *n_parts[] = { "debug,long", "debug", "long" };
static uint32_t n_cpus[] = { 4, 4, 8 }, n_alloc[] = { 2, 0, 0 };
static uint32_t n_mem[] = { 4096, 4096, 2000 }, n_amem[] = { 1024, 0, 0 };
static uint32_t n_load[] = { 150, 0, UINT32_MAX };
static uint32_t n_free[] = { 3000, 4000, UINT32_MAX };
static uint32_t n_speed[] = { 2, 1, 1 }, n_nresp[] = { 0, 0, 1 };
static uint32_t n_ruid[] = { 0, 0, 0 }, n_rtime[] = { 0, 1767323045, 0 };

static struct msg_node_info_reply node_reply (void)
{
    struct msg_node_info_reply r = { 0 };

#define SET(f, v) (r.f = v, r.f##_count = 3)
    SET (names, n_names);
    SET (states, n_states);
    SET (reasons, n_reasons);
    SET (addrs, n_addrs);
    SET (partitions, n_parts);
    SET (cpus, n_cpus);
    SET (alloc_cpus, n_alloc);
    SET (real_memory, n_mem);
    SET (alloc_memory, n_amem);
    SET (cpu_loads, n_load);
    SET (free_mems, n_free);
    SET (cpu_speeds, n_speed);
    SET (not_responding, n_nresp);
    SET (reason_uids, n_ruid);
    SET (reason_times, n_rtime);
#undef SET
    return r;
}

static char *node_text (const struct msg_node_info_reply *r, uint32_t i,
                        bool details)
{
    struct control_rec rec = { 0 };
    struct control_node n;

    control_node_get (r, i, &n);
    assert_int_equal (control_node_text (&n, details, &rec), 0);
    return rec_text (&rec, false);
}

static void test_nodes (void **state)
{
    struct msg_node_info_reply r = node_reply ();
    char *t;

    (void)state;
    t = node_text (&r, 0, false);
    assert_true (!strncmp (t,
                           "NodeName=node1 State=MIXED CoresPerSocket=1\n"
                           "   CPUAlloc=2 CPUEfctv=4 CPUTot=4 CPULoad=1.50\n",
                           strlen ("NodeName=node1 State=MIXED CoresPerSocket=1"
                                   "\n   CPUAlloc=2 CPUEfctv=4 CPUTot=4 "
                                   "CPULoad=1.50\n")));
    has_word (t, "NodeAddr=127.0.1.1");
    has_word (t, "RealMemory=4096");
    has_word (t, "AllocMem=1024");
    has_word (t, "FreeMem=3000");
    has_word (t, "Partitions=debug,long");
    has_word (t, "CfgTRES=cpu=4,mem=4G,billing=4");
    has_word (t, "AllocTRES=cpu=2,mem=1G");
    assert_null (strstr (t, "Reason="));
    assert_null (strstr (t, "CpuSpeed="));
    free (t);
    t = node_text (&r, 0, true);
    has_word (t, "CpuSpeed=2");
    free (t);
    t = node_text (&r, 1, false);
    has_word (t, "State=DRAIN");
    has_word (t, "AllocTRES=");
    assert_non_null (strstr (t, "\n   Reason=disk swap "
                                "[root@2026-01-02T03:04:05]\n"));
    free (t);
    /* not responding, never reported load: '*', N/A, NodeAddr its name */
    t = node_text (&r, 2, false);
    has_word (t, "State=DOWN*");
    has_word (t, "CPULoad=N/A");
    has_word (t, "FreeMem=N/A");
    has_word (t, "NodeAddr=node3");
    free (t);
    /* a controller before 2.7 (no loads, free memory, speeds) or 2.8 */
    r.cpu_loads_count = r.free_mems_count = r.cpu_speeds_count = 0;
    r.not_responding_count = r.reason_uids_count = r.reason_times_count = 0;
    t = node_text (&r, 1, false);
    assert_non_null (strstr (t, "\n   Reason=disk swap\n"));
    free (t);
    t = node_text (&r, 2, true);
    has_word (t, "State=DOWN");
    has_word (t, "CPULoad=N/A");
    has_word (t, "CpuSpeed=1");
    free (t);
}

static const char conf_text[] =
    "ClusterName=test\n"
    "SlurmctldPort=7000\n"
    "KillWait=5\n"
    "SlurmctldDebug=debug\n"
    "PrologFlags=Contain\n"
    "StateSaveLocation=/var/lib/t\n"
    "PriorityFavorSmall=YES\n"
    "NodeName=node[1-3] CPUs=4 RealMemory=4096\n"
    "PartitionName=debug Nodes=node[1-2] Default=YES MaxTime=60\n"
    "PartitionName=long Nodes=node[1,3] MaxTime=2-00:00:00 DefaultTime=10 "
    "PriorityTier=3\n"
    "PartitionName=empty Nodes=node1\n";

static struct conf *test_conf (void)
{
    arbor_error_t err = { "" };
    struct conf *c = conf_parse (conf_text, "test.conf", &err);

    if (!c)
        fail_msg ("conf: %s", err.text);
    return c;
}

static void test_partitions (void **state)
{
    struct msg_node_info_reply r = node_reply ();
    struct control_rec rec = { 0 };
    struct conf *c = test_conf ();
    struct control_part v;
    char *t;

    (void)state;
    assert_int_equal (control_part_get (&c->parts[1], &r, &v), 0);
    assert_string_equal (v.nodes, "node[1,3]");
    assert_int_equal (v.total_cpus, 12);
    assert_int_equal (v.total_nodes, 2);
    assert_int_equal (control_part_text (&v, &rec), 0);
    t = rec_text (&rec, false);
    assert_true (!strncmp (t, "PartitionName=long\n   AllowGroups=ALL ",
                           strlen ("PartitionName=long\n   AllowGroups=ALL ")));
    has_word (t, "Default=NO");
    has_word (t, "MaxTime=2-00:00:00");
    has_word (t, "DefaultTime=00:10:00");
    has_word (t, "Nodes=node[1,3]");
    has_word (t, "PriorityTier=3");
    has_word (t, "State=UP");
    has_word (t, "TotalCPUs=12");
    has_word (t, "TotalNodes=2");
    free (t);
    control_part_clear (&v);
    /* the nodes are the controller's: none of its nodes lists "empty" */
    assert_int_equal (control_part_get (&c->parts[2], &r, &v), 0);
    assert_int_equal (control_part_text (&v, &rec), 0);
    t = rec_text (&rec, true);
    has_word (t, "Nodes=(null)");
    has_word (t, "TotalNodes=0");
    has_word (t, "MaxTime=UNLIMITED");
    assert_ptr_equal (strchr (t, '\n'), t + strlen (t) - 1); /* one line */
    free (t);
    control_part_clear (&v);
    control_part_clear (NULL);
    conf_destroy (c);
}

/* ---- config, hosts ------------------------------------------------------- */

static const char *config_line (char **lines, size_t n, const char *key)
{
    size_t len = strlen (key);

    for (size_t i = 0; i < n; i++)
        if (!strncmp (lines[i], key, len) && lines[i][len] == ' ')
            return lines[i];
    fail_msg ("no line for %s", key);
    return NULL;
}

static void test_config (void **state)
{
    struct conf *c = test_conf ();
    size_t n = 0;
    char **lines = control_config_lines (c, &n);

    (void)state;
    assert_non_null (lines);
    assert_true (n > 40);
    for (size_t i = 1; i < n; i++)
        assert_true (strcasecmp (lines[i - 1], lines[i]) < 0);
    for (size_t i = 0; i < n; i++) /* keys padded to 23 columns */
        assert_memory_equal (lines[i] + CONTROL_CONFIG_KEY_WIDTH, " = ", 3);
    assert_string_equal (config_line (lines, n, "ClusterName"),
                         "ClusterName             = test");
    assert_string_equal (config_line (lines, n, "SlurmctldPort"),
                         "SlurmctldPort           = 7000");
    assert_string_equal (config_line (lines, n, "KillWait"),
                         "KillWait                = 5 sec");
    assert_string_equal (config_line (lines, n, "SlurmctldDebug"),
                         "SlurmctldDebug          = debug");
    assert_string_equal (config_line (lines, n, "PrologFlags"),
                         "PrologFlags             = Alloc,Contain");
    assert_string_equal (config_line (lines, n, "AccountingStorageLoc"),
                         "AccountingStorageLoc    = /var/lib/t/arbor_acct.db");
    assert_string_equal (config_line (lines, n, "PriorityFavorSmall"),
                         "PriorityFavorSmall      = Yes");
    assert_string_equal (config_line (lines, n, "Epilog"),
                         "Epilog                  = (null)");
    assert_string_equal (config_line (lines, n, "SlurmUser"),
                         "SlurmUser               = root(0)");
    assert_string_equal (config_line (lines, n, "SchedulerType"),
                         "SchedulerType           = sched/builtin");
    control_config_free (lines, n);
    conf_destroy (c);
}

/* Run f on expr into a string (freed by the caller); *rc its result. */
static char *hosts_out (int (*f) (const char *, FILE *, arbor_error_t *),
                        const char *expr, int *rc, arbor_error_t *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream (&buf, &len);

    assert_non_null (m);
    *rc = f (expr, m, err);
    fclose (m);
    return buf;
}

static void test_hosts (void **state)
{
    arbor_error_t err = { "" };
    char *out;
    int rc;

    (void)state;
    out = hosts_out (control_hostnames, "node[1-3],login", &rc, &err);
    assert_int_equal (rc, 0);
    assert_string_equal (out, "node1\nnode2\nnode3\nlogin\n");
    free (out);
    out = hosts_out (control_hostlist, "node1,node2,node3", &rc, &err);
    assert_int_equal (rc, 0);
    assert_string_equal (out, "node[1-3]\n");
    free (out);
    out = hosts_out (control_hostlist, "n[08-10],x,n11", &rc, &err);
    assert_string_equal (out, "n[08-10],x,n11\n");
    free (out);
    out = hosts_out (control_hostnames, "node[3-1", &rc, &err);
    assert_int_equal (rc, -1);
    assert_string_equal (out, "");
    assert_true (err.text[0] != '\0');
    free (out);
}

/* ---- JSON: the members are the schema's "required", in order --------------
 */

#ifndef ARBOR_SOURCE_DIR
#error "ARBOR_SOURCE_DIR: the source tree, for docs/schema/"
#endif

/* Check that o's members are exactly $defs.<def>.required of the
 * schema file 'kind', in order. */
static void members_match (const json_t *o, const char *kind, const char *def)
{
    char path[512];
    json_error_t jerr;
    json_t *schema, *req;
    const char *key;
    json_t *v;
    size_t i = 0;

    snprintf (path, sizeof (path),
              "%s/docs/schema/arbor.control.%s.schema.json", ARBOR_SOURCE_DIR,
              kind);
    if (!(schema = json_load_file (path, 0, &jerr)))
        fail_msg ("%s: %s", path, jerr.text);
    req = json_object_get (
        json_object_get (json_object_get (schema, "$defs"), def), "required");
    assert_non_null (req);
    json_object_foreach ((json_t *)o, key, v)
    {
        const char *want = json_string_value (json_array_get (req, i));
        if (!want || strcmp (want, key))
            fail_msg ("%s member %zu: %s, schema has %s", kind, i, key,
                      want ? want : "none");
        i++;
    }
    assert_int_equal (i, json_array_size (req));
    json_decref (schema);
}

static void test_json_job (void **state)
{
    struct job_list jl = job_views ();
    struct control_job j;
    json_t *o;

    (void)state;
    control_job_get (&jl.jobs[1], 1767323100, &j);
    assert_non_null (o = control_json_job (&j));
    members_match (o, "job", "job");
    assert_true (json_is_null (json_object_get (o, "start_time")));
    assert_int_equal (json_integer_value (json_object_get (o, "array_job_id")),
                      8);
    assert_int_equal (json_integer_value (json_object_get (o, "nice")), -5);
    assert_true (json_is_null (json_object_get (o, "std_out")));
    assert_true (json_is_null (json_object_get (o, "mem_per_node_mb")));
    assert_int_equal (
        json_integer_value (json_object_get (o, "mem_per_cpu_mb")), 512);
    assert_string_equal (json_string_value (json_object_get (o, "qos")),
                         "normal");
    json_decref (o);
    control_job_get (&jl.jobs[0], 1767323046 + 10, &j);
    o = control_json_job (&j);
    assert_int_equal (
        json_integer_value (json_object_get (o, "run_time_seconds")), 10);
    assert_int_equal (
        json_integer_value (json_object_get (o, "time_limit_minutes")), 60);
    assert_true (json_is_null (json_object_get (o, "array_task_id")));
    assert_string_equal (json_string_value (json_object_get (o, "std_in")),
                         "/dev/null");
    assert_string_equal (json_string_value (json_object_get (o, "qos")),
                         "high");
    json_decref (o);
    job_list_clear (&jl);
}

static void test_json_records (void **state)
{
    struct msg_node_info_reply nr = node_reply ();
    struct conf *c = test_conf ();
    struct control_node n;
    struct control_part p;
    struct control_step s = { .job_id = 7,
                              .step_id = STEP_ID_BATCH,
                              .id = "7.batch",
                              .name = "batch",
                              .user = "alice",
                              .partition = "debug",
                              .nodelist = "node1" };
    json_t *o;

    (void)state;
    assert_non_null (o = control_json_step (&s));
    members_match (o, "step", "step");
    assert_string_equal (json_string_value (json_object_get (o, "step")),
                         "batch");
    json_decref (o);

    control_node_get (&nr, 2, &n);
    assert_non_null (o = control_json_node (&n));
    members_match (o, "node", "node");
    assert_true (json_is_null (json_object_get (o, "cpu_load")));
    assert_true (json_is_false (json_object_get (o, "responding")));
    assert_int_equal (json_array_size (json_object_get (o, "partitions")), 1);
    assert_true (json_is_null (json_object_get (o, "reason_user")));
    json_decref (o);
    control_node_get (&nr, 1, &n);
    o = control_json_node (&n);
    assert_string_equal (json_string_value (json_object_get (o, "reason_user")),
                         "root");
    assert_int_equal (json_integer_value (json_object_get (o, "reason_time")),
                      1767323045);
    json_decref (o);
    control_node_get (&nr, 0, &n);
    o = control_json_node (&n);
    assert_true (json_real_value (json_object_get (o, "cpu_load")) == 1.5);
    assert_int_equal (json_array_size (json_object_get (o, "partitions")), 2);
    json_decref (o);

    assert_int_equal (control_part_get (&c->parts[0], &nr, &p), 0);
    assert_non_null (o = control_json_part (&p));
    members_match (o, "partition", "partition");
    assert_int_equal (
        json_integer_value (json_object_get (o, "max_time_minutes")), 60);
    assert_true (json_is_true (json_object_get (o, "default")));
    json_decref (o);
    control_part_clear (&p);
    conf_destroy (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_rec_layout),
        cmocka_unit_test (test_values),
        cmocka_unit_test (test_job_running),
        cmocka_unit_test (test_job_pending_array),
        cmocka_unit_test (test_job_ended_signal),
        cmocka_unit_test (test_job_older_controller),
        cmocka_unit_test (test_steps),
        cmocka_unit_test (test_nodes),
        cmocka_unit_test (test_partitions),
        cmocka_unit_test (test_config),
        cmocka_unit_test (test_hosts),
        cmocka_unit_test (test_json_job),
        cmocka_unit_test (test_json_records),
    };

    setenv ("TZ", "UTC", 1);
    unsetenv ("SLURM_TIME_FORMAT");
    tzset ();
    return cmocka_run_group_tests (tests, NULL, NULL);
}
