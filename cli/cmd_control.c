/* cmd_control.c - "arbor control" (scontrol): administration and details.
 *
 *     arbor control update NodeName=LIST State=DOWN|DRAIN|RESUME [Reason=TEXT]
 *     arbor control update JobId=LIST KEY=VALUE...
 *     arbor control show node [LIST]
 *     arbor control show job [ID]
 *     arbor control show partition [NAME]
 *     arbor control hold|uhold|release|requeue|suspend|resume JOBID...
 *
 * update JobId= sends JOB_UPDATE (jobupdate_run, cmd_jobaction.c); the
 * job words JOB_ACTION (jobaction_run). update NodeName= sends
 * NODE_UPDATE; only root and ArborUser may (the ctld checks
 * and answers EPERM, printed as scontrol does: "Access/permission
 * denied"). Keys and entity names are matched without regard to case,
 * as scontrol does; the state words are checked by the ctld, which lists
 * the valid ones. show prints one Slurm-like block of KEY=VALUE lines per
 * record, built from NODE_INFO and JOB_INFO (partitions: arbor.conf plus
 * NODE_INFO); -o/--oneliner puts each record on one line. Errors name
 * what was wrong and exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client.h"
#include "jobsel.h"
#include "opt.h"
#include "cmds.h"
#include "conf.h"
#include "hostlist.h"
#include "log.h"
#include "timestr.h"

#define CONTROL_LINES 16
#define CONTROL_LINE 512

struct control_ctx {
    const char *prog;
    bool oneliner;
    struct client cl;
};

/* One record being printed: its lines, joined by "\n   " or " ". */
struct control_rec {
    char line[CONTROL_LINES][CONTROL_LINE];
    size_t n;
};

static const char control_usage[] =
    "Usage: %s [-o] COMMAND ...\n"
    "  update NodeName=LIST State=STATE [Reason=TEXT]\n"
    "                       STATE: DOWN, DRAIN (both need a Reason) or\n"
    "                       RESUME (also IDLE, UNDRAIN); root/ArborUser only\n"
    "  update JobId=LIST KEY=VALUE...\n"
    "                       TimeLimit=[+|-]TIME|UNLIMITED, JobName=NAME;\n"
    "                       pending jobs: Partition=, NumNodes=N[-N], Nice=N\n"
    "  show node [LIST]     node details\n"
    "  show job [ID]        job details\n"
    "  show partition [NAME]\n"
    "  hold|uhold JOBID...   keep pending jobs from starting\n"
    "  release JOBID...     let held jobs start\n"
    "  requeue JOBID...     send batch jobs back to pending\n"
    "  suspend|resume JOBID...\n"
    "                       stop and continue running jobs; root/ArborUser\n"
    "  reconfigure          read the CPU-hour limits file again;\n"
    "                       root/ArborUser only\n"
    "  -o, --oneliner       one line per record\n"
    "  -h, --help           this help\n";

