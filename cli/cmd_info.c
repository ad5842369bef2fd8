/* cmd_info.c - "arbor info" (sinfo): partitions and nodes.
 *
 * The layout is an sinfo format (fmt.h, info_fields.h): -o/--format
 * "%9P %.6D %t", -O/--Format "Partition:10,Nodes", or one of sinfo's
 * own: -s (summary, NODES(A/I/O/T)), -N (a line per node), -R (why
 * nodes are down or drained), -l (longer versions of each), unless
 * $SINFO_FORMAT (taken as an -o) is set; else the default:
 *     PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST
 *     debug*       up   infinite      6   idle node[1-4,7-8]
 * Nodes of a partition that print alike share a line (info_rows.h);
 * lines are sorted by -S / $SINFO_SORT, sinfo's "#P,-t" by default
 * (partitions as configured, then state), "N" with -N. -p, -t, -n, -d
 * and -r choose the nodes: -n goes to the controller (NODE_INFO's
 * nodelist), the others filter its answer. --json writes every shown
 * node and partition as one document (info_json.h) whatever the format.
 * Node data comes from NODE_INFO; partition limits from arbor.conf.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct.h"
#include "client.h"
#include "cmds.h"
#include "fmt.h"
#include "info/info.h"
#include "json/json.h"
#include "log.h"
#include "opt.h"
#include "version.h"

struct info_opts {
    bool node_view, noheader, reasons, longfmt, summarize, exact, json;
    int responding;          /* -d: 0, -r: 1, else -1 */
    const char *partition;   /* -p, or $SINFO_PARTITION */
    const char *nodes;       /* -n */
    const char *states;      /* -t */
    const char *format;      /* -o */
    const char *format_long; /* -O */
    const char *sort;        /* -S */
};

static const char info_usage[] =
    "Usage: %s [-N] [-R] [-s] [-l] [-e] [-h] [-p PARTITION] [-n NODES]\n"
    "          [-t STATES] [-d | -r] [-o FORMAT | -O FIELDS] [-S KEYS]"
    " [--json]\n"
    "  -N, --Node             one line per node (and partition)\n"
    "  -R, --list-reasons     why nodes are down, drained or draining\n"
    "  -s, --summarize        partitions with NODES(A/I/O/T), no states\n"
    "  -l, --long             more columns\n"
    "  -e, --exact            no \"4+\": nodes that differ get own lines\n"
    "  -p, --partition=LIST   only these partitions\n"
    "  -n, --nodes=HOSTLIST   only these nodes\n"
    "  -t, --states=LIST      only nodes in these states (idle, mix, alloc,\n"
    "                         comp, drain, drng, down, unk, no_respond...;\n"
    "                         ',' any of them, '&' all of them)\n"
    "  -d, --dead             only nodes that do not respond\n"
    "  -r, --responding       only nodes that respond\n"
    "  -o, --format=FORMAT    sinfo's %%-fields (\"%%9P %%.6D %%t %%N\")\n"
    "  -O, --Format=FIELDS    sinfo's field names (\"Partition:10,Nodes\")\n"
    "  -S, --sort=KEYS        sort by these -o letters (\"#P,-t\")\n"
    "  -h, --noheader         no header line\n"
    "  -a, --all              (all partitions are always shown)\n"
    "      --json             nodes and partitions as JSON (schema "
    "arbor.info)\n"
    "      --help             this help\n"
    "      --usage            the options in short\n"
    "  -V, --version          the version (\"slurm X.Y.Z\" as sinfo)\n";

/* --usage: sinfo's options in short. */
static const char *const info_synopsis[] = {
    "[-adehlNRrs] [-p partitions] [-n nodes] [-t states]",
    "[-o format | -O fields] [-S fields] [--json]",
    "[--help] [--usage] [-V]",
    NULL,
};

static void info_parse (struct info_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        { "Node", no_argument, NULL, 'N' },
        { "list-reasons", no_argument, NULL, 'R' },
        { "summarize", no_argument, NULL, 's' },
        { "long", no_argument, NULL, 'l' },
        { "exact", no_argument, NULL, 'e' },
        { "noheader", no_argument, NULL, 'h' },
        { "partition", required_argument, NULL, 'p' },
        { "nodes", required_argument, NULL, 'n' },
        { "states", required_argument, NULL, 't' },
        { "dead", no_argument, NULL, 'd' },
        { "responding", no_argument, NULL, 'r' },
        { "format", required_argument, NULL, 'o' },
        { "Format", required_argument, NULL, 'O' },
        { "sort", required_argument, NULL, 'S' },
        { "all", no_argument, NULL, 'a' },
        { "hide", no_argument, NULL, 'I' },
        { "json", no_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'H' },
        VERSION_LONGOPTS,
        { NULL, 0, NULL, 0 },
    };
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, ":NRsleahdrVp:n:t:o:O:S:", longopts,
                             NULL))
           != -1) {
        switch (c) {
        case 'N': o->node_view = true; break;
        case 'R': o->reasons = true; break;
        case 's': o->summarize = true; break;
        case 'l': o->longfmt = true; break;
        case 'e': o->exact = true; break;
        case 'h': o->noheader = true; break;
        case 'p': o->partition = optarg; break;
        case 'n': o->nodes = optarg; break;
        case 't': o->states = optarg; break;
        case 'd': o->responding = 0; break;
        case 'r': o->responding = 1; break;
        case 'o': o->format = optarg; break;
        case 'O': o->format_long = optarg; break;
        case 'S': o->sort = optarg; break;
        case 'a':
        case 'I': break; /* no partition is hidden */
        case 'J': o->json = true; break;
        case 'H': printf (info_usage, argv[0]); exit (0);
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, argv[0], info_synopsis);
            break;
        default: opt_getopt_die (c, argv, argv[0], longopts);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "%s: unexpected argument '%s'\n", argv[0],
                 argv[optind]);
        exit (1);
    }
}

