/* cmd_control.c - "arbor control" (scontrol): administration and details.
 *
 *     arbor control [-o] [-d] [--json] show ENTITY [ID]
 *     arbor control ping
 *     arbor control update NodeName=LIST State=DOWN|DRAIN|RESUME [Reason=TEXT]
 *     arbor control update JobId=LIST KEY=VALUE...
 *     arbor control hold|uhold|release|requeue|suspend|resume JOBID...
 *     arbor control reconfigure
 *
 * This file parses the options and dispatches. show and ping are
 * control_show.c's (control_show.h). update JobId= sends JOB_UPDATE
 * (jobupdate_run, cmd_jobaction.c); the job words JOB_ACTION
 * (jobaction_run). update NodeName= sends NODE_UPDATE; only root and
 * ArborUser may (the ctld checks and answers EPERM, printed as scontrol
 * does: "Access/permission denied"). Keys and command words are matched
 * without regard to case, as scontrol does; the state words are checked
 * by the ctld, which lists the valid ones. Errors name what was wrong
 * and exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client.h"
#include "cmds.h"
#include "control_show.h"
#include "log.h"
#include "opt.h"

struct control_ctx {
    const char *prog;
    struct control_show_opts show; /* -o, -d, --json */
    struct client cl;
};

enum { CONTROL_OPT_JSON = 256 };

static const char control_usage[] =
    "Usage: %s [-o] [-d] [--json] COMMAND ...\n"
    "  show job [ID]        job details (ID: JOBID or ARRAYID_TASK)\n"
    "  show step [JOBID[.STEP]]\n"
    "                       running steps\n"
    "  show node [LIST]     node details\n"
    "  show partition [NAME]\n"
    "  show config          arbor.conf's settings, as in effect\n"
    "  show hostnames [LIST] one host a line (LIST: $SLURM_JOB_NODELIST)\n"
    "  show hostlist LIST   the ranged form of LIST\n"
    "  ping                 is the controller up? (exit 1 if not)\n"
    "  update NodeName=LIST State=STATE [Reason=TEXT]\n"
    "                       STATE: DOWN, DRAIN (both need a Reason) or\n"
    "                       RESUME (also IDLE, UNDRAIN); root/ArborUser only\n"
    "  update JobId=LIST KEY=VALUE...\n"
    "                       TimeLimit=[+|-]TIME|UNLIMITED, JobName=NAME;\n"
    "                       pending jobs: Partition=, NumNodes=N[-N], Nice=N\n"
    "  hold|uhold JOBID...   keep pending jobs from starting\n"
    "  release JOBID...     let held jobs start\n"
    "  requeue JOBID...     send batch jobs back to pending\n"
    "  suspend|resume JOBID...\n"
    "                       stop and continue running jobs; root/ArborUser\n"
    "  reconfigure          read the CPU-hour limits file again;\n"
    "                       root/ArborUser only\n"
    "  -o, --oneliner       show: one line per record\n"
    "  -d, --details        show: more (a job's steps, a node's CpuSpeed)\n"
    "      --json           show job|step|node|partition: a JSON document\n"
    "                       (docs/json/control.md)\n"
    "  -h, --help           this help\n";

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

/* ---- dispatch ------------------------------------------------------------ */

static void control_parse (struct control_ctx *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "oneliner", no_argument, NULL, 'o' },
        { "details", no_argument, NULL, 'd' },
        { "json", no_argument, NULL, CONTROL_OPT_JSON },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int o;

    opterr = 0;
    /* '+': stop at the command, whose KEY=VALUE words are not options. */
    while ((o = getopt_long (argc, argv, "+odh", longopts, NULL)) != -1) {
        switch (o) {
        case 'o': c->show.oneliner = true; break;
        case 'd': c->show.details = true; break;
        case CONTROL_OPT_JSON: c->show.json = true; break;
        case 'h': printf (control_usage, c->prog); exit (0);
        default: opt_getopt_die (o, argv, c->prog, longopts);
        }
    }
}

static bool word_is (const char *w, const char *one)
{
    return !strcasecmp (w, one);
}

/* The job words: JOB_ACTION with the word, lower case, as the action. */
static bool control_job_word (const char *cmd)
{
    static const char *const words[] = { "hold",    "uhold",   "release",
                                         "requeue", "suspend", "resume" };

    for (size_t i = 0; i < sizeof (words) / sizeof (*words); i++)
        if (word_is (cmd, words[i]))
            return true;
    return false;
}

static int control_job_action (struct control_ctx *c, const char *cmd, int argc,
                               char **argv)
{
    char action[16];

    snprintf (action, sizeof (action), "%s", cmd);
    for (char *p = action; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    return jobaction_run (c->prog, action, argc, argv);
}

static int control_dispatch (struct control_ctx *c, const char *cmd, int argc,
                             char **argv)
{
    if (word_is (cmd, "update") && control_names_job (argc, argv))
        return jobupdate_run (c->prog, argc, argv);
    if (word_is (cmd, "update"))
        return control_update (c, argc, argv);
    if (word_is (cmd, "show"))
        return control_show (&c->show, argc, argv);
    if (word_is (cmd, "ping"))
        return control_ping ();
    if (word_is (cmd, "reconfigure"))
        return control_reconfigure (c);
    if (control_job_word (cmd))
        return control_job_action (c, cmd, argc, argv);
    if (word_is (cmd, "help")) {
        printf (control_usage, c->prog);
        return 0;
    }
    die ("invalid keyword: %s (show, ping, update, hold, uhold, release, "
         "requeue, suspend, resume, reconfigure or help)",
         cmd);
}

int cmd_control_main (int argc, char **argv)
{
    struct control_ctx c = { .prog = argv[0] };
    int rc;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    c.cl.ch.fd = -1;
    c.show.prog = c.prog;
    control_parse (&c, argc, argv);
    if (optind >= argc) {
        fprintf (stderr, control_usage, c.prog);
        return 1;
    }
    rc = control_dispatch (&c, argv[optind], argc - optind - 1,
                           argv + optind + 1);
    if (c.cl.ch.fd >= 0)
        client_close (&c.cl);
    return rc;
}
