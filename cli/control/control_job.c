/* control_job.c - the job and step records of arbor control show; see
 * control_job.h.
 *
 * The layout and key order are scontrol's (Slurm 20.11 to 22.05, whose
 * single TRES= line tools still parse). Keys Arbor has no data for carry
 * the value scontrol prints when they are unset (N/A, (null), 0, None,
 * Unknown), so that parsers find every key they expect.
 */
#define _GNU_SOURCE
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "acct/acct_fields.h"
#include "control_job.h"
#include "gresalloc.h"
#include "jobattr.h"
#include "hostlist.h"
#include "jobsel.h"
#include "mailtype.h"
#include "timestr.h"

/* The first host of a ranged list into buf ("" if none). */
static void control_first_host (const char *nodelist, char *buf, size_t len)
{
    struct hostlist *hl = *nodelist ? hostlist_create (nodelist, NULL) : NULL;

    snprintf (buf, len, "%s",
              hl && hostlist_count (hl) ? hostlist_nth (hl, 0) : "");
    hostlist_destroy (hl);
}

/* Our exit code is the highest task exit code, or 128+signal for a task
 * killed by a signal; Slurm shows STATUS:SIGNAL. */
static void control_job_exit (struct control_job *j, int32_t rc)
{
    j->exit_status = rc;
    j->exit_signal = 0;
    if (rc > 128 && rc < 128 + 65) {
        j->exit_status = 0;
        j->exit_signal = rc - 128;
    }
}

/* uid and gid: the controller's, or (from one older than 2.8, which
 * does not send them: both 0 then) the user's and their primary group as
 * this host knows them; 0 if it does not. */
static void control_job_owner (const struct job_view *v, struct control_job *j)
{
    const struct passwd *pw;

    j->uid = v->rec.uid;
    j->gid = v->rec.gid;
    if (!j->uid && !j->gid && *j->user && (pw = getpwnam (j->user))) {
        j->uid = (uint32_t)pw->pw_uid;
        j->gid = (uint32_t)pw->pw_gid;
    }
}

/* Who, what and where. */
static void control_job_get_ids (const struct job_view *v,
                                 struct control_job *j)
{
    const struct msg_job_rec *r = &v->rec;

    j->job_id = r->id;
    j->array_job_id = r->array_job_id;
    j->array_task_id = r->array_task_id;
    j->name = jv_str (r->name);
    j->user = jv_str (r->user);
    control_job_owner (v, j);
    acct_group_name (j->gid, j->group, sizeof (j->group));
    j->priority = r->priority;
    j->nice = v->req.nice;
    j->account = jv_str (r->account);
    j->qos = jv_qos (v);
    j->partition = jv_str (r->partition);
    j->submit_host = jv_str (r->submit_host);
    j->command = jv_str (v->req.command);
    j->licenses = jv_str (r->licenses_shown);
    j->features = jv_str (v->req.constraint);
    j->work_dir = jv_str (v->req.cwd);
    j->mail_user = jv_str (r->mail_user);
    j->mail_type = r->mail_type;
    j->std_in = jv_str (r->std_in);
    j->std_out = jv_str (r->std_out);
    j->std_err = jv_str (r->std_err);
}

/* What it asked for and holds. */
static void control_job_get_res (const struct job_view *v,
                                 struct control_job *j)
{
    const struct msg_job_rec *r = &v->rec;

    j->req_nodelist = jv_str (r->req_nodelist);
    j->exc_nodelist = jv_str (r->exc_nodelist);
    j->nodelist = jv_str (r->nodelist);
    control_first_host (j->nodelist, j->batch_host, sizeof (j->batch_host));
    j->nnodes = r->nnodes;
    j->ncpus = r->ncpus;
    j->ntasks = r->ntasks;
    j->cpus_per_task = r->cpus_per_task;
    if (j->cpus_per_task == 0) /* not said (before 2.8): at least one */
        j->cpus_per_task = 1;
    j->time_min = v->req.time_min;
    j->min_cpus = r->min_cpus;
    j->min_tmp = r->min_tmp;
    j->nnodes_max = r->nnodes_max;
    j->mem_per_node = r->mem_per_node;
    j->mem_per_cpu = r->mem_per_cpu;
    j->mem_total = j->mem_per_cpu ? j->mem_per_cpu * j->ncpus
                                  : j->mem_per_node * j->nnodes;
    j->nsteps = r->nsteps;
    j->tres_per_node = jv_str (r->tres_per_node);
    j->tres_per_job = jv_str (r->tres_per_job);
    j->tres_per_task = jv_str (r->tres_per_task);
    j->gres_alloc = jv_str (r->gres_alloc);
    j->node_gres = r->node_gres;
    j->nnode_gres = r->node_gres_count;
    j->node_gres_shown = r->node_gres_shown;
    j->nnode_gres_shown = r->node_gres_shown_count;
}

