/* acct_usage.c - folding nodes' usage reports into a step's record.
 * See acct_usage.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct/acct_usage.h"

int acct_end_code (int exit_code, int signal)
{
    return signal ? 128 + signal : exit_code;
}

const char *acct_step_state (int exit_code, int signal, bool oom)
{
    if (oom)
        return "OUT_OF_MEMORY";
    return exit_code || signal ? "FAILED" : "COMPLETED";
}

/* The worst end of the record's and the nodes': the launcher reports
 * the highest of its tasks' anyway, and a step that ended without a
 * launcher (the batch step, a step ended with its job) gets its nodes'. */
static void add_end (struct msg_acct_step *s, const struct msg_step_complete *u)
{
    if (acct_end_code (u->exit_code, u->signal)
        > acct_end_code (s->exit_code, s->signal)) {
        s->exit_code = u->exit_code;
        s->signal = u->signal;
    }
}

/* A step that ended on its own (COMPLETED, FAILED) is named again from
 * its end now known; CANCELLED, TIMEOUT, OUT_OF_MEMORY... stay. */
static int restate (struct msg_acct_step *s)
{
    char *state;

    if (!s->state
        || (strcmp (s->state, "COMPLETED") && strcmp (s->state, "FAILED")))
        return 0;
    if (!(state = strdup (acct_step_state (s->exit_code, s->signal, false)))) {
        errno = ENOMEM;
        return -1;
    }
    free (s->state);
    s->state = state;
    return 0;
}

int acct_step_add_usage (struct msg_acct_step *s,
                         const struct msg_step_complete *u, size_t n)
{
    uint64_t sum_rss = 0, ntasks = 0;
    const struct msg_step_complete *top = NULL;

    for (size_t i = 0; i < n; i++) {
        add_end (s, &u[i]);
        if (!u[i].usage)
            continue;
        s->nodes_reported++;
        s->user_usec += u[i].user_usec;
        s->sys_usec += u[i].sys_usec;
        sum_rss += u[i].sum_rss_kb;
        ntasks += u[i].ntasks;
        if (u[i].ntasks && (!top || u[i].max_rss_kb > top->max_rss_kb))
            top = &u[i];
    }
    if (ntasks)
        s->ave_rss_kb = sum_rss / ntasks;
    if (restate (s) < 0)
        return -1;
    if (!top)
        return 0;
    char *node = strdup (top->node ? top->node : "");
    if (!node) {
        errno = ENOMEM;
        return -1;
    }
    free (s->max_rss_node);
    s->max_rss_node = node;
    s->max_rss_kb = top->max_rss_kb;
    s->max_rss_task = top->max_rss_task;
    return 0;
}
