/* pmix_topo.c - the node's hardware topology, for the server and clients.
 *
 * Left to itself, PMIx_server_init discovers the topology with every
 * hwloc plugin Debian ships, I/O included (it probes X displays, OpenCL,
 * CUDA...): 13 to 100 ms on a small VM, every step. And each Open MPI
 * rank discovers it again unless the namespace hands it over. So the
 * plugin loads it here, without I/O devices (hwloc's default), from a
 * cache of the node's own, <spool>/hwloc.xml, when that was written since
 * the last boot (0.1 ms), else by discovery (about 4 ms), writing the
 * cache for the next step. The server gets the loaded topology
 * (PMIX_TOPOLOGY2) and the clients its XML (PMIX_HWLOC_XML_V2), which
 * Open MPI loads instead of discovering.
 *
 * hwloc also dlopens its plugins (PCI, GL, OpenCL, libxml) the first time
 * a process uses it, 2 to 10 ms that buy nothing here: I/O devices are not
 * in this topology and our XML is hwloc's own. So, unless the
 * administrator set it, the stepd (this process only; tasks get their own
 * environment) runs with HWLOC_PLUGINS_PATH pointing nowhere. It is set
 * before PMIx starts its thread, while the stepd has no other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmix_ctx.h"
#include "pmix_topo.h"

#define TOPO_CACHE "hwloc.xml"
#define TOPO_MAX (4u << 20) /* a cache file bigger than this is not ours */

/* Seconds since the epoch at boot, or 0 if unknown. */
static time_t topo_boot_time (void)
{
    FILE *f = fopen ("/proc/stat", "re");
    char line[256];
    long long bt = 0;

    while (f && fgets (line, sizeof (line), f))
        if (sscanf (line, "btime %lld", &bt) == 1)
            break;
    if (f)
        fclose (f);
    return (time_t)bt;
}

/* The cached XML, if written since the boot; malloc'd, or NULL. */
static char *topo_cache_read (const char *path)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    char *xml = NULL;
    time_t boot = topo_boot_time ();

    if (fd < 0)
        return NULL;
    if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
        && st.st_size > 0 && (size_t)st.st_size < TOPO_MAX && boot
        && st.st_mtime >= boot && (xml = malloc ((size_t)st.st_size + 1))) {
        if (read (fd, xml, (size_t)st.st_size) != st.st_size) {
            free (xml);
            xml = NULL;
        } else
            xml[st.st_size] = '\0';
    }
    close (fd);
    return xml;
}

/* Write the cache atomically; a failure only costs the next step a
 * discovery. */
static void topo_cache_write (const struct pmix_ctx *ctx, const char *path,
                              const char *xml, size_t len)
{
    char *tmp;
    int fd;

    if (asprintf (&tmp, "%s.%ld", path, (long)getpid ()) < 0)
        return;
    fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 && write (fd, xml, len) == (ssize_t)len && close (fd) == 0) {
        fd = -1;
        if (rename (tmp, path) == 0) {
            free (tmp);
            return;
        }
    }
    plugin_log (ctx->base.env, PLUGIN_LOG_VERBOSE, "topology cache %s: %s",
                path, strerror (errno));
    if (fd >= 0)
        close (fd);
    unlink (tmp);
    free (tmp);
}

static int topo_from_xml (struct pmix_ctx *ctx, char *xml)
{
    hwloc_topology_t t;

    if (hwloc_topology_init (&t) < 0)
        return -1;
    if (hwloc_topology_set_xmlbuffer (t, xml, (int)strlen (xml) + 1) < 0
        || hwloc_topology_set_flags (t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) < 0
        || hwloc_topology_load (t) < 0) {
        hwloc_topology_destroy (t);
        return -1;
    }
    ctx->topo = t;
    ctx->topo_xml = xml;
    return 0;
}

static int topo_discover (struct pmix_ctx *ctx, const char *path)
{
    hwloc_topology_t t;
    char *buf = NULL;
    int len = 0;

    if (hwloc_topology_init (&t) < 0)
        return -1;
    if (hwloc_topology_load (t) < 0
        || hwloc_topology_export_xmlbuffer (t, &buf, &len, 0) < 0 || len < 1
        || !(ctx->topo_xml = strndup (buf, (size_t)len))) {
        if (buf)
            hwloc_free_xmlbuffer (t, buf);
        hwloc_topology_destroy (t);
        return -1;
    }
    hwloc_free_xmlbuffer (t, buf);
    ctx->topo = t;
    if (path)
        topo_cache_write (ctx, path, ctx->topo_xml, strlen (ctx->topo_xml));
    return 0;
}

int pmix_topo_load (struct pmix_ctx *ctx, arbor_error_t *err)
{
    const char *spool = ctx->base.env ? ctx->base.env->spool_dir : NULL;
    char *path = NULL, *xml;

    setenv ("HWLOC_PLUGINS_PATH", "/nonexistent/arbor-no-hwloc-plugins", 0);
    if (spool && asprintf (&path, "%s/%s", spool, TOPO_CACHE) < 0)
        path = NULL;
    if (path && (xml = topo_cache_read (path))) {
        if (topo_from_xml (ctx, xml) == 0) {
            free (path);
            return 0;
        }
        free (xml); /* not a topology hwloc takes: discover anew */
    }
    if (topo_discover (ctx, path) < 0) {
        free (path);
        errno = EIO;
        return errprintf (err, "hwloc: cannot load this node's topology");
    }
    free (path);
    return 0;
}

void pmix_topo_free (struct pmix_ctx *ctx)
{
    if (ctx->topo)
        hwloc_topology_destroy (ctx->topo);
    ctx->topo = NULL;
    free (ctx->topo_xml);
    ctx->topo_xml = NULL;
}