static void rec_add (struct control_rec *r, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void rec_add (struct control_rec *r, const char *fmt, ...)
{
    va_list ap;

    if (r->n == CONTROL_LINES)
        return;
    va_start (ap, fmt);
    vsnprintf (r->line[r->n++], CONTROL_LINE, fmt, ap);
    va_end (ap);
}

static void rec_print (const struct control_ctx *c, struct control_rec *r)
{
    for (size_t i = 0; i < r->n; i++)
        printf ("%s%s", i == 0 ? "" : c->oneliner ? " " : "\n   ", r->line[i]);
    printf ("\n%s", c->oneliner ? "" : "\n");
    r->n = 0;
}

static void control_open (struct control_ctx *c)
{
    arbor_error_t err;

    if (client_open (&c->cl, &err) < 0)
        die ("%s", err.text);
}

/* ---- update ------------------------------------------------------------- */

/* "Key=value" with Key one of ours (any case): the value, else NULL. */
static const char *control_value (const char *arg, const char *key)
{
    size_t n = strlen (key);

    if (strncasecmp (arg, key, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    return NULL;
}

/* reconfigure: the controller reads again what may change while it runs
 * (its CpuHoursLimitsFile); as scontrol, silent on success. */
static int control_reconfigure (struct control_ctx *c)
{
    struct msg_ctld_reconfigure m = { .reason = "arbor control" };
    struct msg_rc rc;
    arbor_error_t err;

    control_open (c);
    if (client_call (&c->cl, MSG_CTLD_RECONFIGURE, &m, MSG_RC, &rc,
                     CLIENT_TIMEOUT_MS, &err)
        < 0) {
        if (errno == EPERM)
            die ("Access/permission denied");
        die ("reconfigure: %s", err.text);
    }
    return 0;
}

/* Does an update name jobs (JobId=, any case) rather than nodes? */
static bool control_names_job (int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (control_value (argv[i], "JobId"))
            return true;
    return false;
}

static int control_update (struct control_ctx *c, int argc, char **argv)
{
    struct msg_node_update m = { 0 };
    struct msg_rc rc;
    arbor_error_t err;
    const char *v;

    for (int i = 0; i < argc; i++) {
        if ((v = control_value (argv[i], "NodeName")))
            m.nodelist = (char *)v;
        else if ((v = control_value (argv[i], "State")))
            m.state = (char *)v;
        else if ((v = control_value (argv[i], "Reason")))
            m.reason = (char *)v;
        else if (!strchr (argv[i], '='))
            die ("invalid input: %s (expected KEY=VALUE)", argv[i]);
        else
            die ("Update of this parameter is not supported: %s "
                 "(arbor control updates NodeName=, State=, Reason=)",
                 argv[i]);
    }
    if (!m.nodelist || !*m.nodelist)
        die ("update: NodeName=LIST is required");
    if (!m.state || !*m.state)
        die ("update: State= is required (DOWN, DRAIN or RESUME)");
    control_open (c);
    if (client_call (&c->cl, MSG_NODE_UPDATE, &m, MSG_RC, &rc,
                     CLIENT_TIMEOUT_MS, &err)
        < 0) {
        if (errno == EPERM)
            die ("Access/permission denied");
        die ("update NodeName=%s: %s", m.nodelist, err.text);
    }
    return 0;
}

/* ---- show node ------------------------------------------------------------
 */

#define COL(r, f, i) ((i) < (r)->f##_count ? (r)->f[i] : 0)
#define SCOL(r, f, i) \
    ((i) < (r)->f##_count && (r)->f[i] && *(r)->f[i] ? (r)->f[i] : NULL)

/* CPULoad as Slurm prints it (two decimals), N/A until reported. */
static const char *show_load (uint32_t hundredths, char *buf, size_t size)
{
    if (hundredths == UINT32_MAX)
        return "N/A";
    snprintf (buf, size, "%u.%02u", hundredths / 100, hundredths % 100);
    return buf;
}

static const char *show_free_mem (uint32_t mb, char *buf, size_t size)
{
    if (mb == UINT32_MAX)
        return "N/A";
    snprintf (buf, size, "%u", mb);
    return buf;
}

static void show_nodes (struct control_ctx *c,
                        const struct msg_node_info_reply *r)
{
    struct control_rec rec = { .n = 0 };
    char load[24], mem[24];

    for (uint32_t i = 0; i < r->names_count; i++) {
        const char *why = SCOL (r, reasons, i);
        const char *parts = SCOL (r, partitions, i);
        uint32_t speed = COL (r, cpu_speeds, i);
        rec_add (&rec, "NodeName=%s State=%s", r->names[i],
                 SCOL (r, states, i) ? r->states[i] : "UNKNOWN");
        rec_add (
            &rec, "CPUAlloc=%u CPUTot=%u CPULoad=%s", COL (r, alloc_cpus, i),
            COL (r, cpus, i),
            show_load (i < r->cpu_loads_count ? r->cpu_loads[i] : UINT32_MAX,
                       load, sizeof (load)));
        rec_add (&rec, "NodeAddr=%s CpuSpeed=%u",
                 SCOL (r, addrs, i) ? r->addrs[i] : r->names[i],
                 speed ? speed : 1);
        rec_add (&rec, "RealMemory=%u AllocMem=%u FreeMem=%s",
                 COL (r, real_memory, i), COL (r, alloc_memory, i),
                 show_free_mem (i < r->free_mems_count ? r->free_mems[i]
                                                       : UINT32_MAX,
                                mem, sizeof (mem)));
        rec_add (&rec, "Partitions=%s", parts ? parts : "(null)");
        if (why)
            rec_add (&rec, "Reason=%s", why);
        rec_print (c, &rec);
    }
}

static int control_show_node (struct control_ctx *c, const char *name)
{
    struct msg_node_info req = { .nodelist = (char *)(name ? name : "") };
    struct msg_node_info_reply r;
    arbor_error_t err;

    control_open (c);
    if (client_call (&c->cl, MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("show node%s%s: %s", name ? " " : "", name ? name : "", err.text);
    show_nodes (c, &r);
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    return 0;
}

/* ---- show job -------------------------------------------------------------
 */

static void fmt_secs (long s, char *buf, size_t len)
{
    if (s < 0)
        s = 0;
    if (s >= 86400)
        snprintf (buf, len, "%ld-%02ld:%02ld:%02ld", s / 86400,
                  s % 86400 / 3600, s % 3600 / 60, s % 60);
    else
        snprintf (buf, len, "%02ld:%02ld:%02ld", s / 3600, s % 3600 / 60,
                  s % 60);
}

static void fmt_when (uint32_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (t == 0 || !localtime_r (&tt, &tm)
        || strftime (buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf (buf, len, "Unknown");
}

/* Slurm's ExitCode=STATUS:SIGNAL from our 128+signal convention. */
static const char *show_exit (const struct msg_job_info_reply *r, uint32_t i,
                              char *buf, size_t len)
{
    int rc = COL (r, end_times, i) ? (int)COL (r, exit_codes, i) : 0;

    if (rc > 128 && rc < 128 + 65)
        snprintf (buf, len, "0:%d", rc - 128);
    else
        snprintf (buf, len, "%d:0", rc);
    return buf;
}

/* "RunningSteps=N Steps=5.batch,5.0" (STEP_INFO), when some run. */
static void show_steps (struct control_ctx *c, struct control_rec *rec,
                        uint32_t job, uint32_t n)
{
    struct msg_step_info req = { .job_ids = &job, .job_ids_count = 1 };
    struct msg_step_info_reply r;
    arbor_error_t err;
    char list[CONTROL_LINE] = "", id[48];
    size_t len = 0;

    if (n == 0
        || client_call (&c->cl, MSG_STEP_INFO, &req, MSG_STEP_INFO_REPLY, &r,
                        CLIENT_TIMEOUT_MS, &err)
               < 0) {
        rec_add (rec, "RunningSteps=%u", n);
        return;
    }
    for (uint32_t k = 0; k < r.job_ids_count && len < sizeof (list) - 64; k++)
        if (r.job_ids[k] == job)
            len += (size_t)snprintf (
                list + len, sizeof (list) - len, "%s%s", len ? "," : "",
                jobsel_id_str (job, r.step_ids[k], id, sizeof (id)));
    rec_add (rec, "RunningSteps=%u Steps=%s", n, list);
    proto_clear (MSG_STEP_INFO_REPLY, &r);
}

static void show_job (struct control_ctx *c, const struct msg_job_info_reply *r,
                      uint32_t i)
{
    struct control_rec rec = { .n = 0 };
    uint32_t start = COL (r, start_times, i), end = COL (r, end_times, i);
    uint32_t limit = COL (r, time_limits, i);
    char run[32], lim[32] = "UNLIMITED", st[32], en[32], sub[32], exitc[24];

    fmt_secs (start ? (long)((end ? (time_t)end : time (NULL)) - (time_t)start)
                    : 0,
              run, sizeof (run));
    if (limit && limit != TIME_INFINITE)
        timestr_format (limit, lim, sizeof (lim));
    fmt_when (start, st, sizeof (st));
    fmt_when (end, en, sizeof (en));
    if (COL (r, array_job_ids, i))
        rec_add (&rec, "JobId=%u ArrayJobId=%u ArrayTaskId=%u JobName=%s",
                 r->job_ids[i], r->array_job_ids[i], COL (r, array_task_ids, i),
                 SCOL (r, names, i) ? r->names[i] : "");
    else
        rec_add (&rec, "JobId=%u JobName=%s", r->job_ids[i],
                 SCOL (r, names, i) ? r->names[i] : "");
    rec_add (&rec, "UserId=%s Partition=%s",
             SCOL (r, users, i) ? r->users[i] : "",
             SCOL (r, partitions, i) ? r->partitions[i] : "");
    rec_add (&rec, "JobState=%s Reason=%s Dependency=%s",
             SCOL (r, states, i) ? r->states[i] : "UNKNOWN",
             SCOL (r, reasons, i) ? r->reasons[i] : "None",
             SCOL (r, dependencies, i) && *r->dependencies[i]
                 ? r->dependencies[i]
                 : "(null)");
    rec_add (&rec, "Restarts=%u BatchFlag=%u ExitCode=%s", COL (r, restarts, i),
             COL (r, batch_flags, i), show_exit (r, i, exitc, sizeof (exitc)));
    rec_add (&rec, "RunTime=%s TimeLimit=%s", run, lim);
    fmt_when (COL (r, submit_times, i), sub, sizeof (sub));
    rec_add (&rec, "SubmitTime=%s", sub);
    rec_add (&rec, "StartTime=%s EndTime=%s", st, en);
    rec_add (&rec, "NodeList=%s NumNodes=%u NumCPUs=%u",
             SCOL (r, nodelists, i) ? r->nodelists[i] : "(null)",
             COL (r, nnodes, i), COL (r, ncpus, i));
    rec_add (&rec, "WorkDir=%s", SCOL (r, work_dirs, i) ? r->work_dirs[i] : "");
    if (COL (r, batch_flags, i)) {
        rec_add (&rec, "StdErr=%s",
                 SCOL (r, std_errs, i) ? r->std_errs[i] : "");
        rec_add (&rec, "StdOut=%s",
                 SCOL (r, std_outs, i) ? r->std_outs[i] : "");
    }
    show_steps (c, &rec, r->job_ids[i], COL (r, nsteps, i));
    rec_print (c, &rec);
}

static int control_show_job (struct control_ctx *c, const char *id)
{
    struct msg_job_info req = { .job_id = 0 };
    struct msg_job_info_reply r;
    arbor_error_t err;
    char *end;

    if (id) {
        unsigned long v = strtoul (id, &end, 10);
        if (!*id || *end || v == 0 || v > UINT32_MAX || id[0] == '-')
            die ("Invalid job id specified: %s", id);
        req.job_id = (uint32_t)v;
    }
    control_open (c);
    if (client_call (&c->cl, MSG_JOB_INFO, &req, MSG_JOB_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("show job%s%s: %s", id ? " " : "", id ? id : "", err.text);
    if (r.job_ids_count == 0)
        printf ("No jobs in the system\n");
    for (uint32_t i = 0; i < r.job_ids_count; i++)
        show_job (c, &r, i);
    proto_clear (MSG_JOB_INFO_REPLY, &r);
    return 0;
}

/* ---- show partition ------------------------------------------------------ */

static void show_part (struct control_ctx *c, const struct conf_part *p,
                       const struct msg_node_info_reply *r)
{
    struct control_rec rec = { .n = 0 };
    struct hostlist *hl = hostlist_create (NULL, NULL);
    char maxt[32] = "UNLIMITED", deft[32] = "UNLIMITED", *ranged;
    uint64_t cpus = 0;

    if (!hl)
        die ("out of memory");
    for (uint32_t i = 0; i < r->names_count; i++) {
        if (!jobsel_in_list (SCOL (r, partitions, i), p->name, false))
            continue;
        if (hostlist_append (hl, r->names[i]) < 0)
            die ("out of memory");
        cpus += COL (r, cpus, i);
    }
    if (p->max_time != TIME_INFINITE)
        timestr_format (p->max_time, maxt, sizeof (maxt));
    if (p->default_time != TIME_INFINITE)
        timestr_format (p->default_time, deft, sizeof (deft));
    if (!(ranged = hostlist_ranged (hl)))
        die ("out of memory");
    rec_add (&rec, "PartitionName=%s", p->name);
    rec_add (&rec, "Default=%s State=UP", p->is_default ? "YES" : "NO");
    rec_add (&rec, "MaxTime=%s DefaultTime=%s", maxt, deft);
    rec_add (&rec, "Nodes=%s", *ranged ? ranged : "(null)");
    rec_add (&rec, "TotalCPUs=%llu TotalNodes=%zu", (unsigned long long)cpus,
             hostlist_count (hl));
    rec_print (c, &rec);
    free (ranged);
    hostlist_destroy (hl);
}

static int control_show_part (struct control_ctx *c, const char *name)
{
    struct msg_node_info req = { .nodelist = "" };
    struct msg_node_info_reply r;
    arbor_error_t err;
    size_t shown = 0;

    control_open (c);
    if (name && !conf_part_find (c->cl.conf, name))
        die ("Partition %s not found", name);
    if (client_call (&c->cl, MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("show partition: %s", err.text);
    for (size_t i = 0; i < c->cl.conf->nparts; i++) {
        const struct conf_part *p = &c->cl.conf->parts[i];
        if (name && strcmp (name, p->name))
            continue;
        show_part (c, p, &r);
        shown++;
    }
    if (shown == 0)
        printf ("No partitions in the system\n");
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    return 0;
}

/* ---- dispatch -------------------------------------------------------------
 */

static bool word_is (const char *w, const char *one, const char *many)
{
    return !strcasecmp (w, one) || (many && !strcasecmp (w, many));
}

static int control_show (struct control_ctx *c, int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : NULL;

    if (argc < 1)
        die ("show: what? (node, job or partition)");
    if (argc > 2)
        die ("show %s: unexpected argument '%s'", argv[0], argv[2]);
    if (word_is (argv[0], "node", "nodes"))
        return control_show_node (c, name);
    if (word_is (argv[0], "job", "jobs"))
        return control_show_job (c, name);
    if (word_is (argv[0], "partition", "partitions"))
        return control_show_part (c, name);
    die ("invalid entity: %s for keyword: show (node, job or partition)",
         argv[0]);
}

static void control_parse (struct control_ctx *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "oneliner", no_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int o;

    opterr = 0;
    /* '+': stop at the command, whose KEY=VALUE words are not options. */
    while ((o = getopt_long (argc, argv, "+oh", longopts, NULL)) != -1) {
        switch (o) {
        case 'o': c->oneliner = true; break;
        case 'h': printf (control_usage, c->prog); exit (0);
        default: opt_getopt_die (o, argv, c->prog, longopts);
        }
    }
}

int cmd_control_main (int argc, char **argv)
{
    struct control_ctx c = { .prog = argv[0] };
    const char *cmd;
    int rc;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    c.cl.ch.fd = -1;
    control_parse (&c, argc, argv);
    if (optind >= argc) {
        fprintf (stderr, control_usage, c.prog);
        return 1;
    }
    cmd = argv[optind];
    if (word_is (cmd, "update", NULL)
        && control_names_job (argc - optind - 1, argv + optind + 1))
        rc = jobupdate_run (c.prog, argc - optind - 1, argv + optind + 1);
    else if (word_is (cmd, "update", NULL))
        rc = control_update (&c, argc - optind - 1, argv + optind + 1);
    else if (word_is (cmd, "show", NULL))
        rc = control_show (&c, argc - optind - 1, argv + optind + 1);
    else if (word_is (cmd, "reconfigure", NULL))
        rc = control_reconfigure (&c);
    else if (word_is (cmd, "hold", NULL) || word_is (cmd, "uhold", NULL)
             || word_is (cmd, "release", NULL) || word_is (cmd, "requeue", NULL)
             || word_is (cmd, "suspend", NULL)
             || word_is (cmd, "resume", NULL)) {
        char action[16];
        snprintf (action, sizeof (action), "%s", cmd);
        for (char *p = action; *p; p++)
            *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        rc = jobaction_run (c.prog, action, argc - optind - 1,
                            argv + optind + 1);
    } else if (word_is (cmd, "help", NULL)) {
        printf (control_usage, c.prog);
        rc = 0;
    } else
        die ("invalid keyword: %s (update, show, hold, uhold, release, "
             "requeue, suspend, resume, reconfigure or help)",
             cmd);
    if (c.cl.ch.fd >= 0)
        client_close (&c.cl);
    return rc;
}