void control_job_get (const struct job_view *v, time_t now,
                      struct control_job *j)
{
    const struct msg_job_rec *r = &v->rec;

    memset (j, 0, sizeof (*j));
    j->view = v;
    control_job_get_ids (v, j);
    control_job_get_res (v, j);
    j->state = jv_str (r->state_shown);
    j->reason = jv_str (r->reason);
    j->dependency = jv_str (r->dependency);
    j->requeue = r->requeue;
    j->restarts = r->restarts;
    j->batch = jv_batch (v);
    j->submit_time = r->submit_time;
    j->eligible_time = r->eligible_time;
    j->start_time = r->start_time;
    j->end_time = r->end_time;
    j->expected_start = r->expected_start;
    j->time_limit = r->time_limit;
    if (j->time_limit == 0)
        j->time_limit = TIME_INFINITE;
    control_job_exit (j, j->end_time ? r->exit_rc : 0);
    if (j->start_time)
        j->run_secs = (int64_t)(j->end_time ? j->end_time : (uint64_t)now)
                      - (int64_t)j->start_time;
}

/* StartTime and EndTime as scontrol shows them: a pending job's planned
 * start, a running job's end at its time limit. */
static void control_job_when (const struct control_job *j, char *st, char *en,
                              size_t len)
{
    uint64_t start = j->start_time ? j->start_time : j->expected_start;
    uint64_t end = j->end_time;

    if (!end && start && j->time_limit != TIME_INFINITE)
        end = start + (uint64_t)j->time_limit * 60;
    control_time (start, st, len);
    control_time (end, en, len);
}

/* "mem=2G," for TRES, or "" when no memory was asked for (scontrol
 * leaves mem out then). Returns buf. */
static const char *control_tres_mem (uint64_t mb, char *buf, size_t len)
{
    char m[32];

    if (mb == 0)
        snprintf (buf, len, "%s", "");
    else
        snprintf (buf, len, "mem=%s,", control_mem (mb, m, sizeof (m)));
    return buf;
}

/* Lines 1 to 6: identity, state and limits. */
static void control_job_head (const struct control_job *j,
                              struct control_rec *rec)
{
    char run[32], lim[32], tmin[32];

    if (j->array_job_id && j->array_tasks)
        control_rec_add (rec,
                         "JobId=%u ArrayJobId=%u ArrayTaskId=%s JobName=%s",
                         j->job_id, j->array_job_id, j->array_tasks, j->name);
    else if (j->array_job_id)
        control_rec_add (rec,
                         "JobId=%u ArrayJobId=%u ArrayTaskId=%u JobName=%s",
                         j->job_id, j->array_job_id, j->array_task_id, j->name);
    else
        control_rec_add (rec, "JobId=%u JobName=%s", j->job_id, j->name);
    control_rec_add (rec, "UserId=%s(%u) GroupId=%s(%u) MCS_label=N/A", j->user,
                     j->uid, j->group, j->gid);
    control_rec_add (rec, "Priority=%u Nice=%d Account=%s QOS=%s", j->priority,
                     j->nice, control_null (j->account),
                     j->qos ? j->qos : "normal");
    control_rec_add (rec, "JobState=%s Reason=%s Dependency=%s",
                     *j->state ? j->state : "UNKNOWN",
                     *j->reason ? j->reason : "None",
                     control_null (j->dependency));
    control_rec_add (rec,
                     "Requeue=%d Restarts=%u BatchFlag=%d Reboot=0 "
                     "ExitCode=%d:%d",
                     j->requeue, j->restarts, j->batch, j->exit_status,
                     j->exit_signal);
    control_rec_add (
        rec, "RunTime=%s TimeLimit=%s TimeMin=%s",
        control_duration (j->run_secs, run, sizeof (run)),
        control_limit (j->time_limit, lim, sizeof (lim)),
        j->time_min ? control_limit (j->time_min, tmin, sizeof (tmin)) : "N/A");
}

/* Lines 7 to 10: its times. LastSchedEval is known only as the pass
 * that started it. */
static void control_job_times (const struct control_job *j,
                               struct control_rec *rec)
{
    char sub[64], eli[64], st[64], en[64], eval[64];

