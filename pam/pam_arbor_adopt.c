/* pam_arbor_adopt.c - an account module that puts a user's login into the
 * user's job on this node, or refuses it.
 *
 * At each login of user U (sshd's account stage) it asks this node's
 * arbor-noded, over its local socket, which of U's jobs run here (no
 * controller round trip), picks one (the job SLURM_JOB_ID or ARBOR_JOB_ID
 * names when the PAM environment or ours has it, else the only one, else
 * action_unknown), and asks that job's extern stepd to move the calling
 * process (sshd's session process) into the step's container: everything
 * the session starts is then the job's, and ends with it. Root and the
 * listed admins are exempt (PAM_IGNORE). Each case it cannot handle has
 * its configured action; every refusal tells the user why, and every
 * failure is logged (syslog, authpriv) with its reason.
 * See man/man8/pam_arbor_adopt.8 and docs/pam_adopt.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "adopt.h"
#include "adopt_ask.h"
#include "conf.h"

#define DENIED "Access denied by pam_arbor_adopt: "

struct adopt_ctx {
    pam_handle_t *pamh;
    int flags;
    struct adopt_opts o;
    const char *user;
    uid_t uid;
    gid_t gid;
    struct conf *conf;
    char node[256];
    char *spool;
};

static void alog (struct adopt_ctx *x, int level, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void alog (struct adopt_ctx *x, int level, const char *fmt, ...)
{
    static const int prio[] = { LOG_ERR, LOG_INFO, LOG_INFO, LOG_DEBUG };
    va_list ap;

    if (level > x->o.log_level)
        return;
    va_start (ap, fmt);
    pam_vsyslog (x->pamh, prio[level], fmt, ap);
    va_end (ap);
}

/* The answer for 'action'; a denial tells the user 'why'. */
static int adopt_act (struct adopt_ctx *x, enum adopt_action action,
                      const char *why)
{
    switch (action) {
    case ACT_ALLOW: return PAM_SUCCESS;
    case ACT_IGNORE: return PAM_IGNORE;
    default:
        if (!(x->flags & PAM_SILENT))
            pam_error (x->pamh, "%s%s", DENIED, why);
        return PAM_PERM_DENIED;
    }
}

static bool adopt_in_group (const struct adopt_ctx *x, const char *group)
{
    struct group *gr = getgrnam (group);
    gid_t groups[256];
    int n = (int)(sizeof (groups) / sizeof (*groups));

    if (!gr)
        return false;
    if (gr->gr_gid == x->gid)
        return true;
    if (getgrouplist (x->user, x->gid, groups, &n) < 0)
        n = (int)(sizeof (groups) / sizeof (*groups)); /* the first ones */
    for (int i = 0; i < n; i++)
        if (groups[i] == gr->gr_gid)
            return true;
    return false;
}

/* Root (ignore_root), admin_users, members of admin_groups. */
static bool adopt_exempt (struct adopt_ctx *x)
{
    if (x->uid == 0 && x->o.ignore_root)
        return true;
    if (adopt_list_has (x->o.admin_users, x->user))
        return true;
    if (!x->o.admin_groups)
        return false;
    char *list = strdup (x->o.admin_groups), *save = NULL;
    bool found = false;
    for (char *g = list ? strtok_r (list, ",", &save) : NULL; g && !found;
         g = strtok_r (NULL, ",", &save))
        found = adopt_in_group (x, g);
    free (list);
    return found;
}

/* The user's uid and gid. -1 if unknown. */
static int adopt_user (struct adopt_ctx *x)
{
    struct passwd *pw;

    if (pam_get_user (x->pamh, &x->user, NULL) != PAM_SUCCESS || !x->user
        || !*x->user)
        return -1;
    if (!(pw = getpwnam (x->user)))
        return -1;
    x->uid = pw->pw_uid;
    x->gid = pw->pw_gid;
    return 0;
}

/* arbor.conf, this node's name and spool. -1 with err. */
static int adopt_node (struct adopt_ctx *x, arbor_error_t *err)
{
    if (!(x->conf = conf_load (x->o.conf_path, err))) {
        arbor_error_t why = *err;
        return errprintf (err, "cannot read the configuration: %s", why.text);
    }
    if (x->o.nodename)
        snprintf (x->node, sizeof (x->node), "%s", x->o.nodename);
    else {
        if (gethostname (x->node, sizeof (x->node) - 1) < 0)
            return errprintf (err, "gethostname: %s", strerror (errno));
        x->node[strcspn (x->node, ".")] = '\0';
    }
    if (!conf_node_find (x->conf, x->node))
        return errprintf (
            err,
            "%s is not a node of %s (set nodename= to this "
            "host's NodeName)",
            x->node, x->o.conf_path ? x->o.conf_path : conf_default_path ());
    if (!(x->spool = conf_expand (x->conf->spool_dir, x->node)))
        return errprintf (err, "out of memory");
    return 0;
}

/* SLURM_JOB_ID / ARBOR_JOB_ID from the PAM environment, else ours. */
static uint32_t adopt_env_job (struct adopt_ctx *x)
{
    static const char *const names[] = { "ARBOR_JOB_ID", "SLURM_JOB_ID" };

    for (size_t i = 0; i < 2; i++) {
        const char *v = pam_getenv (x->pamh, names[i]);
        if (!v)
            v = getenv (names[i]);
        if (v && adopt_parse_job (v))
            return adopt_parse_job (v);
        if (v)
            alog (x, ALOG_INFO, "%s=%s is not a job id: ignored", names[i], v);
    }
    return 0;
}

