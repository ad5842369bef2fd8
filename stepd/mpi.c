/* mpi.c - the step's MPI plugin (--mpi=pmix|pmi2), seen from the stepd.
 *
 * For a step launched with an MPI type other than "none", the launch
 * chain calls mpi_prepare after the container and the I/O connection and
 * before the tasks: it loads mpi_<type>.so, makes the step's two
 * directories for it, sets up the stepds' exchange (mesh.c, coll.c) and
 * lets the plugin prepare (a PMIx server, a PMI-2 listener). The
 * directories: <spool>/mpi.<job>.<step>, the job's user's (0700), for
 * what the tasks write (Open MPI's session directory); and
 * <spool>/pmix.<job>.<step>, root's, for what the plugin's root side
 * creates and removes (the PMIx server's store): 0700 while the plugin
 * prepares, then sealed (userdir.h: every directory in it root's) and
 * opened to 0755 so that the tasks can read the store but never plant a
 * link where root will create or remove a file. Each task's variables come from
 * the plugin (mpi_task_env). The plugin's own descriptor is watched on the
 * loop.
 *
 * The services the plugin gets (struct mpi_host) are the all-gather of
 * coll.c, messages to another node's plugin, and the step's abort: the
 * abort names the rank and its code to the launcher (STEP_ABORT on the
 * I/O connection), tells every other stepd (MESH_ABORT), and kills the
 * tasks here. A task that ends in a way that breaks the MPI job (the
 * plugin decides: it died before it joined, or after it joined and
 * before it finalized) aborts the step the same way, so that its peers
 * do not wait in a fence forever. A node that cannot be reached (mesh.c
 * gives up) too.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostlist.h"
#include "log.h"
#include "mpi.h"
#include "base.h"
#include "coll.h"
#include "mesh.h"
#include "step_mpi.h"
#include "stepd.h"
#include "userdir.h"
#include "task_env.h"

struct mpi {
    struct plugin *plugin;
    const struct mpi_ops *ops;
    void *ctx;
    struct plugin_env env;
    struct mpi_host host;
    char plugin_dir[PATH_MAX];
    char *spool;
    char *tmpdir; /* the user's */
    char *srvdir; /* root's */
    struct hostlist *nodes;
    const char **names;
    ev_io poll_w;
    bool finished;
    bool aborted;
};

/* ---- the abort ------------------------------------------------------ */

/* Kill the tasks here and say why, once. */
static void mpi_kill_local (struct stepd *sd, const char *text)
{
    struct mpi *m = sd->mpi;

    if (m->aborted)
        return;
    m->aborted = true;
    log_err ("%s: killing the step's tasks", text);
    stepd_signal_tasks (sd, SIGKILL);
}

/* MESH_ABORT payload: [rank u32][code i32][text]. */
static void mpi_host_abort (void *arg, uint32_t rank, int code,
                            const char *text)
{
    struct stepd *sd = arg;
    struct mpi *m = sd->mpi;
    struct msg_step_abort a = { rank, code, (char *)text };
    size_t tlen = strlen (text), len = 8 + tlen;
    char *buf;

    if (m->aborted)
        return;
    if (sd->io && conn_send (sd->io, MSG_STEP_ABORT, 0, 0, &a) < 0)
        log_err ("send STEP_ABORT: %s", strerror (errno));
    if ((buf = malloc (len))) {
        uint32_t hdr[2] = { htonl (rank), htonl ((uint32_t)code) };
        memcpy (buf, hdr, 8);
        memcpy (buf + 8, text, tlen);
        for (uint32_t i = 0; i < hostlist_count (m->nodes); i++)
            if (i != sd->init.node_id
                && mesh_send (sd, i, MESH_ABORT, 0, buf, len) < 0)
                log_err ("abort to node %u: %s", i, strerror (errno));
        free (buf);
    }
    if (code > sd->rc)
        sd->rc = code;
    mpi_kill_local (sd, text);
}

