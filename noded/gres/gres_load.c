/* gres_load.c - the generic resources this node has; see gres_load.h.
 *
 * A chain of stages: read gres.conf (Slurm keeps it beside slurm.conf,
 * and so does Arbor beside arbor.conf), parse it, detect GPUs when it
 * says AutoDetect=nvml for this node, merge (gresnode_build). Detection
 * is best effort: a node whose library is missing or broken still
 * registers what its configuration says, and the log says why.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "gres_load.h"
#include "gresconf.h"
#include "gresnode.h"
#include "log.h"
#include "nvml.h"

char *noded_gres_conf_path (const char *conf_path)
{
    const char *slash = conf_path ? strrchr (conf_path, '/') : NULL;
    char *path = NULL;
    int dirlen = slash ? (int)(slash - conf_path) : 0;

    if (!slash)
        return strdup (GRES_CONF_NAME);
    if (asprintf (&path, "%.*s/%s", dirlen, conf_path, GRES_CONF_NAME) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    return path;
}

/* The whole of 'path' in *text, or *text NULL when there is no such
 * file. 0, or -1 with errno and err. */
static int read_text (const char *path, char **text, arbor_error_t *err)
{
    FILE *f = fopen (path, "re");
    char *buf = NULL;
    size_t len = 0;
    int e = 0;

    *text = NULL;
    if (!f)
        return errno == ENOENT
                   ? 0
                   : errprintf (err, "%s: %s", path, strerror (errno));
    if (!(buf = malloc (GRES_CONF_MAX + 1)))
        e = ENOMEM;
    else if ((len = fread (buf, 1, GRES_CONF_MAX + 1, f)) > GRES_CONF_MAX)
        e = EFBIG;
    else if (ferror (f))
        e = EIO;
    else if (memchr (buf, '\0', len))
        e = EINVAL;
    fclose (f);
    if (e) {
        free (buf);
        errno = e;
        return errprintf (err, "%s: %s", path,
                          e == EINVAL ? "binary file" : strerror (e));
    }
    buf[len] = '\0';
    *text = buf;
    return 0;
}

/* gres.conf parsed into *gc; *have false when there is none. */
static int load_gresconf (const struct conf *c, struct gresconf *gc, bool *have,
                          arbor_error_t *err)
{
    char *path = noded_gres_conf_path (c->path), *text = NULL;
    int rc;

    *have = false;
    if (!path)
        return errprintf (err, "out of memory");
    if ((rc = read_text (path, &text, err)) == 0 && text) {
        rc = gresconf_parse (text, gc, err);
        *have = rc == 0;
    }
    int e = errno;
    free (text);
    free (path);
    errno = e;
    return rc;
}

/* Run the node's AutoDetect= mechanism into *detected. 0 with *ran true
 * when it ran; 0 with *ran false (logged) when it could not. */
static int detect (const struct gresconf *gc, const char *node,
                   struct gresnode *detected, bool *ran, arbor_error_t *err)
{
    arbor_error_t e = { "" };
    const char *mech, *lib = getenv (GRES_NVML_ENV);
    char *text;

    *ran = false;
    if (gresnode_autodetect (gc, node, &mech, err) < 0)
        return -1;
    if (!mech)
        return 0;
    if (strcasecmp (mech, "nvml") != 0) {
        log_warn ("AutoDetect=%s is not supported; using the configuration",
                  mech);
        return 0;
    }
    if (nvml_detect (lib && *lib ? lib : NULL, detected, &e) < 0) {
        if (errno == ENOENT) {
            log_warn ("AutoDetect=nvml: NVML library not found; using the "
                      "configuration");
            log_debug ("AutoDetect=nvml: %s", e.text);
        } else
            log_err ("AutoDetect=nvml: %s; using the configuration", e.text);
        return 0;
    }
    *ran = true;
    if ((text = gresnode_text (detected))) {
        log_info ("AutoDetect=nvml: %zu GPUs%s%s", detected->n,
                  detected->n ? ": " : "", text);
        free (text);
    }
    return 0;
}

int noded_gres_load (const struct conf *c, const char *node,
                     struct gresnode *out, arbor_error_t *err)
{
    struct gresconf gc = { NULL, 0 };
    struct gresnode detected = { NULL, 0 };
    bool have = false, ran = false;
    int rc;

    memset (out, 0, sizeof (*out));
    rc = load_gresconf (c, &gc, &have, err);
    if (rc == 0 && have)
        rc = detect (&gc, node, &detected, &ran, err);
    if (rc == 0)
        rc = gresnode_build (c, node, have ? &gc : NULL, ran ? &detected : NULL,
                             out, err);
    int e = errno;
    gresnode_clear (&detected);
    gresconf_clear (&gc);
    errno = e;
    return rc;
}
