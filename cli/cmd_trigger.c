/* cmd_trigger.c - "arbor trigger" (strigger): set, list and clear event
 * triggers (ctld/notify/trigger.h says what fires them and who may do what).
 *
 *   arbor trigger --set [-dDFfItu] [-j ID | -n[HOSTS]] [-o SEC]
 *                 -p PROGRAM [--flags=PERM]
 *   arbor trigger --get [-dDFfItu] [-i ID] [-j ID] [-n] [--user=U] [-N]
 *   arbor trigger --clear [-i ID] [-j ID] [--user=U] [-Q]
 *
 * The options and their checks are strigger's: exactly one of --set,
 * --get and --clear; --set needs an event and an absolute --program
 * naming a regular file; --fini and --time need --jobid, which excludes
 * --node; --clear needs --id, --jobid or --user. Success prints nothing
 * (-v says what was done); an error is "strigger: error: ..." and exit
 * status 1 (-Q: --clear's errors are not reported, status 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "client.h"
#include "cmds.h"
#include "log.h"
#include "opt.h"
#include "proto.h"
#include "trigger_text.h"
#include "trigtype.h"
#include "version.h"

enum {
    TOPT_SET = 0x100,
    TOPT_GET,
    TOPT_CLEAR,
    TOPT_FLAGS,
    TOPT_USER,
    TOPT_HELP,
};

struct trig_opts {
    int mode;       /* TOPT_SET, TOPT_GET, TOPT_CLEAR; 0 none yet */
    int nmodes;     /* how many were given */
    uint32_t types; /* TRIG_* */
    uint32_t trig_id, job_id;
    uint32_t uid;     /* --user; UINT32_MAX none */
    const char *node; /* -n: "*" without a value */
    int32_t offset;
    const char *program;
    uint32_t flags;
    bool noheader, quiet;
    int verbose;
};

static const char trig_help[] =
    "Usage: %s [--set | --get | --clear] [OPTIONS]\n"
    "      --set           create a trigger\n"
    "      --get           list triggers\n"
    "      --clear         delete triggers\n\n"
    "  -d, --down          when a node goes DOWN\n"
    "  -D, --drained       when a node becomes DRAINED\n"
    "  -F, --fail          when a node is expected to FAIL (never, in Arbor)\n"
    "  -f, --fini          when the job finishes\n"
    "      --flags=perm    keep the trigger after it fires\n"
    "  -i, --id=ID         a trigger's id\n"
    "  -I, --idle          when a node stays IDLE for --offset seconds\n"
    "  -j, --jobid=ID      about this job (its nodes for --down, --up)\n"
    "  -n, --node[=HOSTS]  about these nodes (all by default)\n"
    "  -N, --noheader      no header line\n"
    "  -o, --offset=SEC    run the program SEC s after the event (before it\n"
    "                      when negative: --time)\n"
    "  -p, --program=PATH  program to run, with arguments if quoted\n"
    "  -Q, --quiet         do not report --clear's errors\n"
    "  -t, --time          when the job reaches its time limit\n"
    "  -u, --up            when a node comes back from DOWN\n"
    "      --user=USER     triggers of this user (name or uid)\n"
    "  -v, --verbose       say what was done\n"
    "  -V, --version       the version\n"
    "      --help          this help\n"
    "      --usage         the options in short\n";

static const char *const trig_synopsis[] = {
    "[--set | --get | --clear | --version] [-dDfFiIjnNopQtuv]",
    NULL,
};

