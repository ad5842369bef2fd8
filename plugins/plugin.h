/* plugin.h - the plugin ABI and the loader that checks it.
 *
 * A plugin is a shared object <dir>/<type>_<name>.so (proctrack_cgroup.so)
 * exporting exactly one symbol, `arbor_plugin`, a struct arbor_plugin that
 * names its type and points at the type's ops table (for proctrack,
 * struct proctrack_ops in plugins/proctrack/proctrack.h). plugin_load()
 * dlopens it RTLD_NOW|RTLD_LOCAL and refuses it, with a sentence saying why,
 * unless abi, type, ops_version and ops_size all match what the caller was
 * built against and the type's check says the required ops are set.
 *
 * Plugins that need no external library (proctrack/pgid) also link
 * statically; plugin_open_static() runs the same checks on such a
 * descriptor, so callers hold a struct plugin either way.
 *
 * A plugin sees the daemon only through struct plugin_env: a log callback,
 * a config lookup and a few paths. It never includes daemon headers, keeps
 * its state in the ctx its init returns (no statics), and never logs except
 * through env->log.
 */
#ifndef ARBOR_PLUGIN_H
#define ARBOR_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "error.h"

/* Bump only when struct arbor_plugin or struct plugin_env changes
 * incompatibly; ops tables carry their own version. */
#define ARBOR_PLUGIN_ABI 1

/* The one symbol a plugin .so exports. Build plugins with
 * -fvisibility=hidden and mark the descriptor ARBOR_PLUGIN_EXPORT. */
#define ARBOR_PLUGIN_SYMBOL "arbor_plugin"
#define ARBOR_PLUGIN_EXPORT __attribute__ ((visibility ("default")))

struct arbor_plugin {
    uint32_t abi;            /* ARBOR_PLUGIN_ABI, bump only on break */
    const char *type, *name; /* "proctrack", "cgroup" */
    uint32_t ops_version;    /* version of this type's ops struct */
    size_t ops_size;         /* sizeof (struct proctrack_ops) */
    const void *ops;
};

/* Log levels a plugin passes to env->log; the same numbers as log.h's
 * LOG_LVL_ERR... so daemons forward them unchanged. */
enum plugin_log_level {
    PLUGIN_LOG_ERR = 0,
    PLUGIN_LOG_WARN = 1,
    PLUGIN_LOG_INFO = 2,
    PLUGIN_LOG_VERBOSE = 3,
    PLUGIN_LOG_DEBUG = 4,
};

/* What a daemon hands a plugin. All pointers are borrowed from the daemon
 * and stay valid until the plugin's fini. Any callback may be NULL. */
struct plugin_env {
    void *arg; /* passed back to log and conf_get */
    /* 'level' is a PLUGIN_LOG_* (= LOG_LVL_*) value; 'msg' has no
     * trailing newline. */
    void (*log) (void *arg, int level, const char *msg);
    /* Raw value of an arbor.conf key (case-insensitive), or NULL if unset;
     * valid until fini. */
    const char *(*conf_get) (void *arg, const char *key);
    const char *node_name;  /* this node ("node3"), or NULL */
    const char *spool_dir;  /* this node's spool directory, or NULL */
    const char *plugin_dir; /* where plugins were loaded from, or NULL */
};

/* Log through env->log if set; never fails. Levels as in log.h. */
static inline void plugin_log (const struct plugin_env *env, int level,
                               const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static inline void plugin_log (const struct plugin_env *env, int level,
                               const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    if (!env || !env->log)
        return;
    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    env->log (env->arg, level, buf);
}

/* Config value of 'key' through env->conf_get, or 'dflt' when unset. */
static inline const char *plugin_conf (const struct plugin_env *env,
                                       const char *key, const char *dflt)
{
    const char *v = NULL;

    if (env && env->conf_get)
        v = env->conf_get (env->arg, key);
    return v ? v : dflt;
}

/* A type's check that every required op is set: returns 0, or -1 with err
 * naming the missing op. */
typedef int (*plugin_check_f) (const void *ops, arbor_error_t *err);

struct plugin;

/* Load <dir>/<type>_<name>.so. 'name' may also be given as "type/name"
 * (ProctrackType=proctrack/cgroup), in which case its type part must equal
 * 'type'. dir NULL means plugin_default_dir(). 'check' may be NULL.
 * Returns 0 and *pp, or -1 with errno (ENOENT no such file, ENOEXEC not
 * loadable or no arbor_plugin symbol, EPROTO abi/type/name/version/size
 * mismatch, EINVAL bad argument or check failed) and err, e.g.
 *   "proctrack_cgroup.so: ops_size 48, expected 64 (rebuild the plugin)".
 * No side effects on failure. Free with plugin_unload(). */
int plugin_load (const char *dir, const char *type, const char *name,
                 uint32_t ops_version, size_t ops_size, plugin_check_f check,
                 struct plugin **pp, arbor_error_t *err);

/* The same checks for a statically linked descriptor; no dlopen. */
int plugin_open_static (const struct arbor_plugin *desc, const char *type,
                        uint32_t ops_version, size_t ops_size,
                        plugin_check_f check, struct plugin **pp,
                        arbor_error_t *err);

/* dlclose (when loaded) and free. NULL is fine; keeps errno. The ops and
 * every pointer into the plugin die with it. */
void plugin_unload (struct plugin *p);
/* Free p but leave the plugin (and the libraries it pulled in) mapped
 * until the process exits: for a process about to exit, where unmapping
 * them one by one costs more than the exit's teardown of the whole
 * address space. NULL is accepted. */
void plugin_release (struct plugin *p);

/* Borrowed; valid until plugin_unload(). */
const void *plugin_ops (const struct plugin *p);
const char *plugin_type (const struct plugin *p);
const char *plugin_name (const struct plugin *p);
/* Path of the .so, or "(static)". */
const char *plugin_path (const struct plugin *p);

/* Where plugins live: $ARBOR_PLUGIN_DIR if set, else <dir of this
 * executable>/../<libdir>/arbor when that exists (the installation this
 * program belongs to, wherever its prefix went), else <dir of this
 * executable>/../lib/plugins when that exists (a build tree; these two
 * paths are written into buf), else the configured ARBOR_PLUGINDIR.
 * Never NULL; the result is borrowed from the environment, buf or a
 * constant. */
const char *plugin_default_dir (char *buf, size_t size);

/* ---- the daemon side ---------------------------------------------------- */

struct conf;

/* The plugin directory a daemon uses: PluginDir of 'conf', else
 * plugin_default_dir(), copied into buf (size bytes), which is
 * returned. */
const char *plugin_conf_dir (const struct conf *conf, char *buf, size_t size);

/* Fill *env as a daemon hands it to its plugins: their log lines go to
 * the daemon's log (log.h), conf_get reads 'conf', the plugin directory
 * is plugin_conf_dir's (written into dir, size bytes). conf, node, spool
 * and dir are borrowed and must outlive the plugin's use of env. */
void plugin_env_daemon (struct plugin_env *env, const struct conf *conf,
                        const char *node, const char *spool, char *dir,
                        size_t size);

#endif
