/* cmd_stat.c - "arbor stat" (sstat): what the tasks of running steps use
 * now, asked of the nodes that run them.
 *
 *     arbor stat -j 5            the lowest-numbered step of job 5
 *     arbor stat -a -j 5         every running step, batch and extern too
 *     arbor stat -j 5.1,6.batch  those steps
 *
 * The controller names the running steps and their nodes (STEP_INFO,
 * NODE_INFO); each node's noded is asked directly (STEP_STAT, as the
 * launcher reaches a node), and answers for the step's owner, root and
 * ArborUser only. The nodes' answers are summed per step (stat_step.h)
 * and printed with sstat's fields on sacct's layouts (stat_fields.h):
 * -o/--format, -p/-P, -n, -i (JobID,Nodelist,Pids), -e. A step that
 * cannot be shown is said on stderr and makes the exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "cmds.h"
#include "conf.h"
#include "hostlist.h"
#include "jobsel.h"
#include "log.h"
#include "opt.h"
#include "stat_fields.h"
#include "stat_step.h"
#include "version.h"

#define STAT_OPT_HELP 0x100

/* One -j item. */
struct stat_sel {
    uint32_t job, task, step; /* task: JOBSEL_NO_TASK; step: STEP_ID_ALL */
    const char *text;
};

struct stat_opts {
    const char *prog;
    struct stat_sel *sels;
    size_t nsels;
    bool all_steps, noheader;
    const char *fields;
    enum acct_layout layout;
    struct acct_format fmt;
};

struct stat_ctx {
    struct stat_opts *o;
    struct client cl;
    uid_t noded_uid;
    struct msg_step_info_reply steps;
    struct msg_node_info_reply nodes;
    int rc;
};

static const char stat_usage[] =
    "Usage: %s -j JOB[.STEP][,...] [-a] [-o FIELDS] [-n] [-p | -P] [-i]\n"
    "  -j, --jobs=LIST        jobs or steps (JOB: its lowest-numbered step)\n"
    "  -a, --allsteps         every running step of the jobs named\n"
    "  -o, --format=FIELDS    fields to show (-e lists them), NAME%%WIDTH\n"
    "  -i, --pidformat        JobID,Nodelist,Pids\n"
    "  -n, --noheader         no header\n"
    "  -p, --parsable         '|' after each value\n"
    "  -P, --parsable2        '|' between values\n"
    "  -e, --helpformat       list the fields\n"
    "  -h, --help             this help\n"
    "      --usage            the options in short\n"
    "  -V, --version          the version (\"slurm X.Y.Z\" as sstat)\n";

/* --usage: sstat's options in short. */
static const char *const stat_synopsis[] = {
    "[-aeinPp] [-o fields] -j job[.step][,...]",
    "[--help] [--usage] [-V]",
    NULL,
};

static void __attribute__ ((noreturn))
stat_die (const struct stat_opts *o, const char *text)
{
    fprintf (stderr, "%s: error: %s\n", o->prog, text);
    exit (1);
}

static void stat_add_jobs (struct stat_opts *o, const char *list)
{
    char *copy = strdup (list), *save = NULL;

    if (!copy)
        die ("out of memory");
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        struct stat_sel *s = realloc (o->sels, (o->nsels + 1) * sizeof (*s));
        char msg[160];
        if (!s)
            die ("out of memory");
        o->sels = s;
        s = &o->sels[o->nsels];
        if (jobsel_parse_id (t, &s->job, &s->task, &s->step) < 0) {
            snprintf (msg, sizeof (msg), "Invalid job id: %s", t);
            stat_die (o, msg);
        }
        s->text = strdup (t);
        o->nsels++;
    }
    free (copy); /* each sel's text is its own copy, kept to the end */
}

