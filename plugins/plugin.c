/* plugin.c - load a plugin .so and check it against the caller's ABI.
 *
 * Loading is a short chain of stages: build the path from type and name,
 * dlopen it RTLD_NOW (unresolved symbols fail here, not at the first call)
 * and RTLD_LOCAL (plugins cannot see or clash with each other), find the
 * one exported descriptor, then check it field by field. Each refusal
 * names the file and what differs so that an administrator knows whether
 * to fix the config or rebuild the plugin. See plugin.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "plugin.h"

/* Set by CMake (plugins/CMakeLists.txt): the installed plugin directory,
 * and the same relative to the installation prefix (empty when the
 * libdir is not below it), which is tried from the running program's
 * directory first so that a tree installed with "cmake --install --prefix
 * P" or moved elsewhere finds its own plugins. */
#ifndef ARBOR_PLUGINDIR
#define ARBOR_PLUGINDIR "/usr/lib/arbor"
#endif
#ifndef ARBOR_PLUGINDIR_REL
#define ARBOR_PLUGINDIR_REL "lib/arbor"
#endif

struct plugin {
    void *dso; /* NULL when static */
    const struct arbor_plugin *desc;
    char path[PATH_MAX];
};

/* Accept "name" or "type/name"; copy the bare name into buf. */
static int plugin_split_name (const char *type, const char *name, char *buf,
                              size_t size, arbor_error_t *err)
{
    const char *slash = name ? strchr (name, '/') : NULL;
    size_t tlen;

    if (!type || !*type || !name || !*name) {
        errno = EINVAL;
        return errprintf (err, "plugin: empty type or name");
    }
    if (slash) {
        tlen = (size_t)(slash - name);
        if (tlen != strlen (type) || strncmp (name, type, tlen) != 0) {
            errno = EINVAL;
            return errprintf (err, "plugin '%s' is not of type %s", name, type);
        }
        name = slash + 1;
    }
    if (!*name || strchr (name, '/') || strlen (name) >= size) {
        errno = EINVAL;
        return errprintf (err, "plugin: bad name '%s'", name);
    }
    strcpy (buf, name);
    return 0;
}

/* The descriptor checks shared by dlopened and static plugins. 'what'
 * names the plugin in error text. */
static int plugin_check_desc (const struct arbor_plugin *d, const char *what,
                              const char *type, const char *name,
                              uint32_t ops_version, size_t ops_size,
                              plugin_check_f check, arbor_error_t *err)
{
    errno = EPROTO;
    if (d->abi != ARBOR_PLUGIN_ABI)
        return errprintf (err,
                          "%s: plugin abi %u, expected %u (rebuild the "
                          "plugin)",
                          what, (unsigned)d->abi, (unsigned)ARBOR_PLUGIN_ABI);
    if (!d->type || strcmp (d->type, type) != 0)
        return errprintf (err, "%s: plugin type '%s', expected '%s'", what,
                          d->type ? d->type : "(null)", type);
    if (!d->name || (name && strcmp (d->name, name) != 0))
        return errprintf (err, "%s: plugin name '%s', expected '%s'", what,
                          d->name ? d->name : "(null)", name ? name : "?");
    if (d->ops_version != ops_version)
        return errprintf (err, "%s: %s ops version %u, expected %u", what, type,
                          (unsigned)d->ops_version, (unsigned)ops_version);
    if (d->ops_size != ops_size)
        return errprintf (err,
                          "%s: ops_size %zu, expected %zu (rebuild the "
                          "plugin)",
                          what, d->ops_size, ops_size);
    if (!d->ops)
        return errprintf (err, "%s: plugin has no ops table", what);
    if (check) {
        arbor_error_t cerr = { "" };
        if (check (d->ops, &cerr) < 0) {
            errno = EINVAL;
            return errprintf (err, "%s: %s", what, cerr.text);
        }
    }
    return 0;
}

static const char *plugin_base (const char *path)
{
    const char *s = strrchr (path, '/');
    return s ? s + 1 : path;
}

/* dlopen 'path' and find its descriptor. */
static void *plugin_dlopen (const char *path, const struct arbor_plugin **desc,
                            arbor_error_t *err)
{
    void *dso;
    const char *e;

    if (access (path, F_OK) < 0) {
        int saved = errno;
        errprintf (err, "%s: %s", path, strerror (saved));
        errno = saved;
        return NULL;
    }
    if (!(dso = dlopen (path, RTLD_NOW | RTLD_LOCAL))) {
        e = dlerror ();
        errprintf (err, "%s", e ? e : path);
        errno = ENOEXEC;
        return NULL;
    }
    dlerror ();
    *desc = dlsym (dso, ARBOR_PLUGIN_SYMBOL);
    if (!*desc) {
        errprintf (err, "%s: no '%s' symbol (not an arbor plugin)",
                   plugin_base (path), ARBOR_PLUGIN_SYMBOL);
        dlclose (dso);
        errno = ENOEXEC;
        return NULL;
    }
    return dso;
}

