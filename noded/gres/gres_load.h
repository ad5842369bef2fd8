/* gres_load.h - the generic resources this node has, as its noded
 * registers them (issue 35): gres.conf beside arbor.conf, AutoDetect=nvml
 * and the node's Gres=, merged by gresnode_build (gresnode.h).
 */
#ifndef ARBOR_NODED_GRES_LOAD_H
#define ARBOR_NODED_GRES_LOAD_H

#include "error.h"

struct conf;
struct gresnode;

#define GRES_CONF_NAME "gres.conf"
#define GRES_CONF_MAX (1024 * 1024) /* bytes of gres.conf read at most */
/* Overrides the library AutoDetect=nvml opens (tests, odd installs). */
#define GRES_NVML_ENV "ARBOR_NVML_LIBRARY"

/* Read gres.conf from the directory of c->path (none there: none), run
 * NVML detection when gres.conf sets AutoDetect=nvml for 'node', and
 * build the node's items into *out (zeroed by this call; the caller
 * frees it with gresnode_clear).
 *
 * Detection that cannot run is not fatal: without the library one
 * warning is logged ("AutoDetect=nvml: NVML library not found; using the
 * configuration"), a failing NVML call is logged as an error, other
 * AutoDetect= mechanisms are logged as unsupported, and the
 * configuration is used. Call it at start and on reconfiguration, not
 * per registration: each call may log.
 *
 * 0, or -1 with errno and err: gres.conf unreadable or wrong ("gres.conf
 * line 3: Name=gpu is not in GresTypes"), ENOMEM...; *out is then
 * empty. */
int noded_gres_load (const struct conf *c, const char *node,
                     struct gresnode *out, arbor_error_t *err);

/* The path of gres.conf for arbor.conf 'conf_path': its directory's
 * GRES_CONF_NAME ("gres.conf" when conf_path has no '/'). Caller frees;
 * NULL with errno ENOMEM. */
char *noded_gres_conf_path (const char *conf_path);

#endif