/* "5, 7, 9" into buf. */
static const char *adopt_job_list (char *buf, size_t size, const uint32_t *jobs,
                                   size_t n)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++) {
        int w =
            snprintf (buf + len, size - len, "%s%u", i ? ", " : "", jobs[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

/* Several jobs and none named: action_unknown's allow or deny. */
static int adopt_unknown (struct adopt_ctx *x, const uint32_t *jobs, size_t n,
                          enum adopt_action action)
{
    char list[256], why[400];

    adopt_job_list (list, sizeof (list), jobs, n);
    alog (x, ALOG_INFO, "%s has %zu jobs on %s (%s): action_unknown=%s",
          x->user, n, x->node, list, action == ACT_ALLOW ? "allow" : "deny");
    snprintf (why, sizeof (why),
              "you have more than one job on this node (%s); name one "
              "with SLURM_JOB_ID",
              list);
    return adopt_act (x, action, why);
}

/* Into 'job''s extern step, or action_adopt_failure. */
static int adopt_into (struct adopt_ctx *x, uint32_t job, bool has_extern)
{
    arbor_error_t err = { "" };
    char why[128];

    snprintf (why, sizeof (why), "cannot put this session into job %u", job);
    if (!has_extern) {
        alog (x, ALOG_ERROR,
              "job %u of %s has no extern step on %s (PrologFlags=Contain "
              "is not set): action_adopt_failure",
              job, x->user, x->node);
        return adopt_act (x, x->o.adopt_failure, why);
    }
    if (adopt_ask_stepd (x->spool, job, getpid (), x->o.timeout_ms, &err) < 0) {
        alog (x, ALOG_ERROR,
              "cannot adopt pid %d of %s into job %u on %s: %s: "
              "action_adopt_failure",
              (int)getpid (), x->user, job, x->node, err.text);
        return adopt_act (x, x->o.adopt_failure, why);
    }
    alog (x, ALOG_INFO, "adopted pid %d of %s into job %u on %s",
          (int)getpid (), x->user, job, x->node);
    return PAM_SUCCESS;
}

static int adopt_login (struct adopt_ctx *x)
{
    arbor_error_t err = { "" };
    uint32_t *jobs = NULL, *externs = NULL;
    size_t n = 0;
    struct adopt_choice c;
    int rc;

    if (adopt_node (x, &err) < 0) {
        alog (x, ALOG_ERROR, "%s: action_generic_failure", err.text);
        return adopt_act (x, x->o.generic_failure,
                          "cannot check your jobs on this node");
    }
    if (adopt_ask_jobs (x->spool, x->uid, x->o.timeout_ms, &jobs, &externs, &n,
                        &err)
        < 0) {
        alog (x, ALOG_ERROR,
              "cannot ask arbor-noded which jobs %s has here: "
              "%s: action_generic_failure",
              x->user, err.text);
        return adopt_act (x, x->o.generic_failure,
                          "cannot check your jobs on this node");
    }
    adopt_pick (&x->o, jobs, n, adopt_env_job (x), &c);
    if (c.env_ignored)
        alog (x, ALOG_INFO,
              "the job named in the environment is not one of "
              "%s's on %s: ignored",
              x->user, x->node);
    if (c.verdict == VERDICT_ADOPT) {
        size_t i = 0;
        while (jobs[i] != c.job)
            i++;
        rc = adopt_into (x, c.job, externs[i] != 0);
    } else if (c.no_jobs) {
        alog (x, ALOG_INFO, "%s has no job on %s: action_no_jobs=%s", x->user,
              x->node, c.action == ACT_DENY ? "deny" : "ignore");
        rc = adopt_act (x, c.action, "you have no active jobs on this node");
    } else
        rc = adopt_unknown (x, jobs, n, c.action);
    free (jobs);
    free (externs);
    return rc;
}

PAM_EXTERN int pam_sm_acct_mgmt (pam_handle_t *pamh, int flags, int argc,
                                 const char **argv)
{
    struct adopt_ctx x = { .pamh = pamh, .flags = flags };
    arbor_error_t err = { "" };
    int rc;

    if (adopt_opts_parse (&x.o, argc, argv, &err) < 0) {
        x.o.log_level = ALOG_ERROR;
        alog (&x, ALOG_ERROR, "bad module option: %s: action_generic_failure",
              err.text);
        rc = adopt_act (&x, x.o.generic_failure,
                        "the login service is misconfigured");
    } else if (adopt_user (&x) < 0) {
        alog (&x, ALOG_ERROR, "unknown user %s: action_generic_failure",
              x.user ? x.user : "(none)");
        rc = adopt_act (&x, x.o.generic_failure, "unknown user");
    } else if (adopt_exempt (&x)) {
        alog (&x, ALOG_DEBUG, "%s is exempt: ignored", x.user);
        rc = PAM_IGNORE;
    } else
        rc = adopt_login (&x);
    conf_destroy (x.conf);
    free (x.spool);
    adopt_opts_free (&x.o);
    return rc;
}
