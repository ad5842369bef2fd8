/* cmd_control.c - "arbor control" (scontrol): administration and details.
 *
 *     arbor control [-o] [-d] [--json] show ENTITY [ID]
 *     arbor control ping
 *     arbor control update NodeName=LIST|ALL State=DOWN|DRAIN|RESUME
 *                          [Reason=TEXT]
 *     arbor control update JobId=LIST KEY=VALUE...
 *     arbor control hold|uhold|release|requeue|suspend|resume JOBID...
 *     arbor control reconfigure
 *
 * Options may come anywhere on the line, as scontrol's may ("show job 5
 * -d"); -a and -F are taken and change nothing (Arbor hides no
 * partition and has no FUTURE nodes). This file parses the options and
 * dispatches. show and ping are
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
#include "cmd_jobaction.h"
#include "cmds.h"
#include "control/control.h"
#include "hostlist.h"
#include "log.h"
#include "opt.h"
#include "version.h"

struct control_ctx {
    const char *prog;
    struct control_show_opts show; /* -o, -d, --json */
    bool quiet;                    /* -Q */
    int verbose;                   /* -v */
    struct client cl;
};

enum { CONTROL_OPT_JSON = 256, CONTROL_OPT_HIDE };

/* --usage: scontrol's options in short. */
static const char *const control_synopsis[] = {
    "[-a] [-d] [-F] [-o] [-Q] [-v] [--json]",
    "[--help] [--usage] [-V] COMMAND [ARGS...]",
    NULL,
};

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
    "  show licenses [NAME] licenses: total, used, free\n"
    "  ping                 is the controller up? (exit 1 if not)\n"
    "  update NodeName=LIST State=STATE [Reason=TEXT]\n"
    "  update NodeName=LIST AvailableFeatures=a,b  set the nodes' features\n"
    "                       LIST: a host list, or ALL (every node);\n"
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
    "Options may come anywhere on the line (show job 5 -d).\n"
    "  -o, --oneliner       show: one line per record\n"
    "  -d, --details        show: more (a job's steps, a node's CpuSpeed)\n"
    "      --json           show job|step|node|partition: a JSON document\n"
    "                       (docs/json/control.md)\n"
    "  -a, --all            (every partition is always shown)\n"
    "  -F, --future         (no node is ever FUTURE in Arbor)\n"
    "  -Q, --quiet          no informational messages\n"
    "  -v, --verbose        say what is sent\n"
    "  -h, --help           this help\n"
    "      --usage          the options in short\n"
    "  -V, --version        the version (\"slurm X.Y.Z\" as scontrol)\n";

/* Connect once; later calls reuse the connection. */
static void control_open (struct control_ctx *c)
{
    arbor_error_t err;

    if (c->cl.ch.fd < 0 && client_open (&c->cl, &err) < 0)
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

/* NodeName=ALL: every node the controller has, as one ranged list
 * (the controller takes host lists, not the word). Caller frees. */
static char *control_all_nodes (struct control_ctx *c)
{
    struct msg_node_info req = { .nodelist = "" };
    struct msg_node_info_reply r;
    struct hostlist *hl;
    arbor_error_t err;
    char *list;

    control_open (c);
    if (client_call (&c->cl, MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("slurm_load_node error: %s", err.text);
    if (!(hl = hostlist_create (NULL, &err)))
        die ("%s", err.text);
    for (uint32_t i = 0; i < r.names_count; i++)
        if (hostlist_append (hl, r.names[i]) < 0)
            die ("out of memory");
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    if (!(list = hostlist_ranged (hl)))
        die ("out of memory");
    hostlist_destroy (hl);
    return list;
}

static int control_update (struct control_ctx *c, int argc, char **argv)
{
    struct msg_node_update m = { 0 };
    struct msg_rc rc;
    arbor_error_t err;
    const char *v;
    char *all = NULL;

    for (int i = 0; i < argc; i++) {
        if ((v = control_value (argv[i], "NodeName")))
            m.nodelist = (char *)v;
        else if ((v = control_value (argv[i], "State")))
            m.state = (char *)v;
        else if ((v = control_value (argv[i], "Reason")))
            m.reason = (char *)v;
        else if ((v = control_value (argv[i], "AvailableFeatures"))
                 || (v = control_value (argv[i], "ActiveFeatures"))
                 || (v = control_value (argv[i], "Features"))) {
            m.features_set = true; /* no node_features plugin: one list */
            m.features = (char *)v;
        } else if (!strchr (argv[i], '='))
            die ("invalid input: %s (expected KEY=VALUE)", argv[i]);
        else
            die ("Update of this parameter is not supported: %s "
                 "(arbor control updates NodeName=, State=, Reason=, "
                 "AvailableFeatures=, ActiveFeatures=)",
                 argv[i]);
    }
    if (!m.nodelist || !*m.nodelist)
        die ("update: NodeName=LIST is required");
    if ((!m.state || !*m.state) && !m.features_set)
        die ("update: State= or AvailableFeatures= is required");
    if (!strcasecmp (m.nodelist, "ALL"))
        m.nodelist = all = control_all_nodes (c);
    if (c->verbose)
        fprintf (stderr, "%s: update NodeName=%s State=%s\n", c->prog,
                 m.nodelist, m.state ? m.state : "");
    control_open (c);
    if (client_call (&c->cl, MSG_NODE_UPDATE, &m, MSG_RC, &rc,
                     CLIENT_TIMEOUT_MS, &err)
        < 0) {
        if (errno == EPERM)
            die ("Access/permission denied");
        die ("update NodeName=%s: %s", m.nodelist, err.text);
    }
    free (all);
    return 0;
}

/* ---- dispatch ------------------------------------------------------------ */

static void control_parse (struct control_ctx *c, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "oneliner", no_argument, NULL, 'o' },
        { "details", no_argument, NULL, 'd' },
        { "json", no_argument, NULL, CONTROL_OPT_JSON },
        { "all", no_argument, NULL, 'a' },
        { "future", no_argument, NULL, 'F' },
        { "hide", no_argument, NULL, CONTROL_OPT_HIDE },
        { "quiet", no_argument, NULL, 'Q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int o;

    opterr = 0;
    /* No '+': options may follow the command and its words, as scontrol
     * takes them ("show job 5 -d", "show nodes -oF"); a KEY=VALUE word
     * never starts with '-', and "--" ends the options. */
    while ((o = getopt_long (argc, argv, "odaFQvhV", longopts, NULL)) != -1) {
        switch (o) {
        case 'o': c->show.oneliner = true; break;
        case 'd': c->show.details = true; break;
        case CONTROL_OPT_JSON: c->show.json = true; break;
        /* Arbor hides no partition and has no FUTURE node state: every
         * node and partition is always shown, so these change nothing */
        case 'a':
        case 'F':
        case CONTROL_OPT_HIDE: break;
        case 'Q': c->quiet = true; break;
        case 'v': c->verbose++; break;
        case 'h': printf (control_usage, c->prog); exit (0);
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (o, c->prog, control_synopsis);
            break;
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
    if (word_is (cmd, "show") && argc > 0 && control_lic_entity (argv[0]))
        return control_lic_show (&c->show, argc, argv);
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