static void stat_parse (struct stat_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "allsteps", no_argument, NULL, 'a' },
        { "helpformat", no_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },
        { "pidformat", no_argument, NULL, 'i' },
        { "jobs", required_argument, NULL, 'j' },
        { "noheader", no_argument, NULL, 'n' },
        { "format", required_argument, NULL, 'o' },
        { "fields", required_argument, NULL, 'o' },
        { "parsable", no_argument, NULL, 'p' },
        { "parsable2", no_argument, NULL, 'P' },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":aehij:no:pPV", longopts, NULL))
           != -1) {
        switch (c) {
        case 'a': o->all_steps = true; break;
        case 'e': acct_fields_list_in (stdout, &stat_table); exit (0);
        case 'h': printf (stat_usage, o->prog); exit (0);
        case 'i': o->fields = STAT_PID_FORMAT; break;
        case 'j': stat_add_jobs (o, optarg); break;
        case 'n': o->noheader = true; break;
        case 'o': o->fields = optarg; break;
        case 'p': o->layout = ACCT_PARSABLE; break;
        case 'P': o->layout = ACCT_PARSABLE2; break;
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, o->prog, stat_synopsis);
            break;
        default: opt_getopt_die (c, argv, o->prog, longopts);
        }
    }
    for (; optind < argc; optind++) /* sstat also takes them bare */
        stat_add_jobs (o, argv[optind]);
    if (o->nsels == 0)
        stat_die (o, "no job given: use -j JOB[.STEP]");
}

static void stat_format (struct stat_opts *o)
{
    arbor_error_t err;

    if (acct_format_parse_in (&o->fmt,
                              o->fields ? o->fields : STAT_DEFAULT_FORMAT,
                              &stat_table, &err)
        < 0)
        stat_die (o, err.text);
    if (o->fmt.ncols == 0)
        stat_die (o, "no fields to show");
}

/* ---- asking -------------------------------------------------------------- */

