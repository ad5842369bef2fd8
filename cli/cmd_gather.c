/* cmd_gather.c - "arbor gather" (sgather): bring a file back from every
 * node of a job.
 *
 *     sgather /tmp/out.dat results/out     results/out.node1, .node2 ...
 *
 * With the credential sbcast uses (BCAST_CRED), we ask each node in turn
 * for its SOURCE, block by block (GATHER_READ, read there as the job's
 * user), write it here to a temporary file beside DEST.NODE and rename
 * it into place; then, unless -k, ask the node to remove its SOURCE.
 * Each node's failure is named; the exit status is 1 if any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bcast_opt.h"
#include "bcast_send.h"
#include "client.h"
#include "cmds.h"
#include "conf.h"
#include "log.h"
#include "version.h"

static const char *const gather_synopsis[] = {
    "[-C[lz4|zlib|none]] [-f] [-F fanout] [-j jobid[.stepid]] [-k] [-p]",
    "[-t timeout] [-v] SOURCE DEST",
    NULL,
};

static const char gather_usage[] =
    "Usage: %s [-CfFjkprtvV] SOURCE DEST\n"
    "  -C, --compress[=lz4|zlib|none]  accepted; blocks come uncompressed\n"
    "  -f, --force                     replace DEST.NODE where it exists\n"
    "  -F, --fanout=N                  accepted (nodes are asked in turn)\n"
    "  -j, --jobid=JOB[.STEP]          the job (default: SLURM_JOB_ID)\n"
    "  -k, --keep                      do not remove SOURCE on the nodes\n"
    "  -p, --preserve                  keep the times and modes\n"
    "  -r, --recursive                 not supported: files only\n"
    "  -t, --timeout=SECS              per block (default 10)\n"
    "  -v, --verbose                   say more\n"
    "  -V, --version                   print the version and exit\n";

static const struct option gather_longopts[] = {
    BCAST_LONGOPTS_COMMON,
    { "keep", no_argument, NULL, 'k' },
    { "recursive", no_argument, NULL, 'r' },
    VERSION_LONGOPTS,
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void gather_parse (struct bcast_opts *o, int argc, char **argv)
{
    const char *jobarg = NULL;
    char why[160];
    int c;

    while ((c = getopt_long (argc, argv, "C::fF:j:kprt:vVh", gather_longopts,
                             NULL))
           != -1) {
        if (bcast_opt_common (o, c, optarg, &jobarg))
            continue;
        switch (c) {
        case 'k': o->keep = true; break;
        case 'r': o->recursive = true; break;
        case 'V':
        case VERSION_OPT_USAGE:
            version_option (c, o->prog, gather_synopsis);
            break;
        case 'h': printf (gather_usage, o->prog); exit (0);
        default: fprintf (stderr, gather_usage, o->prog); exit (1);
        }
    }
    bcast_parse_operands (o, argc, argv, gather_usage);
    if (o->recursive)
        die ("-r/--recursive is not supported: gather files one by one");
    if (bcast_parse_job (o, jobarg, why, sizeof (why)) < 0)
        die ("%s", why);
}

struct gather_node {
    const struct bcast_opts *o;
    struct bcast_target *t;
    const char *node, *addr, *source;
    struct rpc_chan ch;
};

static int gather_ask (struct gather_node *g, struct msg_gather_read *m,
                       int resp, void *out, arbor_error_t *err)
{
    uint32_t secs = g->o->timeout ? g->o->timeout : 10;

    m->cred = g->t->cred.cred;
    m->job_id = g->t->cred.job_id;
    m->source = (char *)g->source;
    return rpc_call (g->t->cl->auth, g->addr, (uint16_t)g->t->cred.noded_port,
                     g->t->noded_uid, MSG_GATHER_READ, m, resp, out,
                     (int)secs * 1000, err);
}

/* Blocks into fd until the node says eof; the last answer in *last. */
static int gather_copy (struct gather_node *g, int fd,
                        struct msg_gather_data *last, arbor_error_t *err)
{
    struct msg_gather_read m = { .max_len = BCAST_SIZE_DEFAULT };
    struct msg_gather_data d;

