/* proctrack.c - the daemon side of the proctrack plugin type.
 *
 * Checks a proctrack ops table and loads the plugin ProctrackType names:
 * pgid from the static descriptor linked into this library, anything else
 * through plugin_load(). Daemons call the ops through plugin_ops().
 */
#include <errno.h>
#include <string.h>

#include "proctrack.h"

/* add_self, adopt and constrain_devices are optional: their callers
 * check for NULL (pgid leaves them out). */
int proctrack_ops_check (const void *ops, arbor_error_t *err)
{
    const struct proctrack_ops *o = ops;
    const char *missing = NULL;

    if (!o->init)
        missing = "init";
    else if (!o->fini)
        missing = "fini";
    else if (!o->create)
        missing = "create";
    else if (!o->add)
        missing = "add";
    else if (!o->signal)
        missing = "signal";
    else if (!o->is_empty)
        missing = "is_empty";
    else if (!o->destroy)
        missing = "destroy";
    else if (!o->pids)
        missing = "pids";
    else if (!o->oom_kills)
        missing = "oom_kills";
    if (missing) {
        errno = EINVAL;
        return errprintf (err, "required op '%s' is NULL", missing);
    }
    return 0;
}

struct plugin *proctrack_load (const char *dir, const char *spec,
                               arbor_error_t *err)
{
    struct plugin *p = NULL;
    int rc;

    if (!spec) {
        errno = EINVAL;
        errprintf (err, "ProctrackType not set");
        return NULL;
    }
    if (!strcmp (spec, "pgid") || !strcmp (spec, "proctrack/pgid"))
        rc = plugin_open_static (
            proctrack_pgid_plugin (), PROCTRACK_TYPE, PROCTRACK_OPS_VERSION,
            sizeof (struct proctrack_ops), proctrack_ops_check, &p, err);
    else
        rc = plugin_load (dir, PROCTRACK_TYPE, spec, PROCTRACK_OPS_VERSION,
                          sizeof (struct proctrack_ops), proctrack_ops_check,
                          &p, err);
    return rc < 0 ? NULL : p;
}
