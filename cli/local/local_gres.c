/* local_gres.c - stand-in GPUs for arbor local; see local_gres.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "local_gres.h"

/* The numbers each stand-in borrows, by index. */
static const struct {
    unsigned major, minor;
} standin[LOCAL_GPUS_MAX] = { { 1, 7 }, { 1, 8 }, { 1, 9 }, { 1, 5 } };

int local_gres_parse (const char *s, unsigned *gpus, bool *nvml)
{
    char *end;
    unsigned long n;

    if (!strcmp (s, "nvml")) {
        *nvml = true;
        return 0;
    }
    if (strncmp (s, "gpu:", 4) != 0)
        goto bad;
    errno = 0;
    n = strtoul (s + 4, &end, 10);
    if (errno || *end || end == s + 4 || n < 1 || n > LOCAL_GPUS_MAX)
        goto bad;
    *gpus = (unsigned)n;
    return 0;
bad:
    local_say ("--gres: '%s': gpu:N expected, N from 1 to %d (stand-in "
               "devices), or nvml (see arbor-local(1))",
               s, LOCAL_GPUS_MAX);
    return -1;
}

/* DIR/dev/gpuK: a character device as root, else an empty file. The
 * mode comes with the node (umask 0): nothing follows the path after it
 * is made. */
static int make_standin (const char *path, unsigned k)
{
    (void)unlink (path);
    if (geteuid () == 0) {
        dev_t dev = makedev (standin[k].major, standin[k].minor);
        mode_t old = umask (0);
        int rc = mknod (path, S_IFCHR | 0666, dev);
        umask (old);
        if (rc < 0) {
            local_say ("mknod %s: %s", path, strerror (errno));
            return -1;
        }
        return 0;
    }
    return local_write_file (path, "", 0644);
}

/* DIR/dev: made here, or one of ours already (a directory, no link, of
 * our uid), since root makes device nodes in it. */
static int dev_dir (const char *path)
{
    struct stat st;

    if (mkdir (path, 0755) == 0)
        return 0;
    if (errno != EEXIST || lstat (path, &st) < 0) {
        local_say ("mkdir %s: %s", path, strerror (errno));
        return -1;
    }
    if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid ()) {
        local_say ("%s: not a directory of ours", path);
        return -1;
    }
    return 0;
}

/* DIR/gres.conf: one line per stand-in, with its share of the CPUs. */
static int standin_conf (const struct local *l)
{
    char path[PATH_MAX + 32], text[LOCAL_GPUS_MAX * (PATH_MAX + 64) + 128];
    unsigned per = l->opt.cpus / l->opt.gpus; /* each one's CPUs */
    size_t at = 0;

    at += (size_t)snprintf (text, sizeof (text),
                            "# arbor local --gres gpu:%u: stand-in GPUs "
                            "(local_gres.h)\n",
                            l->opt.gpus);
    for (unsigned k = 0; k < l->opt.gpus && at < sizeof (text); k++) {
        at += (size_t)snprintf (text + at, sizeof (text) - at,
                                "Name=gpu File=%s/dev/gpu%u", l->dir, k);
        if (per && at < sizeof (text))
            at += (size_t)snprintf (text + at, sizeof (text) - at,
                                    " Cores=%u-%u", k * per, k * per + per - 1);
        if (at < sizeof (text))
            text[at++] = '\n', text[at] = '\0';
    }
    snprintf (path, sizeof (path), "%s/gres.conf", l->dir);
    return local_write_file (path, text, 0644);
}

int local_gres_setup (struct local *l)
{
    char path[PATH_MAX + 32];

    if (l->opt.nvml) { /* the host's GPUs, as NVML finds them */
        snprintf (path, sizeof (path), "%s/gres.conf", l->dir);
        return local_write_file (path, "AutoDetect=nvml\n", 0644);
    }
    if (!l->opt.gpus)
        return 0;
    snprintf (path, sizeof (path), "%s/dev", l->dir);
    if (dev_dir (path) < 0)
        return -1;
    for (unsigned k = 0; k < l->opt.gpus; k++) {
        snprintf (path, sizeof (path), "%s/dev/gpu%u", l->dir, k);
        if (make_standin (path, k) < 0)
            return -1;
    }
    return standin_conf (l);
}