static void stat_error (struct stat_ctx *x, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void stat_error (struct stat_ctx *x, const char *fmt, ...)
{
    va_list ap;

    fprintf (stderr, "%s: error: ", x->o->prog);
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
    x->rc = 1;
}

/* The running steps of the jobs named (of every job when an array task
 * is named: which job it is, the controller's answer says) and every
 * node's address. */
static void stat_fetch (struct stat_ctx *x)
{
    struct msg_node_info nreq = { .nodelist = "" };
    struct msg_step_info sreq = { 0 };
    uint32_t *ids = calloc (x->o->nsels, sizeof (*ids));
    arbor_error_t err;
    bool any_task = false;

    if (!ids)
        die ("out of memory");
    for (size_t i = 0; i < x->o->nsels; i++) {
        ids[i] = x->o->sels[i].job;
        any_task |= x->o->sels[i].task != JOBSEL_NO_TASK;
    }
    if (!any_task) {
        sreq.job_ids = ids;
        sreq.job_ids_count = (uint32_t)x->o->nsels;
    }
    if (client_call (&x->cl, MSG_STEP_INFO, &sreq, MSG_STEP_INFO_REPLY,
                     &x->steps, CLIENT_TIMEOUT_MS, &err)
            < 0
        || client_call (&x->cl, MSG_NODE_INFO, &nreq, MSG_NODE_INFO_REPLY,
                        &x->nodes, CLIENT_TIMEOUT_MS, &err)
               < 0)
        stat_die (x->o, err.text);
    free (ids);
}

/* Ask every node of step entry i; s sums their answers. 0, or -1 when
 * some node could not answer (said on stderr). */
static int stat_ask_nodes (struct stat_ctx *x, uint32_t i, struct stat_step *s)
{
    struct msg_step_stat m = { x->steps.job_ids[i], x->steps.step_ids[i] };
    struct hostlist *hl = hostlist_create (s->nodelist, NULL);
    char id[48];
    int rc = 0;

    jobsel_id_str (m.job_id, m.step_id, id, sizeof (id));
    if (!hl)
        die ("step %s: bad node list '%s'", id, s->nodelist);
    for (size_t k = 0; k < hostlist_count (hl); k++) {
        const char *node = hostlist_nth (hl, k);
        struct msg_step_stat_reply r;
        arbor_error_t err;
        if (rpc_call (x->cl.auth, client_node_addr (&x->nodes, node),
                      (uint16_t)x->cl.conf->noded_port, x->noded_uid,
                      MSG_STEP_STAT, &m, MSG_STEP_STAT_REPLY, &r,
                      CLIENT_TIMEOUT_MS, &err)
            < 0) {
            stat_error (x, "%s on %s: %s", id, node, err.text);
            rc = -1;
            continue;
        }
        if (stat_step_add (s, &r) < 0)
            die ("out of memory");
        proto_clear (MSG_STEP_STAT_REPLY, &r);
    }
    hostlist_destroy (hl);
    return rc;
}

static void stat_show (struct stat_ctx *x, uint32_t i)
{
    struct stat_step s;
    struct acct_row row = { .now = time (NULL) };

    if (stat_step_init (&s, x->steps.job_ids[i], x->steps.step_ids[i],
                        i < x->steps.nodelists_count ? x->steps.nodelists[i]
                                                     : "")
        < 0)
        die ("out of memory");
    if (stat_ask_nodes (x, i, &s) == 0) {
        row.ext = &s;
        acct_print_row (stdout, &x->o->fmt, x->o->layout, &row);
    }
    stat_step_clear (&s);
}

/* ---- choosing ------------------------------------------------------------ */

static bool stat_of_job (const struct stat_sel *sel,
                         const struct msg_step_info_reply *r, uint32_t i)
{
    if (sel->task == JOBSEL_NO_TASK)
        return r->job_ids[i] == sel->job;
    return i < r->array_job_ids_count && r->array_job_ids[i] == sel->job
           && i < r->array_task_ids_count && r->array_task_ids[i] == sel->task;
}

/* The steps of one -j item, shown in the controller's order: the step
 * named; with -a every step; else the lowest-numbered one that is not
 * batch, extern or interactive, as sstat picks. */
static void stat_sel_show (struct stat_ctx *x, const struct stat_sel *sel)
{
    const struct msg_step_info_reply *r = &x->steps;
    int lowest = -1;
    bool shown = false;

    for (uint32_t i = 0; i < r->job_ids_count && i < r->step_ids_count; i++) {
        if (!stat_of_job (sel, r, i))
            continue;
        if (sel->step == STEP_ID_ALL && !x->o->all_steps) {
            if (r->step_ids[i] < STEP_ID_INTERACTIVE
                && (lowest < 0 || r->step_ids[i] < r->step_ids[lowest]))
                lowest = (int)i;
        } else if (x->o->all_steps || r->step_ids[i] == sel->step) {
            stat_show (x, i);
            shown = true;
        }
    }
    if (lowest >= 0) {
        stat_show (x, (uint32_t)lowest);
        shown = true;
    }
    if (!shown && sel->step == STEP_ID_ALL)
        stat_error (x, "job %s has no running steps%s", sel->text,
                    x->o->all_steps ? "" : " (-a shows batch and extern ones)");
    else if (!shown)
        stat_error (x, "step %s is not running", sel->text);
}

int cmd_stat_main (int argc, char **argv)
{
    struct stat_opts o = { .prog = argv[0] };
    struct stat_ctx x = { .o = &o, .cl.ch.fd = -1 };
    arbor_error_t err;
    long uid;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    stat_parse (&o, argc, argv);
    stat_format (&o);
    if (client_open (&x.cl, &err) < 0)
        stat_die (&o, err.text);
    if ((uid = conf_noded_uid (x.cl.conf)) < 0)
        die ("NodedUser %s: no such user", x.cl.conf->noded_user);
    x.noded_uid = (uid_t)uid;
    stat_fetch (&x);
    if (!o.noheader)
        acct_print_header (stdout, &o.fmt, o.layout);
    for (size_t i = 0; i < o.nsels; i++)
        stat_sel_show (&x, &o.sels[i]);
    proto_clear (MSG_STEP_INFO_REPLY, &x.steps);
    proto_clear (MSG_NODE_INFO_REPLY, &x.nodes);
    client_close (&x.cl);
    acct_format_clear (&o.fmt);
    for (size_t i = 0; i < o.nsels; i++)
        free ((char *)o.sels[i].text);
    free (o.sels);
    return x.rc;
}