static const struct option trig_longopts[] = {
    { "set", no_argument, NULL, TOPT_SET },
    { "get", no_argument, NULL, TOPT_GET },
    { "clear", no_argument, NULL, TOPT_CLEAR },
    { "down", no_argument, NULL, 'd' },
    { "drained", no_argument, NULL, 'D' },
    { "fail", no_argument, NULL, 'F' },
    { "fini", no_argument, NULL, 'f' },
    { "flags", required_argument, NULL, TOPT_FLAGS },
    { "id", required_argument, NULL, 'i' },
    { "idle", no_argument, NULL, 'I' },
    { "jobid", required_argument, NULL, 'j' },
    { "node", optional_argument, NULL, 'n' },
    { "noheader", no_argument, NULL, 'N' },
    { "offset", required_argument, NULL, 'o' },
    { "program", required_argument, NULL, 'p' },
    { "quiet", no_argument, NULL, 'Q' },
    { "time", no_argument, NULL, 't' },
    { "up", no_argument, NULL, 'u' },
    { "user", required_argument, NULL, TOPT_USER },
    { "verbose", no_argument, NULL, 'v' },
    { "help", no_argument, NULL, TOPT_HELP },
    VERSION_LONGOPTS,
    { NULL, 0, NULL, 0 },
};

static uint32_t trig_id_arg (const char *what, const char *s)
{
    uint32_t v;

    if (opt_parse_count (s, false, &v) < 0)
        die ("Invalid %s %s", what, s);
    return v;
}

/* A user name, or a uid (which need not have a passwd entry). */
static uint32_t trig_user_arg (const char *s)
{
    struct passwd *pw = getpwnam (s);
    uint32_t uid;

    if (pw)
        return (uint32_t)pw->pw_uid;
    if (opt_parse_count (s, true, &uid) < 0)
        die ("Invalid user %s", s);
    return uid;
}

static int32_t trig_offset_arg (const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = strtol (s, &end, 10);
    if (errno || end == s || *end || v < -TRIG_OFFSET_MAX
        || v > TRIG_OFFSET_MAX)
        die ("The --offset parameter must be between +/-%d", TRIG_OFFSET_MAX);
    return (int32_t)v;
}

/* One option; the modes and event types are counted. */
static void trig_option (struct trig_opts *o, int c, char **argv)
{
    switch (c) {
    case TOPT_SET:
    case TOPT_GET:
    case TOPT_CLEAR:
        o->mode = c;
        o->nmodes++;
        break;
    case 'd': o->types |= TRIG_DOWN; break;
    case 'D': o->types |= TRIG_DRAINED; break;
    case 'F': o->types |= TRIG_FAIL; break;
    case 'f': o->types |= TRIG_FINI; break;
    case 'I': o->types |= TRIG_IDLE; break;
    case 't': o->types |= TRIG_TIME; break;
    case 'u': o->types |= TRIG_UP; break;
    case 'i': o->trig_id = trig_id_arg ("trigger id", optarg); break;
    case 'j': o->job_id = trig_id_arg ("jobid", optarg); break;
    case 'n': o->node = optarg && *optarg ? optarg : "*"; break;
    case 'N': o->noheader = true; break;
    case 'o': o->offset = trig_offset_arg (optarg); break;
    case 'p': o->program = optarg; break;
    case 'Q': o->quiet = true; break;
    case 'v': o->verbose++; break;
    case TOPT_USER: o->uid = trig_user_arg (optarg); break;
    case TOPT_FLAGS:
        if (strcasecmp (optarg, "perm") != 0)
            die ("Invalid flags %s", optarg);
        o->flags = TRIG_FLAG_PERM;
        break;
    case TOPT_HELP: printf (trig_help, argv[0]); exit (0);
    case 'V':
    case VERSION_OPT_USAGE: version_option (c, argv[0], trig_synopsis); break;
    default: opt_getopt_die (c, argv, argv[0], trig_longopts);
    }
}

/* The program as strigger checks it: absolute, a regular file. */
static void trig_check_program (const char *program)
{
    size_t n = strcspn (program, " \t");
    char *path = strndup (program, n);
    struct stat st;

    if (!path)
        die ("out of memory");
    if (program[0] != '/')
        die ("The --program value must start with \"/\"");
    if (stat (path, &st) < 0)
        die ("Invalid --program value, file not found");
    if (!S_ISREG (st.st_mode))
        die ("Invalid --program value, not regular file");
    free (path);
}

