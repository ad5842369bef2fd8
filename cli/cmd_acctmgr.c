/* cmd_acctmgr.c - "arbor acctmgr" (sacctmgr): show and change the site's
 * policy: its clusters, accounts, users, coordinators and associations.
 *
 *   arbor acctmgr [-hinpPQsV] VERB ENTITY [NAMES] [KEY=VALUE...]
 *                 [where KEY=VALUE...] [set KEY=VALUE...]
 *
 * The words become one ASSOC_REQ (acctmgr/acctmgr_args.h); the controller
 * checks it against who asks and answers. show prints the reply's table
 * (acctmgr/acctmgr_table.h). A change (add, modify, delete) is first sent
 * as a dry run: what would change is printed and the user is asked, as
 * sacctmgr asks, before the same request is sent for real; -i commits
 * at once. The connection is closed while the question waits (up to 30
 * s), and a new one made for the commit, so that an idle connection's
 * fate is never the question. Errors are "sacctmgr: error: TEXT", exit
 * status 1.
 *
 * Options are read wherever they are, as sacctmgr's getopt reads them
 * ("sacctmgr show assoc -P" works); "--" ends them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acctmgr/acctmgr.h"
#include "client.h"
#include "cmds.h"
#include "log.h"
#include "opt.h"
#include "proto.h"
#include "version.h"

struct acctmgr_opts {
    bool immediate;           /* -i */
    bool quiet;               /* -Q */
    struct acctmgr_view view; /* -n, -p, -P; entity and format later */
};

static const char acctmgr_help[] =
    "Usage: %s [OPTIONS] VERB ENTITY [NAMES] [KEY=VALUE...]\n"
    "         [where KEY=VALUE...] [set KEY=VALUE...]\n"
    "  VERB     add (create), modify (update), delete (remove), "
    "show (list)\n"
    "  ENTITY   account, user, cluster, qos, coordinator, association "
    "(assoc)\n"
    "  show ... format=NAME[%%N],...  the columns to show\n\n"
    "  -i, --immediate       commit changes without asking\n"
    "  -n, --noheader        no header line\n"
    "  -p, --parsable        '|' after every field\n"
    "  -P, --parsable2       '|' between fields\n"
    "  -Q, --quiet           no messages but errors\n"
    "  -s, --associations    accepted (every show lists them)\n"
    "  -h, --help            this help\n"
    "      --usage           the options in short\n"
    "  -V, --version         the version\n";

static const char *const acctmgr_synopsis[] = {
    "[-hinpPQsV] VERB ENTITY [NAMES] [KEY=VALUE...]",
    "[where KEY=VALUE...] [set KEY=VALUE...]",
    NULL,
};

static const struct option acctmgr_longopts[] = {
    { "immediate", no_argument, NULL, 'i' },
    { "noheader", no_argument, NULL, 'n' },
    { "parsable", no_argument, NULL, 'p' },
    { "parsable2", no_argument, NULL, 'P' },
    { "quiet", no_argument, NULL, 'Q' },
    { "associations", no_argument, NULL, 's' },
    { "help", no_argument, NULL, 'h' },
    VERSION_LONGOPTS,
    { NULL, 0, NULL, 0 },
};

/* The options; returns the index of the first command word (getopt has
 * moved them all after the options). */
static int acctmgr_parse_opts (struct acctmgr_opts *o, int argc, char **argv)
{
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, ":hinpPQsV", acctmgr_longopts, NULL))
           != -1) {
        switch (c) {
        case 'i': o->immediate = true; break;
        case 'n': o->view.noheader = true; break;
        case 'p': o->view.layout = ACCTMGR_PARSABLE; break;
        case 'P': o->view.layout = ACCTMGR_PARSABLE2; break;
        case 'Q': o->quiet = true; break;
        case 's': break; /* every show lists the associations */
        case 'h': printf (acctmgr_help, argv[0]); exit (0);
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, argv[0], acctmgr_synopsis);
            break;
        default: opt_getopt_die (c, argv, argv[0], acctmgr_longopts);
        }
    }
    return optind;
}

