/* adopt.h - pam_arbor_adopt's options and its choice of a job
 * (adopt_opts.c).
 *
 * pam_arbor_adopt.c is the PAM entry point; these are kept apart so that
 * the options and the choice are pure and unit-tested
 * (test/adopt_test.c), and the talking (adopt_ask.h) is one blocking
 * exchange per question, short enough for a login.
 */
#ifndef ARBOR_PAM_ADOPT_H
#define ARBOR_PAM_ADOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* What the module answers in a case it cannot adopt in. */
enum adopt_action {
    ACT_ALLOW,  /* PAM_SUCCESS: the login goes on, not adopted */
    ACT_IGNORE, /* PAM_IGNORE: this module has no say */
    ACT_DENY,   /* PAM_PERM_DENIED, with a message the user sees */
    ACT_NEWEST, /* action_unknown only: adopt into the newest job */
};

/* The module's own log levels (log_level=): a line is logged when its
 * level is at most the configured one. */
enum adopt_log {
    ALOG_QUIET = -1,
    ALOG_ERROR = 0,
    ALOG_INFO,
    ALOG_VERBOSE,
    ALOG_DEBUG,
};

struct adopt_opts {
    enum adopt_action no_jobs;         /* deny (default) | ignore */
    enum adopt_action unknown;         /* newest (default) | allow | deny */
    enum adopt_action adopt_failure;   /* allow (default) | deny */
    enum adopt_action generic_failure; /* deny (default) | allow | ignore */
    int log_level;                     /* enum adopt_log; info */
    bool ignore_root;                  /* root is exempt (default) */
    char *admin_users;  /* comma-separated names exempt, or NULL */
    char *admin_groups; /* members (primary or not) are exempt, or NULL */
    char *conf_path;    /* conf=; NULL: conf_default_path() */
    char *nodename;     /* nodename=; NULL: the node named as this host */
    int timeout_ms;     /* timeout= seconds, per question; 5 s */
};

/* Parse the module's arguments ("action_no_jobs=ignore", ...). Every
 * argument must be known and valid: -1 with err naming it otherwise (the
 * module then applies action_generic_failure as parsed so far). Free
 * with adopt_opts_free (also after a failure). */
int adopt_opts_parse (struct adopt_opts *o, int argc, const char **argv,
                      arbor_error_t *err);
void adopt_opts_free (struct adopt_opts *o);

/* Is 'name' one of the comma-separated words of 'list' (NULL: none)? */
bool adopt_list_has (const char *list, const char *name);

/* What to do with a login, given the user's jobs on this node, newest
 * first, and the job a SLURM_JOB_ID / ARBOR_JOB_ID names (0: none). */
enum adopt_verdict {
    VERDICT_ADOPT, /* into job 'job' */
    VERDICT_ACTION /* apply 'action' (no job, or several) */
};
struct adopt_choice {
    enum adopt_verdict verdict;
    uint32_t job;
    enum adopt_action action;
    bool no_jobs;     /* the action is action_no_jobs' */
    bool env_ignored; /* the named job is not one of the user's here */
};
void adopt_pick (const struct adopt_opts *o, const uint32_t *jobs, size_t n,
                 uint32_t env_job, struct adopt_choice *c);

/* A job id as SLURM_JOB_ID holds it: 1-4294967294, nothing else. 0 if
 * 's' is NULL or not one. */
uint32_t adopt_parse_job (const char *s);

#endif
