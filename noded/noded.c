/* noded.c - arbor-noded: the node daemon.
 *
 *     arbor-noded [-f CONF] -n NODE [--emulate] [-v]...
 *
 * Loads the configuration, becomes NODE (which must be in it), opens its
 * log, creates its spool, connects to munge, listens on NodeAddr:NodedPort
 * and runs one libev loop: requests (rpc.c), launches (launch.c), stepds
 * (stepd_*.c) and registration (register.c) all live on it. SIGTERM and
 * SIGINT stop the loop; running stepds are left alone, since they must
 * survive a noded restart. Init in order, fini in reverse (as munged).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "conf.h"
#include "launch.h"
#include "log.h"
#include "net.h"
#include "noded.h"
#include "register.h"
#include "revoke.h"
#include "stepd.h"
#include "term.h"

#ifndef ARBOR_VERSION
#define ARBOR_VERSION "unknown"
#endif

struct noded_opts {
    const char *conf_path;
    const char *node;
    bool emulate;
    int verbose;
};

static const struct option noded_longopts[] = {
    { "conf", required_argument, NULL, 'f' },
    { "node", required_argument, NULL, 'n' },
    { "emulate", no_argument, NULL, 'E' },
    { "verbose", no_argument, NULL, 'v' },
    { "version", no_argument, NULL, 'V' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static void noded_usage (FILE *fp)
{
    fprintf (fp, "Usage: arbor-noded [-f CONF] -n NODE [--emulate] [-v]...\n"
                 "  -f, --conf CONF   configuration (default: $ARBOR_CONF,"
                 " $SLURM_CONF, %s)\n"
                 "  -n, --node NODE   the node to be (a NodeName of CONF)\n"
                 "      --emulate     report the configured CPUs and"
                 " RealMemory\n"
                 "  -v, --verbose     log more (repeatable)\n"
                 "  -V, --version     print the version and exit\n",
             conf_default_path ());
}

static void noded_parse_args (int argc, char **argv, struct noded_opts *o)
{
    int c;

    while ((c = getopt_long (argc, argv, "f:n:vVh", noded_longopts, NULL))
           != -1) {
        switch (c) {
        case 'f': o->conf_path = optarg; break;
        case 'n': o->node = optarg; break;
        case 'E': o->emulate = true; break;
        case 'v': o->verbose++; break;
        case 'V': printf ("arbor-noded %s\n", ARBOR_VERSION); exit (0);
        case 'h': noded_usage (stdout); exit (0);
        default: noded_usage (stderr); exit (2);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "arbor-noded: error: unexpected argument '%s'\n",
                 argv[optind]);
        exit (2);
    }
    if (!o->node) {
        fprintf (stderr, "arbor-noded: error: -n NODE is required\n");
        noded_usage (stderr);
        exit (2);
    }
}

/* Before logging is up, errors go to stderr and end the program. */
static void noded_fatal (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));
static void noded_fatal (const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    fprintf (stderr, "arbor-noded: error: ");
    vfprintf (stderr, fmt, ap);
    fprintf (stderr, "\n");
    va_end (ap);
    exit (1);
}

/* Make sure fds 0-2 are open, so no socket of ours lands on them. */
static void noded_std_fds (void)
{
    int fd;

    while ((fd = open ("/dev/null", O_RDWR)) >= 0 && fd <= 2)
        ;
    if (fd > 2)
        close (fd);
}