    for (;;) {
        if (gather_ask (g, &m, MSG_GATHER_DATA, &d, err) < 0)
            return -1;
        if (d.payload_len
            && pwrite (fd, d.payload, d.payload_len, (off_t)m.offset)
                   != (ssize_t)d.payload_len) {
            proto_clear (MSG_GATHER_DATA, &d);
            return errprintf (err, "write: %s", strerror (errno));
        }
        m.offset += d.payload_len;
        if (d.eof || d.payload_len == 0) {
            *last = d;
            return 0;
        }
        proto_clear (MSG_GATHER_DATA, &d);
    }
}

static int gather_one (struct gather_node *g, arbor_error_t *err)
{
    struct msg_gather_data last = { 0 };
    struct timespec ts[2];
    char *to, *tmp;
    int fd, rc = -1;

    if (asprintf (&to, "%s.%s", g->o->dest, g->node) < 0
        || asprintf (&tmp, "%s.%s.sgather.%d", g->o->dest, g->node, getpid ())
               < 0)
        die ("out of memory");
    if (!g->o->force && access (to, F_OK) == 0) {
        errprintf (err, "%s exists (-f/--force replaces it)", to);
        goto out;
    }
    if ((fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        errprintf (err, "cannot create %s: %s", tmp, strerror (errno));
        goto out;
    }
    if (gather_copy (g, fd, &last, err) == 0) {
        ts[0] = (struct timespec){ .tv_sec = (time_t)last.atime };
        ts[1] = (struct timespec){ .tv_sec = (time_t)last.mtime };
        (void)fchmod (fd, last.mode & 0777);
        if (g->o->preserve)
            (void)futimens (fd, ts);
        rc = 0;
    }
    close (fd);
    proto_clear (MSG_GATHER_DATA, &last);
    if (rc == 0 && rename (tmp, to) < 0)
        rc = errprintf (err, "cannot rename to %s: %s", to, strerror (errno));
    if (rc < 0)
        unlink (tmp);
out:
    free (to);
    free (tmp);
    return rc;
}

static int gather_node (struct bcast_target *t, const struct bcast_opts *o,
                        uint32_t i, const char *source)
{
    struct gather_node g = { .o = o,
                             .t = t,
                             .node = t->slice[i],
                             .addr = t->cred.addrs[i],
                             .source = source };
    struct msg_gather_read rm = { .remove = true };
    struct msg_rc rc = { 0 };
    arbor_error_t err;

    log_verbose ("%s: %s -> %s.%s", g.node, source, o->dest, g.node);
    if (gather_one (&g, &err) < 0
        || (!o->keep && gather_ask (&g, &rm, MSG_RC, &rc, &err) < 0)) {
        fprintf (stderr, "%s: error: %s: %s\n", o->prog, g.node, err.text);
        return -1;
    }
    proto_clear (MSG_RC, &rc);
    return 0;
}

int cmd_gather_main (int argc, char **argv)
{
    struct bcast_opts o = { .prog = argv[0] };
    struct client cl;
    struct bcast_target t;
    char *cwd = getcwd (NULL, 0), *source;
    int rc = 0;

    log_open (argv[0], LOG_LVL_INFO, NULL);
    gather_parse (&o, argc, argv);
    if (!cwd || !(source = bcast_dest_path (o.source, o.source, cwd)))
        die ("invalid source '%s'", o.source);
    if (bcast_target_begin (&t, &cl, &o) < 0)
        rc = 1;
    else
        for (uint32_t i = 0; i < t.nslice && i < t.cred.addrs_count; i++)
            if (gather_node (&t, &o, i, source) < 0)
                rc = 1;
    bcast_target_end (&t, &cl);
    free (source);
    free (cwd);
    return rc;
}