static void mpi_abort_in (struct stepd *sd, uint32_t src, const char *data,
                          size_t len)
{
    uint32_t hdr[2];
    char text[512];

    if (len < 8)
        return;
    memcpy (hdr, data, 8);
    snprintf (text, sizeof (text),
              "step aborted from %s (rank %u, code %d): "
              "%.*s",
              sd->mpi->names[src], ntohl (hdr[0]), (int)ntohl (hdr[1]),
              (int)(len - 8 > 400 ? 400 : len - 8), data + 8);
    mpi_kill_local (sd, text);
}

/* ---- the host's services --------------------------------------------- */

static int64_t mpi_host_allgather (void *arg, const void *data, size_t len)
{
    return coll_allgather (arg, data, len);
}

static int mpi_host_send (void *arg, uint32_t node, const void *data,
                          size_t len)
{
    return mesh_send (arg, node, MESH_P2P, 0, data, len);
}

static void mpi_mesh_recv (struct stepd *sd, uint32_t src, uint32_t kind,
                           uint64_t seq, const char *data, size_t len)
{
    struct mpi *m = sd->mpi;

    if (!m || m->finished)
        return;
    switch (kind) {
    case MESH_GATHER:
    case MESH_BCAST: coll_recv (sd, src, kind, seq, data, len); break;
    case MESH_P2P: m->ops->recv (m->ctx, src, data, len); break;
    case MESH_ABORT: mpi_abort_in (sd, src, data, len); break;
    default: log_warn ("STEP_MESH of unknown kind %u from node %u", kind, src);
    }
}

static void mpi_mesh_fail (struct stepd *sd, uint32_t dst, const char *why)
{
    struct mpi *m = sd->mpi;
    char text[512];

    if (!m || m->finished)
        return;
    snprintf (text, sizeof (text),
              "MPI exchange with the stepd on %s failed: %s", m->names[dst],
              why);
    coll_fail (sd, EHOSTUNREACH);
    mpi_host_abort (sd, sd->nlocal ? sd->local_ranks[0] : 0, 1, text);
}

static void mpi_gathered (struct stepd *sd, int64_t seq, const void *data,
                          size_t len, int errnum)
{
    struct mpi *m = sd->mpi;

    if (m && !m->finished)
        m->ops->gathered (m->ctx, seq, data, len, errnum);
}

static void mpi_poll_cb (struct ev_loop *loop, ev_io *w, int revents)
{
    struct mpi *m = w->data;

    m->ops->progress (m->ctx);
}

/* ---- the step's directory -------------------------------------------- */

static int mpi_tmpdir_make (struct stepd *sd, arbor_error_t *err)
{
    struct mpi *m = sd->mpi;

    if (asprintf (&m->tmpdir, "%s/mpi.%u.%u", m->spool, sd->init.job_id,
                  sd->init.step_id)
            < 0
        || asprintf (&m->srvdir, "%s/pmix.%u.%u", m->spool, sd->init.job_id,
                     sd->init.step_id)
               < 0)
        return errprintf (err, "out of memory");
    if (userdir_make (m->tmpdir, sd->init.uid, sd->init.gid, "MPI directory",
                      err)
            < 0
        || rootdir_make (m->srvdir, 0700, "MPI server directory", err) < 0)
        return -1;
    return 0;
}

/* ---- the chain -------------------------------------------------------- */

/* The slot of a type in sd->mpi_loaded, or -1. */
static int mpi_slot (const char *type)
{
    return !strcmp (type, "pmix") ? 0 : !strcmp (type, "pmi2") ? 1 : -1;
}

/* In the spawner, before it forks a step's stepd: the dlopen and the
 * relocation of the plugin and its libraries (libpmix, hwloc, libevent)
 * are then done once per node, not once per step. */