static int mkdir_p (const char *path, mode_t mode)
{
    char buf[4096];
    size_t len = strlen (path);

    if (len == 0 || len >= sizeof (buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy (buf, path, len + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir (buf, mode) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir (buf, mode) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

static void noded_open_log (struct noded *nd, const struct noded_opts *o)
{
    char ident[300];
    char *path = NULL;
    int level = nd->conf->noded_debug_level + o->verbose;

    if (level > LOG_LVL_DEBUG2)
        level = LOG_LVL_DEBUG2;
    snprintf (ident, sizeof (ident), "arbor-noded[%s]", nd->name);
    if (nd->conf->noded_log_file
        && !(path = conf_expand (nd->conf->noded_log_file, nd->name)))
        noded_fatal ("out of memory");
    if (log_open (ident, level, path) < 0)
        noded_fatal ("cannot open log file %s: %s", path, strerror (errno));
    free (path);
}

/* Configuration, identity, log, spool, munge, listening socket. */
static void noded_init (struct noded *nd, const struct noded_opts *o)
{
    arbor_error_t err;
    long uid;

    if (!(nd->conf = conf_load (o->conf_path, &err)))
        noded_fatal ("%s", err.text);
    if (!(nd->self = conf_node_find (nd->conf, o->node)))
        noded_fatal ("node '%s' is not in %s (no NodeName line names it)",
                     o->node, nd->conf->path);
    nd->name = nd->self->name;
    nd->emulate = o->emulate;
    noded_open_log (nd, o);
    if ((uid = conf_arbor_uid (nd->conf)) < 0)
        noded_fatal ("ArborUser '%s' does not exist", nd->conf->arbor_user);
    nd->arbor_uid = (uid_t)uid;
    if (!(nd->spool = conf_expand (nd->conf->spool_dir, nd->name))
        || mkdir_p (nd->spool, 0755) < 0)
        noded_fatal ("cannot create spool directory %s: %s",
                     nd->spool ? nd->spool : "?", strerror (errno));
    if (!(nd->stepd_path = stepd_default_path (nd->conf)))
        noded_fatal ("cannot find arbor-stepd: %s", strerror (errno));
    if (access (nd->stepd_path, X_OK) < 0)
        log_warn ("%s: %s (launches will fail)", nd->stepd_path,
                  strerror (errno));
    if (!(nd->auth = auth_create (nd->conf->munge_socket, &err)))
        noded_fatal ("%s", err.text);
    if (!(nd->revoked = revoke_create (REVOKE_DEFAULT_MAX))
        || !(nd->stepds = stepd_table_create ()))
        noded_fatal ("out of memory");
    nd->listen_fd = net_listen_tcp (nd->self->addr, nd->conf->noded_port,
                                    NULL, &err);
    if (nd->listen_fd < 0)
        noded_fatal ("%s", err.text);
}

static void noded_signal_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    log_info ("caught signal %d: stopping (stepds keep running)", w->signum);
    ev_break (loop, EVBREAK_ALL);
}

static void noded_fini (struct noded *nd)
{
    reg_destroy (nd->reg);
    term_destroy_all (nd);
    launch_destroy_all (nd);
    noded_rpc_stop (nd);
    stepd_table_destroy (nd->stepds);
    revoke_destroy (nd->revoked);
    auth_destroy (nd->auth);
    free (nd->stepd_path);
    free (nd->spool);
    conf_destroy (nd->conf);
    log_close ();
}

int main (int argc, char **argv)
{
    struct noded_opts opts = { 0 };
    struct noded nd = { .listen_fd = -1 };
    ev_signal term_w, int_w;

    noded_parse_args (argc, argv, &opts);
    noded_std_fds ();
    signal (SIGPIPE, SIG_IGN);
    if (!(nd.loop = ev_default_loop (EVFLAG_AUTO)))
        noded_fatal ("cannot initialise libev");
    noded_init (&nd, &opts);
    if (noded_rpc_start (&nd) < 0)
        noded_fatal ("cannot start: %s", strerror (errno));
    stepd_scan (&nd);
    if (!(nd.reg = reg_start (&nd)))
        noded_fatal ("out of memory");
    ev_signal_init (&term_w, noded_signal_cb, SIGTERM);
    ev_signal_start (nd.loop, &term_w);
    ev_signal_init (&int_w, noded_signal_cb, SIGINT);
    ev_signal_start (nd.loop, &int_w);
    log_info ("arbor-noded %s started on %s:%u%s (spool %s)", ARBOR_VERSION,
              nd.self->addr, nd.conf->noded_port,
              nd.emulate ? ", emulated" : "", nd.spool);
    ev_run (nd.loop, 0);
    ev_signal_stop (nd.loop, &term_w);
    ev_signal_stop (nd.loop, &int_w);
    noded_fini (&nd);
    return 0;
}
