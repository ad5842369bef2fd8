/* noded.c - assembly of arbor-noded: noded_create, noded_run,
 * noded_destroy.
 *
 * noded_create() loads the configuration, becomes NODE (which must be in
 * it), opens its log, creates its spool, connects to munge, listens on
 * NodeAddr:NodedPort, serves requests (serve.c) and re-finds the stepds
 * still running from before a restart (stepd_track.c). noded_run()
 * registers with the controller (register.c) and runs the one libev loop
 * that requests, launches (launch.c) and stepds (stepd_*.c) all live on,
 * until SIGTERM or SIGINT; running stepds are left alone, since they must
 * survive a noded restart. noded_destroy() takes it apart in the reverse
 * order (as munged). Tests call noded_create() and drive the loop
 * themselves, so no registration disturbs them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "authpool.h"
#include "bcast.h"
#include "conf.h"
#include "credkey_held.h"
#include "gres/gres_load.h"
#include "launch.h"
#include "local.h"
#include "log.h"
#include "net.h"
#include "noded.h"
#include "peers.h"
#include "prolog.h"
#include "register.h"
#include "request.h"
#include "revoke.h"
#include "serve.h"
#include "stepd_ask.h"
#include "stepd_info.h"
#include "stepd_spawn.h"
#include "stepd_spawner.h"
#include "stepd_track.h"
#include "term.h"

#ifndef ARBOR_VERSION
#define ARBOR_VERSION "unknown"
#endif

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

/* NodedLogFile (%n expanded; stderr when unset) at NodedDebugLevel
 * raised by each -v. */
static int noded_open_log (struct noded *nd, int verbose, arbor_error_t *err)
{
    char ident[300];
    char *path = NULL;
    int level = nd->conf->noded_debug_level + verbose;

    if (level > LOG_LVL_DEBUG2)
        level = LOG_LVL_DEBUG2;
    snprintf (ident, sizeof (ident), "arbor-noded[%s]", nd->name);
    if (nd->conf->noded_log_file
        && !(path = conf_expand (nd->conf->noded_log_file, nd->name)))
        return errprintf (err, "out of memory");
    if (log_open (ident, level, path) < 0) {
        errprintf (err, "cannot open log file %s: %s", path, strerror (errno));
        free (path);
        return -1;
    }
    free (path);
    return 0;
}

/* Configuration, identity, log. */
static int noded_identity (struct noded *nd, const char *conf_path,
                           const char *node, int verbose, arbor_error_t *err)
{
    long uid;

    if (!(nd->conf = conf_load (conf_path, err)))
        return -1;
    if (!(nd->self = conf_node_find (nd->conf, node)))
        return errprintf (err,
                          "node '%s' is not in %s (no NodeName line names it)",
                          node, nd->conf->path);
    nd->name = nd->self->name;
    if (noded_open_log (nd, verbose, err) < 0)
        return -1;
    if ((uid = conf_arbor_uid (nd->conf)) < 0)
        return errprintf (err, "ArborUser '%s' does not exist",
                          nd->conf->arbor_user);
    nd->arbor_uid = (uid_t)uid;
    if ((uid = conf_noded_uid (nd->conf)) < 0)
        return errprintf (err, "NodedUser '%s' does not exist",
                          nd->conf->noded_user);
    nd->noded_uid = (uid_t)uid;
    return 0;
}