/* One request, on a connection of its own; dies with the controller's
 * refusal or the failure to reach it. Caller proto_clear()s *reply. */
static void acctmgr_call (const struct msg_assoc_req *req,
                          struct msg_assoc_reply *reply)
{
    struct client cl;
    arbor_error_t err;

    memset (reply, 0, sizeof (*reply));
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    if (client_call (&cl, MSG_ASSOC_REQ, req, MSG_ASSOC_REPLY, reply,
                     CLIENT_TIMEOUT_MS, &err)
        < 0) {
        if (client_conn_lost (errno))
            die ("Problem talking to the controller: %s", err.text);
        die ("%s", err.text);
    }
    client_close (&cl);
}

/* What was (or would be) changed, or sacctmgr's "Nothing ..." line. */
static void acctmgr_said (const struct acctmgr_opts *o, const char *verb,
                          const char *said)
{
    if (o->quiet)
        return;
    if (said && *said)
        fputs (said, stdout);
    else if (!strcmp (verb, "add"))
        puts (" Nothing new added.");
    else if (!strcmp (verb, "modify"))
        puts (" Nothing modified");
    else
        puts (" Nothing deleted");
}

/* add, modify, delete: a dry run and the question, unless -i. */
static int acctmgr_change (const struct acctmgr_opts *o,
                           struct acctmgr_cmd *cmd)
{
    struct msg_assoc_reply reply;
    enum acctmgr_answer answer;
    bool nothing;

    cmd->req.dry_run = !o->immediate;
    acctmgr_call (&cmd->req, &reply);
    nothing = !reply.said || !*reply.said;
    acctmgr_said (o, cmd->req.verb, reply.said);
    proto_clear (MSG_ASSOC_REPLY, &reply);
    if (o->immediate || nothing)
        return 0;
    answer = acctmgr_ask (stdout, STDIN_FILENO, ACCTMGR_ASK_TIMEOUT_MS);
    if (answer == ACCTMGR_YES) {
        cmd->req.dry_run = false;
        acctmgr_call (&cmd->req, &reply);
        proto_clear (MSG_ASSOC_REPLY, &reply);
        return 0;
    }
    if (answer == ACCTMGR_UNANSWERED)
        putchar ('\n'); /* nobody ended the prompt's line */
    if (!o->quiet)
        puts (" Changes Discarded");
    return 0;
}

static int acctmgr_show (const struct acctmgr_opts *o,
                         const struct acctmgr_cmd *cmd)
{
    struct msg_assoc_reply reply;
    arbor_error_t err;
    int rc;

    acctmgr_call (&cmd->req, &reply);
    rc = acctmgr_table_print (stdout, &reply, &o->view, &err);
    proto_clear (MSG_ASSOC_REPLY, &reply);
    if (rc < 0)
        die ("%s", err.text);
    return 0;
}

int cmd_acctmgr_main (int argc, char **argv)
{
    struct acctmgr_opts o = { .view.layout = ACCTMGR_FIXED };
    struct acctmgr_cmd cmd;
    arbor_error_t err;
    int first, rc;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    first = acctmgr_parse_opts (&o, argc, argv);
    if (first >= argc) {
        fprintf (stderr,
                 "%s: error: no command given (sacctmgr's interactive "
                 "mode is not supported)\n"
                 "Try '%s --help' for more information.\n",
                 argv[0], argv[0]);
        return 1;
    }
    if (acctmgr_args_parse (&cmd, argc - first, argv + first, &err) < 0)
        die ("%s", err.text);
    o.view.entity = cmd.req.entity;
    o.view.format = cmd.format;
    if (!strcmp (cmd.req.verb, "show"))
        rc = acctmgr_show (&o, &cmd);
    else
        rc = acctmgr_change (&o, &cmd);
    acctmgr_cmd_clear (&cmd);
    return rc;
}