int plugin_load (const char *dir, const char *type, const char *name,
                 uint32_t ops_version, size_t ops_size, plugin_check_f check,
                 struct plugin **pp, arbor_error_t *err)
{
    char bare[64], dbuf[PATH_MAX];
    const struct arbor_plugin *desc = NULL;
    struct plugin *p;
    int n;

    if (plugin_split_name (type, name, bare, sizeof (bare), err) < 0)
        return -1;
    if (!pp) {
        errno = EINVAL;
        return errprintf (err, "plugin_load: no handle");
    }
    if (!dir)
        dir = plugin_default_dir (dbuf, sizeof (dbuf));
    if (!(p = calloc (1, sizeof (*p))))
        return errprintf (err, "plugin: out of memory");
    n = snprintf (p->path, sizeof (p->path), "%s/%s_%s.so", dir, type, bare);
    if (n < 0 || (size_t)n >= sizeof (p->path)) {
        free (p);
        errno = ENAMETOOLONG;
        return errprintf (err, "plugin dir '%s' too long", dir);
    }
    if (!(p->dso = plugin_dlopen (p->path, &desc, err)))
        goto fail;
    if (plugin_check_desc (desc, plugin_base (p->path), type, bare, ops_version,
                           ops_size, check, err)
        < 0)
        goto fail;
    p->desc = desc;
    *pp = p;
    return 0;
fail:
    plugin_unload (p);
    return -1;
}

int plugin_open_static (const struct arbor_plugin *desc, const char *type,
                        uint32_t ops_version, size_t ops_size,
                        plugin_check_f check, struct plugin **pp,
                        arbor_error_t *err)
{
    struct plugin *p;

    if (!desc || !type || !pp) {
        errno = EINVAL;
        return errprintf (err, "plugin_open_static: bad argument");
    }
    if (plugin_check_desc (desc, desc->name ? desc->name : "static plugin",
                           type, NULL, ops_version, ops_size, check, err)
        < 0)
        return -1;
    if (!(p = calloc (1, sizeof (*p))))
        return errprintf (err, "plugin: out of memory");
    p->desc = desc;
    snprintf (p->path, sizeof (p->path), "(static)");
    *pp = p;
    return 0;
}

void plugin_unload (struct plugin *p)
{
    int saved = errno;

    if (!p)
        return;
    if (p->dso)
        dlclose (p->dso);
    free (p);
    errno = saved;
}

void plugin_release (struct plugin *p)
{
    free (p);
}

const void *plugin_ops (const struct plugin *p)
{
    return p->desc->ops;
}

const char *plugin_type (const struct plugin *p)
{
    return p->desc->type;
}

const char *plugin_name (const struct plugin *p)
{
    return p->desc->name;
}

const char *plugin_path (const struct plugin *p)
{
    return p->path;
}

/* buf = "EXEDIR/../REL" when that is a directory. */
static bool plugin_dir_beside (const char *exedir, const char *rel, char *buf,
                               size_t size)
{
    struct stat sb;
    int n;

    if (!*rel)
        return false;
    n = snprintf (buf, size, "%s/../%s", exedir, rel);
    return n > 0 && (size_t)n < size && stat (buf, &sb) == 0
           && S_ISDIR (sb.st_mode);
}

const char *plugin_default_dir (char *buf, size_t size)
{
    const char *env = getenv ("ARBOR_PLUGIN_DIR");
    char exe[PATH_MAX], *slash;
    ssize_t n;

    if (env && *env)
        return env;
    n = readlink ("/proc/self/exe", exe, sizeof (exe) - 1);
    if (n > 0 && buf && size > 0) {
        exe[n] = '\0';
        if ((slash = strrchr (exe, '/')))
            *slash = '\0';
        /* The installation this program belongs to (PREFIX/sbin/../lib/
         * arbor; a build tree has none), then the build tree
         * (build/bin/../lib/plugins). */
        if (plugin_dir_beside (exe, ARBOR_PLUGINDIR_REL, buf, size)
            || plugin_dir_beside (exe, "lib/plugins", buf, size))
            return buf;
    }
    return ARBOR_PLUGINDIR;
}

const char *plugin_conf_dir (const struct conf *conf, char *buf, size_t size)
{
    const char *dir = conf && conf->plugin_dir ? conf->plugin_dir : NULL;

    if (!dir)
        dir = plugin_default_dir (buf, size);
    if (dir != buf)
        snprintf (buf, size, "%s", dir);
    return buf;
}

static void plugin_daemon_log (void *arg, int level, const char *msg)
{
    log_msg (level, "%s", msg);
}

static const char *plugin_daemon_conf (void *arg, const char *key)
{
    return conf_get (arg, key);
}

void plugin_env_daemon (struct plugin_env *env, const struct conf *conf,
                        const char *node, const char *spool, char *dir,
                        size_t size)
{
    *env = (struct plugin_env){
        .arg = (void *)conf,
        .log = plugin_daemon_log,
        .conf_get = plugin_daemon_conf,
        .node_name = node,
        .spool_dir = spool,
        .plugin_dir = plugin_conf_dir (conf, dir, size),
    };
}
