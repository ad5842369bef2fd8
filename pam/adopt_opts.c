/* adopt_opts.c - pam_arbor_adopt's options and its choice of a job.
 * Pure: no PAM, no I/O. See adopt.h and man/man8/pam_arbor_adopt.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adopt.h"

#define ADOPT_TIMEOUT_MS 5000
#define ADOPT_TIMEOUT_MAX_S 60

struct action_name {
    const char *name;
    enum adopt_action action;
};

static const struct action_name action_names[] = {
    { "allow", ACT_ALLOW },
    { "ignore", ACT_IGNORE },
    { "deny", ACT_DENY },
    { "newest", ACT_NEWEST },
};

/* 'allowed' is a bit mask of the actions the option takes. */
static int parse_action (const char *key, const char *val, unsigned allowed,
                         enum adopt_action *out, arbor_error_t *err)
{
    for (size_t i = 0; i < sizeof (action_names) / sizeof (*action_names); i++)
        if (strcmp (val, action_names[i].name) == 0
            && (allowed & (1u << action_names[i].action))) {
            *out = action_names[i].action;
            return 0;
        }
    return errprintf (err, "%s=%s: not one of %s%s%s%s", key, val,
                      allowed & (1u << ACT_NEWEST) ? "newest " : "",
                      allowed & (1u << ACT_ALLOW) ? "allow " : "",
                      allowed & (1u << ACT_IGNORE) ? "ignore " : "",
                      allowed & (1u << ACT_DENY) ? "deny" : "");
}

static const struct {
    const char *name;
    int level;
} log_names[] = {
    { "quiet", ALOG_QUIET },     { "fatal", ALOG_ERROR },
    { "error", ALOG_ERROR },     { "info", ALOG_INFO },
    { "verbose", ALOG_VERBOSE }, { "debug", ALOG_DEBUG },
    { "debug2", ALOG_DEBUG },    { "debug3", ALOG_DEBUG },
    { "debug4", ALOG_DEBUG },    { "debug5", ALOG_DEBUG },
};

static int parse_log_level (const char *val, int *out, arbor_error_t *err)
{
    for (size_t i = 0; i < sizeof (log_names) / sizeof (*log_names); i++)
        if (strcmp (val, log_names[i].name) == 0) {
            *out = log_names[i].level;
            return 0;
        }
    return errprintf (err,
                      "log_level=%s: not one of quiet fatal error info "
                      "verbose debug debug2-5",
                      val);
}

static int parse_bool (const char *key, const char *val, bool *out,
                       arbor_error_t *err)
{
    if (strcmp (val, "1") == 0 || strcmp (val, "yes") == 0) {
        *out = true;
        return 0;
    }
    if (strcmp (val, "0") == 0 || strcmp (val, "no") == 0) {
        *out = false;
        return 0;
    }
    return errprintf (err, "%s=%s: not 0, 1, yes or no", key, val);
}

static int parse_timeout (const char *val, int *out, arbor_error_t *err)
{
    char *end;
    long s;

    errno = 0;
    s = strtol (val, &end, 10);
    if (errno || end == val || *end || s < 1 || s > ADOPT_TIMEOUT_MAX_S)
        return errprintf (err,
                          "timeout=%s: not a number of seconds from 1 "
                          "to %d",
                          val, ADOPT_TIMEOUT_MAX_S);
    *out = (int)s * 1000;
    return 0;
}

/* A string option: replaces an earlier one. */
static int set_string (char **field, const char *key, const char *val,
                       arbor_error_t *err)
{
    char *s;

    if (!*val)
        return errprintf (err, "%s= is empty", key);
    if (!(s = strdup (val)))
        return errprintf (err, "out of memory");
    free (*field);
    *field = s;
    return 0;
}

#define ACTS(...) (adopt_mask ((const int[]){ __VA_ARGS__, -1 }))
static unsigned adopt_mask (const int *acts)
{
    unsigned m = 0;
    for (; *acts >= 0; acts++)
        m |= 1u << *acts;
    return m;
}