void mpi_preload (struct stepd *sd, const char *type)
{
    char dir[PATH_MAX];
    arbor_error_t err = { "" };
    int slot = mpi_slot (type);

    if (slot < 0 || sd->mpi_loaded[slot])
        return;
    if (!(sd->mpi_loaded[slot] = mpi_load (
              plugin_conf_dir (sd->conf, dir, sizeof (dir)), type, &err)))
        log_verbose ("spawner: mpi/%s not preloaded: %s", type, err.text);
    else
        log_debug ("spawner: mpi/%s preloaded", type);
}

static int mpi_load_plugin (struct stepd *sd, const char *type,
                            arbor_error_t *err)
{
    struct mpi *m = sd->mpi;
    int slot = mpi_slot (type);
    arbor_error_t perr = { "" };

    m->spool = conf_expand (sd->conf->spool_dir, sd->node);
    plugin_env_daemon (&m->env, sd->conf, sd->node, m->spool, m->plugin_dir,
                       sizeof (m->plugin_dir));
    if (!m->spool)
        return errprintf (err, "out of memory");
    if (slot >= 0 && sd->mpi_loaded[slot]) { /* the spawner's */
        m->plugin = sd->mpi_loaded[slot];
        sd->mpi_loaded[slot] = NULL;
    } else if (!(m->plugin = mpi_load (m->plugin_dir, type, &perr)))
        return errprintf (err, "--mpi=%s: %s", type, perr.text);
    m->ops = plugin_ops (m->plugin);
    if (m->ops->init (&m->env, &m->ctx, &perr) < 0)
        return errprintf (err, "--mpi=%s: %s", type, perr.text);
    return 0;
}

/* The tree's width: MpiParams=tree_width=N, else TreeWidth. */
static uint32_t mpi_tree_width (const struct conf *conf)
{
    const char *p =
        conf->mpi_params ? strstr (conf->mpi_params, "tree_width=") : NULL;
    unsigned long w;

    if (p && (w = strtoul (p + strlen ("tree_width="), NULL, 10)) >= 1
        && w <= 65535)
        return (uint32_t)w;
    return conf->tree_width;
}

static int mpi_exchange_init (struct stepd *sd, arbor_error_t *err)
{
    struct mpi *m = sd->mpi;
    size_t n;

    if (!(m->nodes = hostlist_create (sd->init.step_nodelist, err)))
        return -1;
    n = hostlist_count (m->nodes);
    if (!(m->names = calloc (n + 1, sizeof (*m->names))))
        return errprintf (err, "out of memory");
    for (size_t i = 0; i < n; i++)
        m->names[i] = hostlist_nth (m->nodes, i);
    if (mesh_init (sd, m->names, (uint32_t)n, mpi_mesh_recv, mpi_mesh_fail) < 0
        || coll_init (sd, sd->init.node_id, (uint32_t)n,
                      mpi_tree_width (sd->conf), mpi_gathered)
               < 0)
        return errprintf (err, "out of memory");
    return 0;
}