/* The format's text: -o, then $SINFO_FORMAT (sinfo takes it as an -o
 * given before the options, so it also outranks -s, -N and -R's own),
 * then one of sinfo's own (-s, -N, -R), then the default (-l's or
 * not), as sinfo picks. */
static const char *info_spec (const struct info_opts *o)
{
    const char *env = getenv ("SINFO_FORMAT");

    if (o->format)
        return o->format;
    if (env && *env)
        return env;
    if (o->summarize)
        return INFO_FORMAT_SUMMARIZE;
    if (o->node_view)
        return o->longfmt ? INFO_FORMAT_NODE_LONG : INFO_FORMAT_NODE;
    if (o->reasons)
        return o->longfmt ? INFO_FORMAT_REASONS_LONG : INFO_FORMAT_REASONS;
    return o->longfmt ? INFO_FORMAT_LONG : INFO_FORMAT;
}

/* fmt's "invalid field in format 'X'" as sinfo says it. */
static void __attribute__ ((noreturn))
info_format_die (const char *prog, const char *text)
{
    const char *q = strchr (text, '\''), *e = strrchr (text, '\'');

    if (!strncmp (text, "invalid field in format", 23) && q && e > q)
        fprintf (stderr, "%s: error: Invalid node format specification: %.*s\n",
                 prog, (int)(e - q - 1), q + 1);
    else
        fprintf (stderr, "%s: error: %s\n", prog, text);
    exit (1);
}

/* Check the format, the sort keys and the states: any error exits 1
 * before the controller is asked. */
static void info_check (const char *prog, const struct info_opts *o,
                        struct fmt *f, struct info_sort *keys,
                        struct info_states *states)
{
    const char *sort = o->sort ? o->sort : getenv ("SINFO_SORT");
    arbor_error_t err;

    if (o->format && o->format_long) {
        fprintf (stderr,
                 "%s: error: -o/--format and -O/--Format cannot be used "
                 "together\n",
                 prog);
        exit (1);
    }
    *f = (struct fmt){ 0 };
    if (o->json) /* formats and sorting do not apply */
        sort = NULL;
    else if ((o->format_long ? fmt_parse_long (o->format_long, info_fields,
                                               info_nfields, f, &err)
                             : info_format_parse (info_spec (o), f, &err))
             < 0)
        info_format_die (prog, err.text);
    if (info_sort_parse (sort && *sort  ? sort
                         : o->node_view ? INFO_SORT_NODE
                                        : INFO_SORT,
                         keys, &err)
            < 0
        || (o->states && info_states_parse (o->states, states, &err) < 0)) {
        fprintf (stderr, "%s: error: %s\n", prog, err.text);
        exit (1);
    }
}

static void info_print_json (const struct info_data *d,
                             const struct info_filter *flt)
{
    json_t *doc = info_json_build (d, flt);

    if (!doc)
        die ("out of memory");
    if (json_doc_write (doc, stdout) < 0)
        die ("writing JSON: %m");
    json_decref (doc);
}

static void info_print (const struct info_opts *o, struct fmt *f,
                        const struct info_sort *keys, const struct info_data *d,
                        const struct info_filter *flt)
{
    struct info_rows rows;

    if (info_rows_build (d, f, flt, o->node_view, &rows) < 0)
        die ("out of memory");
    info_rows_sort (&rows, keys);
    info_format_widths (f, &rows);
    if (!o->noheader)
        fmt_print_header (stdout, f);
    for (size_t k = 0; k < rows.n; k++)
        fmt_print_row (stdout, f, info_field_value, &rows.v[k]);
    info_rows_free (&rows);
}

int cmd_info_main (int argc, char **argv)
{
    struct info_opts o = { .responding = -1,
                           .partition = getenv ("SINFO_PARTITION") };
    struct msg_node_info req = { 0 };
    struct msg_node_info_reply r;
    struct info_states states;
    struct info_sort keys;
    struct client cl;
    struct fmt f;
    arbor_error_t err;

    log_open ("arbor", LOG_LVL_INFO, NULL);
    info_parse (&o, argc, argv);
    info_check (argv[0], &o, &f, &keys, &states);
    if (client_open (&cl, &err) < 0)
        die ("%s", err.text);
    req.nodelist = (char *)(o.nodes ? o.nodes : "");
    if (client_call (&cl, MSG_NODE_INFO, &req, MSG_NODE_INFO_REPLY, &r,
                     CLIENT_TIMEOUT_MS, &err)
        < 0)
        die ("node information: %s", err.text);
    if (r.states_count < r.names_count)
        die ("node information: malformed answer");
    struct info_data d = { .r = &r,
                           .conf = cl.conf,
                           .exact = o.exact,
                           .time_format = acct_text_time_format () };
    struct info_filter flt = {
        .partitions = o.partition && *o.partition ? o.partition : NULL,
        .states = o.states ? &states : NULL,
        .reasons = o.reasons,
        .responding = o.responding,
    };
    if (info_data_users (&d) < 0)
        die ("out of memory");
    if (o.json)
        info_print_json (&d, &flt);
    else
        info_print (&o, &f, &keys, &d, &flt);
    fmt_free (&f);
    info_data_free (&d);
    proto_clear (MSG_NODE_INFO_REPLY, &r);
    client_close (&cl);
    return 0;
}