/* Spool, stepd path, munge, tables, listening socket. */
static int noded_setup (struct noded *nd, arbor_error_t *err)
{
    if (!(nd->spool = conf_expand (nd->conf->spool_dir, nd->name))
        || mkdir_p (nd->spool, 0755) < 0)
        return errprintf (err, "cannot create spool directory %s: %s",
                          nd->spool ? nd->spool : "?", strerror (errno));
    if (!(nd->stepd_path = stepd_default_path (nd->conf)))
        return errprintf (err, "cannot find arbor-stepd: %s", strerror (errno));
    if (access (nd->stepd_path, X_OK) < 0)
        log_warn ("%s: %s (launches will fail)", nd->stepd_path,
                  strerror (errno));
    if (noded_gres_load (nd->conf, nd->name, &nd->gres, err) < 0)
        return -1;
    if (nd->gres.n) {
        char *t = gresnode_text (&nd->gres);
        log_info ("generic resources: %s", t ? t : "?");
        free (t);
    }
    if (!(nd->pool =
              auth_pool_create (nd->loop, nd->conf->munge_socket, 0, err)))
        return -1;
    /* Dial from our own address, as a separate host would (emulated
     * nodes share the loopback; the ctld's per-address limits see them
     * apart). */
    struct peers_opts po = { .source = nd->self->addr };
    if (!(nd->peers = peers_create (nd->loop, nd->pool, &po)))
        return errprintf (err, "out of memory");
    net_raise_nofile ();
    if (!(nd->revoked = revoke_create (REVOKE_DEFAULT_MAX))
        || !(nd->stepds = stepd_table_create ()) || spawner_create (nd) < 0)
        return errprintf (err, "out of memory");
    nd->listen_fd =
        net_listen_tcp (nd->self->addr, nd->conf->noded_port, NULL, err);
    if (nd->listen_fd < 0)
        return -1;
    if (serve_start (nd) < 0)
        return errprintf (err, "cannot start: %s", strerror (errno));
    return local_start (nd, err);
}

struct noded *noded_create (const char *conf_path, const char *node,
                            int verbose, bool emulate, arbor_error_t *err)
{
    struct noded *nd = calloc (1, sizeof (*nd));

    if (!nd) {
        errprintf (err, "out of memory");
        return NULL;
    }
    nd->listen_fd = -1;
    nd->emulate = emulate;
    if (!(nd->loop = ev_default_loop (EVFLAG_AUTO))) {
        errprintf (err, "cannot initialise libev");
        goto fail;
    }
    if (noded_identity (nd, conf_path, node, verbose, err) < 0
        || noded_setup (nd, err) < 0)
        goto fail;
    stepd_scan (nd);
    return nd;
fail:
    noded_destroy (nd);
    return NULL;
}

static void noded_signal_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    log_info ("caught signal %d: stopping (stepds keep running)", w->signum);
    ev_break (loop, EVBREAK_ALL);
}

/* SIGHUP: open the log file again (logrotate moved it). */
static void noded_sighup_cb (struct ev_loop *loop, ev_signal *w, int revents)
{
    if (log_reopen () < 0)
        log_err ("cannot reopen the log file: %s", strerror (errno));
    else
        log_info ("caught SIGHUP: log reopened");
}

int noded_run (struct noded *nd)
{
    ev_signal term_w, int_w, hup_w;

    if (!(nd->reg = reg_start (nd)))
        return -1;
    ev_signal_init (&term_w, noded_signal_cb, SIGTERM);
    ev_signal_start (nd->loop, &term_w);
    ev_signal_init (&int_w, noded_signal_cb, SIGINT);
    ev_signal_start (nd->loop, &int_w);
    ev_signal_init (&hup_w, noded_sighup_cb, SIGHUP);
    ev_signal_start (nd->loop, &hup_w);
    log_info ("arbor-noded %s started on %s:%u%s (spool %s)", ARBOR_VERSION,
              nd->self->addr, nd->conf->noded_port,
              nd->emulate ? ", emulated" : "", nd->spool);
    ev_run (nd->loop, 0);
    ev_signal_stop (nd->loop, &term_w);
    ev_signal_stop (nd->loop, &int_w);
    ev_signal_stop (nd->loop, &hup_w);
    return 0;
}

/* The loop is libev's default loop, shared with whoever else runs on it
 * (tests run two nodeds on one), so it is not destroyed here. */
void noded_destroy (struct noded *nd)
{
    int saved = errno;

    if (!nd)
        return;
    reg_destroy (nd->reg);
    term_destroy_all (nd);
    launch_destroy_all (nd);
    credkey_forget (nd);
    prolog_destroy_all (nd);
    stepd_ask_destroy_all (nd);
    bcast_destroy_all (nd);
    serve_stop (nd); /* closes listen_fd too if no listener took it */
    local_stop (nd);
    spawner_destroy (nd);
    stepd_table_destroy (nd->stepds);
    revoke_destroy (nd->revoked);
    peers_destroy (nd->peers);
    auth_pool_destroy (nd->pool);
    free (nd->stepd_path);
    free (nd->spool);
    gresnode_clear (&nd->gres);
    conf_destroy (nd->conf);
    free (nd);
    errno = saved;
}