int mpi_prepare (struct stepd *sd, arbor_error_t *err)
{
    const struct msg_stepd_init *in = &sd->init;
    const char *type = conf_mpi_type (in->mpi && *in->mpi ? in->mpi : "none");
    struct mpi_step s;
    struct mpi *m;

    if (!type)
        return errprintf (err, "unknown MPI type '%s'", in->mpi);
    if (!strcmp (type, "none"))
        return 0;
    if (!(m = sd->mpi = calloc (1, sizeof (*m))))
        return errprintf (err, "out of memory");
    ev_io_init (&m->poll_w, mpi_poll_cb, -1, EV_READ);
    m->poll_w.data = m;
    m->host = (struct mpi_host){
        .arg = sd,
        .allgather = mpi_host_allgather,
        .send = mpi_host_send,
        .abort = mpi_host_abort,
    };
    if (mpi_load_plugin (sd, type, err) < 0 || mpi_exchange_init (sd, err) < 0
        || mpi_tmpdir_make (sd, err) < 0)
        return -1;
    s = (struct mpi_step){
        .job_id = in->job_id,
        .step_id = in->step_id,
        .uid = in->uid,
        .gid = in->gid,
        .node_id = in->node_id,
        .nnodes = (uint32_t)hostlist_count (m->nodes),
        .nodes = m->names,
        .tasks = in->tasks,
        .ntasks = layout_total (in->tasks, in->tasks_count),
        .nlocal = sd->nlocal,
        .ranks = sd->ranks,
        .local_ranks = sd->local_ranks,
        .tmpdir = m->tmpdir,
        .srvdir = m->srvdir,
        .shared_host = sd->nests,
    };
    if (s.nnodes != in->tasks_count)
        return errprintf (err, "%zu step nodes but %u task counts",
                          (size_t)s.nnodes, in->tasks_count);
    if (m->ops->prepare (m->ctx, &s, &m->host, err) < 0
        || rootdir_seal (m->srvdir, 0755, err) < 0)
        return -1;
    if (m->ops->poll_fd (m->ctx) >= 0) {
        ev_io_set (&m->poll_w, m->ops->poll_fd (m->ctx), EV_READ);
        ev_io_start (sd->loop, &m->poll_w);
    }
    log_debug ("MPI %s ready in %s", type, m->tmpdir);
    return 0;
}

int mpi_task_env (struct stepd *sd, uint32_t rank, struct env *env,
                  int *keep_fd, arbor_error_t *err)
{
    struct mpi *m = sd->mpi;
    char **vars = NULL;
    int rc = 0;

    *keep_fd = -1;
    if (env_set (env, "SLURM_MPI_TYPE", m ? plugin_name (m->plugin) : "none")
        < 0)
        return errprintf (err, "out of memory");
    if (!m)
        return 0;
    if (m->ops->task_env (m->ctx, rank, &vars, keep_fd, err) < 0)
        return -1;
    for (size_t i = 0; vars && vars[i] && rc == 0; i++)
        if ((rc = env_put (env, vars[i])) < 0)
            errprintf (err, "MPI variable '%.40s': %s", vars[i],
                       strerror (errno));
    env_strv_free (vars);
    return rc;
}

void mpi_task_started (struct stepd *sd, uint32_t rank, pid_t pid)
{
    struct mpi *m = sd->mpi;

    if (m && m->ops->task_started)
        m->ops->task_started (m->ctx, rank, pid);
}

void mpi_task_exited (struct stepd *sd, const struct task *t)
{
    struct mpi *m = sd->mpi;
    char why[256] = "";
    int code;

    if (!m || m->finished || m->aborted
        || !m->ops->task_exited (m->ctx, t->rank, t->status, why, sizeof (why)))
        return;
    code = WIFSIGNALED (t->status) ? 128 + WTERMSIG (t->status)
                                   : WEXITSTATUS (t->status);
    mpi_host_abort (sd, t->rank, code ? code : 1, why);
}

void mpi_finish (struct stepd *sd)
{
    struct mpi *m = sd->mpi;

    if (!m || m->finished)
        return;
    m->finished = true;
    ev_io_stop (sd->loop, &m->poll_w);
    if (m->ops && m->ctx)
        m->ops->finish (m->ctx);
    if (m->tmpdir)
        userdir_remove (m->tmpdir);
    if (m->srvdir)
        userdir_remove (m->srvdir);
}

bool mpi_busy (const struct stepd *sd)
{
    return sd->mpi && mesh_pending (sd) > 0;
}

void mpi_free (struct stepd *sd)
{
    struct mpi *m = sd->mpi;

    if (!m)
        return;
    mpi_finish (sd);
    coll_fini (sd);
    mesh_fini (sd);
    if (m->ops && m->ctx)
        m->ops->fini (m->ctx);
    plugin_release (m->plugin);
    hostlist_destroy (m->nodes);
    free (m->names);
    free (m->tmpdir);
    free (m->srvdir);
    free (m->spool);
    free (m);
    sd->mpi = NULL;
}
