/* cmd_prio.c - "arbor prio" (sprio): the priority of pending jobs and the
 * factors it is made of.
 *
 *   arbor prio [-h] [-l] [-n] [-w] [-j LIST] [-u LIST] [-p NAME]
 *
 * Sends PRIO_INFO (the -j ids, the -u uids and the -p partition, which
 * the controller selects on) and prints PRIO_INFO_REPLY as sprio does
 * (prio_text.h). A controller whose PriorityType is priority/basic gets
 * sprio's refusal and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "cmds.h"
#include "log.h"
#include "opt.h"
#include "prio_text.h"
#include "proto.h"
#include "version.h"

enum { PRIO_OPT_HELP = 0x100 };

struct prio_opts {
    struct prio_view view;
    const char *jobs;      /* -j, NULL: all */
    const char *users;     /* -u, NULL: all */
    const char *partition; /* -p, NULL: all */
};

static const char prio_usage[] =
    "Usage: %s [-h] [-l] [-n] [-w] [-j LIST] [-u LIST] [-p LIST]\n"
    "  -j, --jobs=LIST          only these job ids (comma-separated)\n"
    "  -u, --user=LIST          only jobs of these users (names or uids)\n"
    "  -p, --partition=LIST     only jobs in these partitions\n"
    "  -l, --long               the user and every factor, whatever its "
    "weight\n"
    "  -n, --norm               factors normalized to [0, 1]\n"
    "  -w, --weights            only the configured weight of each factor\n"
    "  -h, --noheader           no header line\n"
    "      --help               this help\n"
    "      --usage              the options in short\n"
    "  -V, --version            the version (\"slurm X.Y.Z\" as sprio)\n";

/* --usage: sprio's options in short. */
static const char *const prio_synopsis[] = {
    "[-hlnw] [-j jobs] [-u users] [-p partitions]",
    "[--help] [--usage] [-V]",
    NULL,
};

static const struct option prio_longopts[] = {
    { "noheader", no_argument, NULL, 'h' },
    { "jobs", optional_argument, NULL, 'j' },
    { "long", no_argument, NULL, 'l' },
    { "norm", no_argument, NULL, 'n' },
    { "partition", required_argument, NULL, 'p' },
    { "user", required_argument, NULL, 'u' },
    { "users", required_argument, NULL, 'u' },
    { "weights", no_argument, NULL, 'w' },
    { "help", no_argument, NULL, PRIO_OPT_HELP },
    VERSION_LONGOPTS,
    { NULL, 0, NULL, 0 },
};

/* -j takes its list joined ("-j5,6", "--jobs=5,6") or, as sprio's
 * optional argument allows, as a word of its own ("-j 5,6": getopt moves
 * it after the options); -j alone lists every job, as in sprio. */
static void prio_parse (struct prio_opts *o, int argc, char **argv)
{
    bool jobs_flag = false;
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, ":hj::lnp:u:wV", prio_longopts, NULL))
           != -1) {
        switch (c) {
        case 'h': o->view.noheader = true; break;
        case 'j':
            jobs_flag = true;
            o->jobs = optarg;
            break;
        case 'l': o->view.longfmt = true; break;
        case 'n': o->view.norm = true; break;
        case 'p': o->partition = optarg; break;
        case 'u': o->users = optarg; break;
        case 'w': o->view.weights_only = true; break;
        case PRIO_OPT_HELP: printf (prio_usage, argv[0]); exit (0);
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, argv[0], prio_synopsis);
            break;
        default: opt_getopt_die (c, argv, argv[0], prio_longopts);
        }
    }
    if (jobs_flag && !o->jobs && optind < argc)
        o->jobs = argv[optind++];
    if (optind < argc) {
        fprintf (stderr,
                 "%s: unexpected argument '%s'\n"
                 "Try '%s --help' for more information.\n",
                 argv[0], argv[optind], argv[0]);
        exit (1);
    }
    o->view.jobs = o->jobs != NULL;
    o->view.users = o->users != NULL;
}

/* Calls fn on each item of comma-separated 'list'. */
static void prio_each (const char *list, void (*fn) (const char *, void *),
                       void *arg)
{
    char *copy = strdup (list), *save = NULL;

    if (!copy)
        die ("out of memory");
    for (char *t = strtok_r (copy, ",", &save); t;
         t = strtok_r (NULL, ",", &save))
        fn (t, arg);
    free (copy);
}

/* Append v to a u32 list of the request. */
static void prio_push (uint32_t **list, uint32_t *count, uint32_t v)
{
    uint32_t *grown = realloc (*list, (*count + 1) * sizeof (**list));

    if (!grown)
        die ("out of memory");
    grown[(*count)++] = v;
    *list = grown;
}

static void prio_add_job (const char *word, void *arg)
{
    struct msg_prio_info *req = arg;
    uint32_t id;

    if (opt_parse_count (word, false, &id) < 0)
        die ("Invalid job id: %s", word);
    prio_push (&req->job_ids, &req->job_ids_count, id);
}

/* A user name, or a uid (which need not have a passwd entry). */
static void prio_add_user (const char *word, void *arg)
{
    struct msg_prio_info *req = arg;
    struct passwd *pw = getpwnam (word);
    uint32_t uid;

    if (pw)
        uid = (uint32_t)pw->pw_uid;
    else if (opt_parse_count (word, true, &uid) < 0)
        die ("Invalid user: %s", word);
    prio_push (&req->uids, &req->uids_count, uid);
}

/* PRIO_INFO carries one partition: a list ("-p a,b") is asked for as
 * every partition and filtered here (prio_view.partitions). */
static void prio_request (struct prio_opts *o, struct msg_prio_info *req)
{
    memset (req, 0, sizeof (*req));
    if (o->jobs)
        prio_each (o->jobs, prio_add_job, req);
    if (o->users)
        prio_each (o->users, prio_add_user, req);
    req->partition = "";
    if (o->partition && strchr (o->partition, ','))
        o->view.partitions = o->partition;
    else if (o->partition)
        req->partition = (char *)o->partition;
}

int cmd_prio_main (int argc, char **argv)
{
    struct prio_opts o = { 0 };
    struct msg_prio_info req;
    struct msg_prio_info_reply r;
    struct client cl;
    arbor_error_t err;
    char msg[256];

    log_open (argv[0], LOG_LVL_INFO, NULL);
    prio_parse (&o, argc, argv);
    prio_request (&o, &req);
    if (client_open (&cl, &err) < 0
        || client_call (&cl, MSG_PRIO_INFO, &req, MSG_PRIO_INFO_REPLY, &r,
                        CLIENT_TIMEOUT_MS, &err)
               < 0)
        die ("Couldn't get priority factors from controller: %s", err.text);
    free (req.job_ids);
    free (req.uids);
    client_close (&cl);
    if (prio_text_unsupported (r.type, msg, sizeof (msg))) {
        fputs (msg, stderr);
        proto_clear (MSG_PRIO_INFO_REPLY, &r);
        return 1;
    }
    if (prio_text_print (stdout, &r, &o.view) < 0)
        die ("out of memory");
    proto_clear (MSG_PRIO_INFO_REPLY, &r);
    return 0;
}