static int parse_one (struct adopt_opts *o, const char *key, const char *val,
                      arbor_error_t *err)
{
    if (strcmp (key, "action_no_jobs") == 0)
        return parse_action (key, val, ACTS (ACT_DENY, ACT_IGNORE), &o->no_jobs,
                             err);
    if (strcmp (key, "action_unknown") == 0)
        return parse_action (key, val, ACTS (ACT_NEWEST, ACT_ALLOW, ACT_DENY),
                             &o->unknown, err);
    if (strcmp (key, "action_adopt_failure") == 0)
        return parse_action (key, val, ACTS (ACT_ALLOW, ACT_DENY),
                             &o->adopt_failure, err);
    if (strcmp (key, "action_generic_failure") == 0)
        return parse_action (key, val, ACTS (ACT_ALLOW, ACT_IGNORE, ACT_DENY),
                             &o->generic_failure, err);
    if (strcmp (key, "log_level") == 0)
        return parse_log_level (val, &o->log_level, err);
    if (strcmp (key, "ignore_root") == 0)
        return parse_bool (key, val, &o->ignore_root, err);
    if (strcmp (key, "admin_users") == 0)
        return set_string (&o->admin_users, key, val, err);
    if (strcmp (key, "admin_groups") == 0)
        return set_string (&o->admin_groups, key, val, err);
    if (strcmp (key, "conf") == 0)
        return set_string (&o->conf_path, key, val, err);
    if (strcmp (key, "nodename") == 0)
        return set_string (&o->nodename, key, val, err);
    if (strcmp (key, "timeout") == 0)
        return parse_timeout (val, &o->timeout_ms, err);
    return errprintf (err, "unknown option '%s'", key);
}

int adopt_opts_parse (struct adopt_opts *o, int argc, const char **argv,
                      arbor_error_t *err)
{
    memset (o, 0, sizeof (*o));
    o->no_jobs = ACT_DENY;
    o->unknown = ACT_NEWEST;
    o->adopt_failure = ACT_ALLOW;
    o->generic_failure = ACT_DENY; /* fail closed: see adopt.h */
    o->log_level = ALOG_INFO;
    o->ignore_root = true;
    o->timeout_ms = ADOPT_TIMEOUT_MS;
    for (int i = 0; i < argc; i++) {
        const char *eq = argv[i] ? strchr (argv[i], '=') : NULL;
        char key[64];
        size_t klen;

        if (!eq)
            return errprintf (err, "option '%s' is not KEY=VALUE",
                              argv[i] ? argv[i] : "(null)");
        klen = (size_t)(eq - argv[i]);
        if (klen == 0 || klen >= sizeof (key))
            return errprintf (err, "unknown option '%.*s'", (int)klen, argv[i]);
        memcpy (key, argv[i], klen);
        key[klen] = '\0';
        if (parse_one (o, key, eq + 1, err) < 0)
            return -1;
    }
    return 0;
}

void adopt_opts_free (struct adopt_opts *o)
{
    free (o->admin_users);
    free (o->admin_groups);
    free (o->conf_path);
    free (o->nodename);
    o->admin_users = o->admin_groups = o->conf_path = o->nodename = NULL;
}

bool adopt_list_has (const char *list, const char *name)
{
    size_t len = strlen (name);

    if (!list || !len)
        return false;
    for (const char *p = list; *p;) {
        size_t n = strcspn (p, ",");
        if (n == len && strncmp (p, name, len) == 0)
            return true;
        p += n;
        if (*p == ',')
            p++;
    }
    return false;
}

uint32_t adopt_parse_job (const char *s)
{
    char *end;
    unsigned long long v;

    if (!s || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    v = strtoull (s, &end, 10);
    if (errno || *end || v == 0 || v >= UINT32_MAX)
        return 0;
    return (uint32_t)v;
}

void adopt_pick (const struct adopt_opts *o, const uint32_t *jobs, size_t n,
                 uint32_t env_job, struct adopt_choice *c)
{
    memset (c, 0, sizeof (*c));
    if (n == 0) {
        c->verdict = VERDICT_ACTION;
        c->action = o->no_jobs;
        c->no_jobs = true;
        c->env_ignored = env_job != 0;
        return;
    }
    if (env_job) {
        for (size_t i = 0; i < n; i++)
            if (jobs[i] == env_job) {
                c->verdict = VERDICT_ADOPT;
                c->job = env_job;
                return;
            }
        c->env_ignored = true;
    }
    if (n == 1 || o->unknown == ACT_NEWEST) {
        c->verdict = VERDICT_ADOPT;
        c->job = jobs[0];
        return;
    }
    c->verdict = VERDICT_ACTION;
    c->action = o->unknown;
}
