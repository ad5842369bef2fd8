/* contain.c - the step's proctrack container.
 *
 * ProctrackType (default proctrack/cgroup) is loaded from PluginDir, or
 * the build's/installed plugin directory, and given a plugin_env whose log
 * goes to the stepd's log and whose conf_get reads arbor.conf. The
 * container is created in the launch chain, before any task forks; when
 * the node's NodeAddr is a loopback address (the emulated nodes of arbor
 * local share one host) it nests under node_<NODE> (conf_node_nests). If the
 * configured plugin cannot work here (no cgroup filesystem, not root),
 * the launch fails with the plugin's reason: a step is never run
 * uncontained behind the administrator's back. proctrack/pgid is the
 * explicit choice for hosts without cgroups.
 *
 * ConstrainDevices (contain_devices): the device files the step may not
 * open are stat'ed here into device numbers and handed to the plugin's
 * optional constrain_devices op, between create and the first task; a
 * plugin without it (pgid) fails the launch.
 *
 * The OOM counter is read right after create (the base) and whenever a
 * task dies by SIGKILL: each kill the counter gained since is claimed by
 * one such task, which is then reported as OUT_OF_MEMORY.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log.h"
#include "proctrack.h"
#include "contain.h"
#include "stepd.h"

/* The step's proctrack container (contain.c). */
struct contain {
    struct plugin *plugin;
    const struct proctrack_ops *ops;
    void *ctx; /* plugin state, NULL before init */
    struct plugin_env env;
    char plugin_dir[PATH_MAX];
    char *spool;    /* env.spool_dir */
    bool preloaded; /* contain_preload ran (plugin loaded or not) */
    int load_errno; /* its failure, 0 if none */
    arbor_error_t load_err;
    bool created;         /* container exists (until destroy) */
    bool oom_counted;     /* the container has an OOM counter */
    uint64_t oom_base;    /* counter right after create */
    uint64_t oom_claimed; /* OOM kills attributed to tasks */
};

static int contain_load (struct stepd *sd, arbor_error_t *err)
{
    struct contain *ct = sd->ct;
    arbor_error_t perr = { "" };

    ct->spool = conf_expand (sd->conf->spool_dir, sd->node);
    plugin_env_daemon (&ct->env, sd->conf, sd->node, ct->spool, ct->plugin_dir,
                       sizeof (ct->plugin_dir));
    if (!(ct->plugin =
              proctrack_load (ct->plugin_dir, sd->conf->proctrack_type, &perr)))
        return errprintf (err, "containment: ProctrackType=%s: %s",
                          sd->conf->proctrack_type, perr.text);
    ct->ops = plugin_ops (ct->plugin);
    if (ct->ops->init (&ct->env, &ct->ctx, &perr) < 0) {
        int e = errno;
        plugin_unload (ct->plugin);
        ct->plugin = NULL;
        ct->ops = NULL;
        ct->ctx = NULL;
        errno = e;
        return errprintf (err, "containment: %s", perr.text);
    }
    return 0;
}

void contain_preload (struct stepd *sd)
{
    struct contain *ct = sd->ct;

    ct->preloaded = true;
    if (contain_load (sd, &ct->load_err) < 0)
        ct->load_errno = errno ? errno : EINVAL;
}

int contain_create (struct stepd *sd, arbor_error_t *err)
{
    struct contain *ct = sd->ct;
    const struct msg_stepd_init *in = &sd->init;
    bool nest = sd->nests;
    struct step_info s = {
        .job_id = in->job_id,
        .step_id = in->step_id,
        .uid = in->uid,
        .gid = in->gid,
        .node = nest ? sd->node : NULL,
        .mem_mb = in->mem_mb,
    };
    arbor_error_t perr = { "" };

    if (!ct->preloaded)
        contain_preload (sd);
    if (ct->load_errno) {
        errno = ct->load_errno;
        return errprintf (err, "%s", ct->load_err.text);
    }
    if (ct->ops->create (ct->ctx, &s, &perr) < 0) {
        bool priv = errno == EACCES || errno == EPERM;
        return errprintf (err, "containment: %s%s", perr.text,
                          priv && geteuid () != 0
                              ? " (arbor-stepd is not running as root; "
                                "ProctrackType=proctrack/pgid needs no "
                                "privilege)"
                              : "");
    }
    ct->created = true;
    ct->oom_counted = ct->ops->oom_kills (ct->ctx, &ct->oom_base) == 0;
    log_debug ("container made by %s%s%s, memory limit %llu MB, OOM "
               "counter %s",
               plugin_name (ct->plugin), nest ? " under node_" : "",
               nest ? sd->node : "", (unsigned long long)in->mem_mb,
               ct->oom_counted ? "yes" : "no");
    return 0;
}

/* One deny file into *d: 1 when it is a device, 0 when it does not
 * exist (skipped), -1 with errno and err otherwise. */
static int contain_dev_stat (const char *path, struct proctrack_dev *d,
                             arbor_error_t *err)
{
    struct stat sb;

    if (stat (path, &sb) < 0) {
        if (errno == ENOENT) {
            log_debug ("ConstrainDevices: %s does not exist: skipped", path);
            return 0;
        }
        return errprintf (err, "ConstrainDevices: %s: %s", path,
                          strerror (errno));
    }
    if (!S_ISCHR (sb.st_mode) && !S_ISBLK (sb.st_mode)) {
        errno = EINVAL;
        return errprintf (err, "ConstrainDevices: %s is not a device file",
                          path);
    }
    d->kind = S_ISCHR (sb.st_mode) ? 'c' : 'b';
    d->major = major (sb.st_rdev);
    d->minor = minor (sb.st_rdev);
    return 1;
}

