/* cg_freeze.c - freeze, signal, thaw: how both backends signal a step.
 *
 * A frozen process cannot fork, so no child is born between the listing
 * of the group and the kill. The backends differ only in how a group is
 * frozen, seen frozen, thawed and listed; struct cg_freezer holds those
 * four calls and cg_freeze_signal() the order and the error rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "cg.h"
#include "cg_freeze.h"

/* Poll fz->is_frozen until it says so, for CG_FREEZE_WAIT_MS at most (a
 * task in uninterruptible sleep can hold the group in FREEZING). */
static bool cg_wait_frozen (struct cg_ctx *c, const struct cg_freezer *fz)
{
    const struct timespec tick = { 0, 5 * 1000 * 1000 };

    for (int ms = 0; ms <= CG_FREEZE_WAIT_MS; ms += 5) {
        int frozen = fz->is_frozen (c);
        if (frozen < 0)
            return false;
        if (frozen > 0)
            return true;
        nanosleep (&tick, NULL);
    }
    return false;
}

int cg_freeze_signal (struct cg_ctx *c, const struct cg_freezer *fz, int sig)
{
    bool frozen = fz->freeze (c) == 0 && cg_wait_frozen (c, fz);
    pid_t *pids = NULL;
    size_t n = 0;
    int rc = 0, e = 0, e2;

    if (!frozen)
        plugin_log (c->env, PLUGIN_LOG_WARN,
                    "proctrack/cgroup: %s did not "
                    "freeze; signalling it unfrozen",
                    c->rel);
    if (fz->pids (c, &pids, &n) < 0) {
        e = errno;
        rc = -1;
    }
    if (n > 0 && (e2 = cg_signal_pids (pids, n, sig)) != 0) {
        e = e2;
        rc = -1;
    }
    free (pids);
    /* Thaw even when not seen frozen: a FREEZING group must not stay so. */
    if (fz->thaw (c) < 0 && rc == 0) {
        e = errno;
        rc = -1;
    }
    if (rc < 0)
        errno = e;
    return rc;
}
