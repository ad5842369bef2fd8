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

/* DIR/dev/gpuK: a character device as root, else an empty file. */
static int make_standin (const char *path, unsigned k)
{
    (void)unlink (path);
    if (geteuid () == 0) {
        dev_t dev = makedev (standin[k].major, standin[k].minor);
        if (mknod (path, S_IFCHR | 0666, dev) < 0 || chmod (path, 0666) < 0) {
            local_say ("mknod %s: %s", path, strerror (errno));
            return -1;
        }
        return 0;
    }
    FILE *f = fopen (path, "w");
    if (!f || fclose (f) != 0) {
        local_say ("%s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}

/* --gres nvml: the host's GPUs, as NVML finds them. */
static int nvml_setup (struct local *l)
{
    char path[PATH_MAX + 32];
    FILE *f;

    snprintf (path, sizeof (path), "%s/gres.conf", l->dir);
    if (!(f = fopen (path, "w")) || fputs ("AutoDetect=nvml\n", f) < 0
        || fclose (f) != 0) {
        local_say ("%s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}

int local_gres_setup (struct local *l)
{
    char path[PATH_MAX + 32];
    FILE *f;

    if (l->opt.nvml)
        return nvml_setup (l);
    if (!l->opt.gpus)
        return 0;
    snprintf (path, sizeof (path), "%s/dev", l->dir);
    if (mkdir (path, 0755) < 0 && errno != EEXIST) {
        local_say ("mkdir %s: %s", path, strerror (errno));
        return -1;
    }
    for (unsigned k = 0; k < l->opt.gpus; k++) {
        snprintf (path, sizeof (path), "%s/dev/gpu%u", l->dir, k);
        if (make_standin (path, k) < 0)
            return -1;
    }
    snprintf (path, sizeof (path), "%s/gres.conf", l->dir);
    if (!(f = fopen (path, "w"))) {
        local_say ("%s: %s", path, strerror (errno));
        return -1;
    }
    fprintf (f, "# arbor local --gres gpu:%u: stand-in GPUs (local_gres.h)\n",
             l->opt.gpus);
    for (unsigned k = 0; k < l->opt.gpus; k++) {
        unsigned per = l->opt.cpus / l->opt.gpus; /* its share of the CPUs */
        fprintf (f, "Name=gpu File=%s/dev/gpu%u", l->dir, k);
        if (per)
            fprintf (f, " Cores=%u-%u", k * per, k * per + per - 1);
        fputc ('\n', f);
    }
    if (fclose (f) != 0) {
        local_say ("%s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}