    control_rec_add (rec, "SubmitTime=%s EligibleTime=%s",
                     control_time (j->submit_time, sub, sizeof (sub)),
                     control_time (j->eligible_time, eli, sizeof (eli)));
    control_rec_add (rec, "AccrueTime=%s", eli);
    control_job_when (j, st, en, sizeof (st));
    control_rec_add (rec, "StartTime=%s EndTime=%s Deadline=N/A", st, en);
    control_rec_add (rec, "SuspendTime=None SecsPreSuspend=0 LastSchedEval=%s",
                     control_time (j->start_time, eval, sizeof (eval)));
}

/* Lines 11 to 20: placement and resources. */
static void control_job_res (const struct control_job *j,
                             struct control_rec *rec)
{
    char tres[48], mem[32], tmp[32], nodes[32];

    control_rec_add (rec, "Partition=%s AllocNode:Sid=%s:0",
                     control_null (j->partition),
                     control_null (j->submit_host));
    control_rec_add (rec, "ReqNodeList=%s ExcNodeList=%s",
                     control_null (j->req_nodelist),
                     control_null (j->exc_nodelist));
    control_rec_add (rec, "NodeList=%s", control_null (j->nodelist));
    if (*j->batch_host)
        control_rec_add (rec, "BatchHost=%s", j->batch_host);
    if (j->nnodes_max) /* a pending range, as scontrol shows it */
        snprintf (nodes, sizeof (nodes), "%u-%u", j->nnodes, j->nnodes_max);
    else
        snprintf (nodes, sizeof (nodes), "%u", j->nnodes);
    control_rec_add (rec,
                     "NumNodes=%s NumCPUs=%u NumTasks=%u CPUs/Task=%u "
                     "ReqB:S:C:T=0:0:*:*",
                     nodes, j->ncpus, j->ntasks, j->cpus_per_task);
    control_rec_add (rec, "TRES=cpu=%u,%snode=%u,billing=%u%s%s", j->ncpus,
                     control_tres_mem (j->mem_total, tres, sizeof (tres)),
                     j->nnodes, j->ncpus, *j->gres_alloc ? "," : "",
                     j->gres_alloc);
    control_rec_add (rec, "Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*");
    control_rec_add (
        rec, "MinCPUsNode=%u %s=%s MinTmpDiskNode=%s",
        j->min_cpus > j->cpus_per_task ? j->min_cpus : j->cpus_per_task,
        j->mem_per_cpu ? "MinMemoryCPU" : "MinMemoryNode",
        control_mem (j->mem_per_cpu ? j->mem_per_cpu : j->mem_per_node, mem,
                     sizeof (mem)),
        control_mem (j->min_tmp, tmp, sizeof (tmp)));
    control_rec_add (rec, "Features=%s DelayBoot=00:00:00",
                     control_null (j->features));
    control_rec_add (rec, "Contiguous=0 Licenses=%s Network=(null)",
                     control_null (j->licenses));
}

/* -d: each node's devices, as the controller shows them
 * ("gpu:a100:2(IDX:0-1)"), else (an older one) from what it holds,
 * "gpu=0-1" as "gpu:2(IDX:0-1)". */
static void control_job_node_gres (const struct control_job *j,
                                   struct control_rec *rec)
{
    struct hostlist *hl = hostlist_create (j->nodelist, NULL);
    bool shown = j->nnode_gres_shown > 0;
    uint32_t n = shown ? j->nnode_gres_shown : j->nnode_gres;

    for (uint32_t k = 0; hl && k < n && k < hostlist_count (hl); k++) {
        struct gresalloc a;
        char text[512] = "", idx[256];
        size_t at = 0;
        if (shown) {
            if (*j->node_gres_shown[k])
                control_rec_add (rec, "  Nodes=%s GRES=%s",
                                 hostlist_nth (hl, k), j->node_gres_shown[k]);
            continue;
        }
        if (gresalloc_parse (j->node_gres[k], &a, NULL) < 0 || !a.n)
            continue;
        for (size_t i = 0; i < a.n && at < sizeof (text); i++)
            at += (size_t)snprintf (
                text + at, sizeof (text) - at, "%s%s:%llu(IDX:%s)",
                i ? "," : "", a.v[i].name, (unsigned long long)a.v[i].count,
                a.v[i].indexed ? gresalloc_indices (&a.v[i], idx, sizeof (idx))
                               : "N/A");
        control_rec_add (rec, "  Nodes=%s GRES=%s", hostlist_nth (hl, k), text);
    }
    hostlist_destroy (hl);
}

/* What it asks of generic resources (scontrol's keys, only when set). */
static void control_job_tres (const struct control_job *j,
                              struct control_rec *rec)
{
    if (*j->tres_per_job)
        control_rec_add (rec, "TresPerJob=%s", j->tres_per_job);
    if (*j->tres_per_node)
        control_rec_add (rec, "TresPerNode=%s", j->tres_per_node);
    if (*j->tres_per_task)
        control_rec_add (rec, "TresPerTask=%s", j->tres_per_task);
    if (j->details)
        control_job_node_gres (j, rec);
}