static void trig_validate (const struct trig_opts *o)
{
    if (o->nmodes != 1)
        die ("You must use exactly one of the following options: --set, "
             "--get or --clear");
    if (o->mode == TOPT_CLEAR && !o->trig_id && !o->job_id
        && o->uid == UINT32_MAX)
        die ("You must specify a --id, --jobid, or --user to clear");
    if (o->mode != TOPT_SET)
        return;
    if (!o->types)
        die ("You must specify a trigger (--down, --up, --drained, --fail, "
             "--idle, --time or --fini)");
    if (!o->program)
        die ("You must specify a --program value");
    if ((o->types & (TRIG_FINI | TRIG_TIME)) && !o->job_id)
        die ("You must specify a --jobid value");
    if (o->job_id && o->node)
        die ("--jobid and --node may not be used together");
    trig_check_program (o->program);
}

static void trig_parse (struct trig_opts *o, int argc, char **argv)
{
    int c;

    o->uid = UINT32_MAX;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, ":dDFfi:Ij:n::No:p:QtuvV",
                             trig_longopts, NULL))
           != -1)
        trig_option (o, c, argv);
    if (optind < argc)
        die ("unexpected argument '%s'; try '%s --help'", argv[optind],
             argv[0]);
    trig_validate (o);
}

static int trig_set (struct client *cl, const struct trig_opts *o)
{
    char job[16];
    struct msg_trigger_set m = {
        .res_type = o->job_id ? TRIG_RES_JOB : TRIG_RES_NODE,
        .res_id = o->node ? (char *)o->node : "*",
        .types = o->types,
        .offset = o->offset,
        .flags = o->flags,
        .program = (char *)o->program,
    };
    struct msg_trigger_set_reply r;
    arbor_error_t err;

    if (o->job_id) {
        snprintf (job, sizeof (job), "%u", o->job_id);
        m.res_id = job;
    }
    if (client_call (cl, MSG_TRIGGER_SET, &m, MSG_TRIGGER_SET_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("%s", err.text);
    if (o->verbose)
        fprintf (stderr, "%s: trigger %u set\n", "strigger", r.trig_id);
    proto_clear (MSG_TRIGGER_SET_REPLY, &r);
    return 0;
}

static int trig_get (struct client *cl, const struct trig_opts *o)
{
    struct msg_trigger_get m = { o->trig_id, o->job_id, o->uid };
    struct trigger_filter flt = { o->types, o->node != NULL };
    struct msg_trigger_get_reply r;
    arbor_error_t err;

    if (client_call (cl, MSG_TRIGGER_GET, &m, MSG_TRIGGER_GET_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("%s", err.text);
    if (o->verbose)
        fprintf (stderr, "strigger: read %u trigger records\n",
                 r.trig_ids_count);
    trigger_text_print (stdout, &r, &flt, o->noheader);
    proto_clear (MSG_TRIGGER_GET_REPLY, &r);
    return 0;
}

static int trig_clear (struct client *cl, const struct trig_opts *o)
{
    struct msg_trigger_clear m = { o->trig_id, o->job_id, o->uid };
    arbor_error_t err;

    if (client_call (cl, MSG_TRIGGER_CLEAR, &m, MSG_RC, NULL, CLIENT_TIMEOUT_MS,
                     &err)
        < 0) {
        if (o->quiet)
            return 0;
        die ("%s", err.text);
    }
    if (o->verbose)
        fprintf (stderr, "strigger: %s\n",
                 o->job_id    ? "triggers of the job cleared"
                 : o->trig_id ? "trigger cleared"
                              : "triggers of the user cleared");
    return 0;
}

int cmd_trigger_main (int argc, char **argv)
{
    struct trig_opts o = { 0 };
    struct client cl;
    arbor_error_t err;
    int rc;

    log_open (version_is_slurm (argv[0]) ? "strigger" : "arbor trigger",
              LOG_LVL_INFO, NULL);
    trig_parse (&o, argc, argv);
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    if (o.mode == TOPT_SET)
        rc = trig_set (&cl, &o);
    else if (o.mode == TOPT_GET)
        rc = trig_get (&cl, &o);
    else
        rc = trig_clear (&cl, &o);
    client_close (&cl);
    return rc;
}
