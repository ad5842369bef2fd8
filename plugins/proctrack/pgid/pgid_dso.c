/* pgid_dso.c - the one exported symbol of proctrack_pgid.so. The same
 * plugin is also linked statically; see proctrack_pgid_plugin(). */
#include "pgid.h"
#include "proctrack.h"

ARBOR_PLUGIN_EXPORT const struct arbor_plugin arbor_plugin =
    PROCTRACK_PLUGIN ("pgid", proctrack_pgid_ops);