int control_job_text (const struct control_job *j, struct control_rec *rec)
{
    control_job_head (j, rec);
    control_job_times (j, rec);
    control_job_res (j, rec);
    control_rec_add (rec, "Command=%s", control_null (j->command));
    for (size_t i = 0; j->view && i < job_nattrs; i++) { /* jobattr.h */
        const char *t = job_attr_text (&job_attrs[i], j->view);
        if (*t && job_attrs[i].own_line) /* as scontrol: only when set */
            control_rec_add (rec, "%s=%s", job_attrs[i].name, t);
    }
    control_rec_add (rec, "WorkDir=%s", control_null (j->work_dir));
    if (j->batch) {
        control_rec_add (rec, "StdErr=%s", control_null (j->std_err));
        control_rec_add (rec, "StdIn=%s", control_null (j->std_in));
        control_rec_add (rec, "StdOut=%s", control_null (j->std_out));
    }
    /* Arbor's own key (scontrol has none): parsers skip what they do not
     * know, and scripts may wait for a job's steps to be over. */
    if (j->steps)
        control_rec_add (rec, "RunningSteps=%u Steps=%s", j->nsteps,
                         control_null (j->steps));
    else
        control_rec_add (rec, "RunningSteps=%u", j->nsteps);
    control_rec_add (rec, "Power=");
    control_job_tres (j, rec);
    if (j->mail_type && *j->mail_user) { /* as scontrol: only then */
        char mt[MAILTYPE_STR_LEN];
        control_rec_add (rec, "MailUser=%s MailType=%s", j->mail_user,
                         mailtype_str (j->mail_type, mt, sizeof (mt)));
    }
    return rec->failed ? -1 : 0;
}

/* ---- steps --------------------------------------------------------------
 */

void control_step_get (const struct msg_step_info_reply *r, uint32_t i,
                       struct control_step *s)
{
    struct hostlist *hl;

    memset (s, 0, sizeof (*s));
    s->job_id = r->job_ids[i];
    s->step_id = PROTO_NUM (r, step_ids, i);
    s->array_job_id = PROTO_NUM (r, array_job_ids, i);
    s->array_task_id = PROTO_NUM (r, array_task_ids, i);
    if (s->array_job_id)
        jobsel_task_str (s->array_job_id, s->array_task_id, s->step_id, s->id,
                         sizeof (s->id));
    else
        jobsel_id_str (s->job_id, s->step_id, s->id, sizeof (s->id));
    s->name = PROTO_STR (r, names, i);
    s->user = PROTO_STR (r, users, i);
    s->uid = PROTO_NUM (r, uids, i);
    s->partition = PROTO_STR (r, partitions, i);
    s->start_time = PROTO_NUM (r, start_times, i);
    s->nodelist = PROTO_STR (r, nodelists, i);
    hl = hostlist_create (s->nodelist, NULL);
    s->nnodes = hl ? (uint32_t)hostlist_count (hl) : 0;
    hostlist_destroy (hl);
    s->ncpus = PROTO_NUM (r, cpus, i);
    s->ntasks = PROTO_NUM (r, ntasks, i);
    s->mem_mb = PROTO_NUM (r, mem_mbs, i);
}

/* Steps have no time limit of their own, no reserved ports, and Arbor
 * does not know the launcher's host and pid: scontrol's unset values. */
int control_step_text (const struct control_step *s, struct control_rec *rec)
{
    char st[64], mem[48];

    control_rec_add (
        rec, "StepId=%s UserId=%u StartTime=%s TimeLimit=UNLIMITED", s->id,
        s->uid, control_time (s->start_time, st, sizeof (st)));
    control_rec_add (rec, "State=RUNNING Partition=%s NodeList=%s",
                     control_null (s->partition), control_null (s->nodelist));
    control_rec_add (rec, "Nodes=%u CPUs=%u Tasks=%u Name=%s Network=(null)",
                     s->nnodes, s->ncpus, s->ntasks, s->name);
    control_rec_add (rec, "TRES=cpu=%u,%snode=%u", s->ncpus,
                     control_tres_mem (s->mem_mb, mem, sizeof (mem)),
                     s->nnodes);
    control_rec_add (rec, "ResvPorts=(null)");
    control_rec_add (rec, "CPUFreqReq=Default Dist=Block");
    control_rec_add (rec, "SrunHost:Pid=(null):0");
    return rec->failed ? -1 : 0;
}