int contain_devices (struct stepd *sd, char *const *deny_files, size_t n,
                     arbor_error_t *err)
{
    struct contain *ct = sd->ct;
    struct proctrack_dev *devs;
    arbor_error_t perr = { "" };
    size_t count = 0;
    int rc = -1, e;

    if (!ct || !ct->created) {
        errno = EINVAL;
        return errprintf (err, "ConstrainDevices: no container yet");
    }
    /* Refused whether or not this step has devices to deny: the setting
     * is the node's, and a pgid node must not pass it silently. */
    if (!ct->ops->constrain_devices) {
        errno = ENOTSUP;
        return errprintf (err, "ConstrainDevices=yes needs "
                               "ProctrackType=proctrack/cgroup");
    }
    if (!(devs = calloc (n ? n : 1, sizeof (*devs))))
        return errprintf (err, "ConstrainDevices: out of memory");
    for (size_t i = 0; i < n; i++) {
        int got = contain_dev_stat (deny_files[i], &devs[count], err);
        if (got < 0)
            goto out;
        count += (size_t)got;
    }
    if (ct->ops->constrain_devices (ct->ctx, devs, count, &perr) < 0) {
        errprintf (err, "containment: %s", perr.text);
        goto out;
    }
    log_debug ("ConstrainDevices: %zu device(s) denied", count);
    rc = 0;
out:
    e = errno;
    free (devs);
    errno = e;
    return rc;
}

int contain_add (struct stepd *sd, pid_t pid)
{
    if (!sd->ct->created) {
        errno = EINVAL;
        return -1;
    }
    return sd->ct->ops->add (sd->ct->ctx, pid);
}

int contain_adopt (struct stepd *sd, pid_t pid, arbor_error_t *err)
{
    struct contain *ct = sd->ct;

    if (!ct->created) {
        errno = ESRCH;
        return errprintf (err, "the step has no container");
    }
    if (!ct->ops->adopt) {
        errno = ENOTSUP;
        return errprintf (err,
                          "ProctrackType=%s cannot adopt processes (a "
                          "process group is not a container): use "
                          "proctrack/cgroup",
                          sd->conf->proctrack_type);
    }
    if (ct->ops->adopt (ct->ctx, pid) < 0) {
        int e = errno;
        errprintf (err, "cannot move pid %d into the container: %s", (int)pid,
                   strerror (e));
        errno = e;
        return -1;
    }
    return 0;
}

bool contain_adds_self (struct stepd *sd)
{
    return sd->ct->created && sd->ct->ops->add_self;
}

int contain_add_self (struct stepd *sd)
{
    return sd->ct->ops->add_self (sd->ct->ctx);
}

int contain_signal (struct stepd *sd, int sig)
{
    if (!sd->ct->created) {
        errno = ESRCH;
        return -1;
    }
    return sd->ct->ops->signal (sd->ct->ctx, sig);
}

int contain_is_empty (struct stepd *sd)
{
    if (!sd->ct->created)
        return 1;
    return sd->ct->ops->is_empty (sd->ct->ctx);
}

int contain_pids (struct stepd *sd, pid_t **pids, size_t *n)
{
    *pids = NULL;
    *n = 0;
    if (!sd->ct->created)
        return 0;
    return sd->ct->ops->pids (sd->ct->ctx, pids, n);
}

void contain_pids_text (struct stepd *sd, char *buf, size_t size)
{
    pid_t *pids = NULL;
    size_t n = 0, off = 0;

    buf[0] = '\0';
    if (contain_pids (sd, &pids, &n) < 0)
        return;
    for (size_t i = 0; i < n && off < size; i++) {
        int w = snprintf (buf + off, size - off, "%s%ld", i ? " " : "",
                          (long)pids[i]);
        if (w < 0)
            break;
        off += (size_t)w;
    }
    free (pids);
}

uint64_t contain_oom_kills (struct stepd *sd)
{
    uint64_t n = 0;

    if (!sd->ct->created || !sd->ct->oom_counted
        || sd->ct->ops->oom_kills (sd->ct->ctx, &n) < 0 || n < sd->ct->oom_base)
        return 0;
    return n - sd->ct->oom_base;
}

bool contain_claim_oom (struct stepd *sd)
{
    if (contain_oom_kills (sd) <= sd->ct->oom_claimed)
        return false;
    sd->ct->oom_claimed++;
    return true;
}

void contain_destroy (struct stepd *sd)
{
    struct contain *ct = sd->ct;
    arbor_error_t err = { "" };

    if (!ct)
        return;
    if (ct->created) {
        if (ct->ops->destroy (ct->ctx, &err) < 0)
            log_warn ("remove container: %s", err.text);
        else
            log_debug ("container removed");
        ct->created = false;
    }
    if (ct->ops)
        ct->ops->fini (ct->ctx);
    ct->ctx = NULL;
    ct->ops = NULL;
}

int contain_init (struct stepd *sd)
{
    return (sd->ct = calloc (1, sizeof (*sd->ct))) ? 0 : -1;
}

bool contain_exists (const struct stepd *sd)
{
    return sd->ct && sd->ct->created;
}

/* The stepd exits next: its plugin stays mapped (plugin_release; a
 * dlclose of the plugin and libcgroup was 6% of a stepd's CPU). */
void contain_free (struct stepd *sd)
{
    if (sd->ct) {
        plugin_release (sd->ct->plugin);
        free (sd->ct->spool);
    }
    free (sd->ct);
    sd->ct = NULL;
}
