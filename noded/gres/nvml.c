/* nvml.c - this node's NVIDIA GPUs through NVML, opened at run time; see
 * nvml.h.
 *
 * Only the few calls below are used, declared here from NVML's documented
 * API (nvml.h of the CUDA toolkit) so that building needs no NVIDIA
 * headers: every call returns nvmlReturn_t, an enum where 0 is success;
 * nvmlDevice_t is a pointer to an opaque struct. One detection is a flat
 * chain: open the library, find the calls, nvmlInit_v2, one item per
 * device, nvmlShutdown, dlclose.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gresnode.h"
#include "gresspec.h"
#include "nvml.h"

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_NAME_SIZE 96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVML_CPU_WORDS 64 /* affinity of up to 4096 CPUs on 64-bit */

struct nvml_dev; /* NVML's nvmlDevice_t points to one */

struct nvml_api {
    void *dso;
    int (*init) (void);
    int (*shutdown) (void);
    int (*count) (unsigned int *n);
    int (*handle) (unsigned int index, struct nvml_dev **dev);
    int (*name) (struct nvml_dev *dev, char *name, unsigned int len);
    int (*minor) (struct nvml_dev *dev, unsigned int *minor);
    int (*affinity) (struct nvml_dev *dev, unsigned int nwords,
                     unsigned long *mask);
    const char *(*error_string) (int rc);
};

static const struct nvml_sym {
    const char *name;
    size_t offset;
} nvml_syms[] = {
    { "nvmlInit_v2", offsetof (struct nvml_api, init) },
    { "nvmlShutdown", offsetof (struct nvml_api, shutdown) },
    { "nvmlDeviceGetCount_v2", offsetof (struct nvml_api, count) },
    { "nvmlDeviceGetHandleByIndex_v2", offsetof (struct nvml_api, handle) },
    { "nvmlDeviceGetName", offsetof (struct nvml_api, name) },
    { "nvmlDeviceGetMinorNumber", offsetof (struct nvml_api, minor) },
    { "nvmlDeviceGetCpuAffinity", offsetof (struct nvml_api, affinity) },
    { "nvmlErrorString", offsetof (struct nvml_api, error_string) },
};

char *nvml_type_name (const char *name, char *buf, size_t len)
{
    size_t n = 0;

    for (; len && name && name[n] && n < len - 1; n++) {
        unsigned char ch = (unsigned char)tolower ((unsigned char)name[n]);
        buf[n] = isalnum (ch) || ch == '-' || ch == '.' ? (char)ch : '_';
    }
    if (len)
        buf[n] = '\0';
    return buf;
}

static bool cpu_set (const unsigned long *mask, size_t nwords, size_t cpu)
{
    const size_t bits = 8 * sizeof (unsigned long);

    return cpu / bits < nwords && (mask[cpu / bits] >> (cpu % bits)) & 1ul;
}

char *nvml_cpu_list (const unsigned long *mask, size_t nwords)
{
    const size_t ncpus = nwords * 8 * sizeof (unsigned long);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&buf, &size);
    const char *sep = "";

    if (!f)
        return NULL;
    for (size_t cpu = 0; cpu < ncpus; cpu++) {
        size_t last = cpu;
        if (!cpu_set (mask, nwords, cpu))
            continue;
        while (last + 1 < ncpus && cpu_set (mask, nwords, last + 1))
            last++;
        if (last == cpu)
            fprintf (f, "%s%zu", sep, cpu);
        else
            fprintf (f, "%s%zu-%zu", sep, cpu, last);
        sep = ",";
        cpu = last;
    }
    if (fclose (f) != 0 || !buf) {
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}

/* Name the failed call, with NVML's own words for rc; errno EIO. */
static int nvml_fail (const struct nvml_api *api, const char *call, int gpu,
                      int rc, arbor_error_t *err)
{
    const char *why = api->error_string ? api->error_string (rc) : NULL;

    errno = EIO;
    if (gpu < 0)
        return errprintf (err, "NVML: %s: %s", call, why ? why : "error");
    return errprintf (err, "NVML: %s (GPU %d): %s", call, gpu,
                      why ? why : "error");
}

/* dlopen the library and find every call. */
static int api_open (const char *lib, struct nvml_api *api, arbor_error_t *err)
{
    memset (api, 0, sizeof (*api));
    if (!(api->dso = dlopen (lib, RTLD_NOW | RTLD_LOCAL))) {
        const char *why = dlerror ();
        errno = ENOENT;
        return errprintf (err, "NVML: %s not found: %s", lib,
                          why ? why : "dlopen failed");
    }
    for (size_t i = 0; i < sizeof (nvml_syms) / sizeof (*nvml_syms); i++) {
        void *fn = dlsym (api->dso, nvml_syms[i].name);
        if (!fn) {
            dlclose (api->dso);
            api->dso = NULL;
            errno = ENOSYS;
            return errprintf (err, "NVML: %s lacks %s", lib, nvml_syms[i].name);
        }
        /* POSIX lets a dlsym result be used as a function pointer */
        memcpy ((char *)api + nvml_syms[i].offset, &fn, sizeof (fn));
    }
    return 0;
}

/* The CPUs local to dev (NULL: none named, or NVML cannot tell). */
static int device_cores (const struct nvml_api *api, struct nvml_dev *dev,
                         unsigned idx, char **cores, arbor_error_t *err)
{
    unsigned long mask[NVML_CPU_WORDS] = { 0 };
    int rc = api->affinity (dev, NVML_CPU_WORDS, mask);

    *cores = NULL;
    if (rc == NVML_ERROR_NOT_SUPPORTED)
        return 0; /* some boards cannot say: any CPU, as with no Cores= */
    if (rc != NVML_SUCCESS)
        return nvml_fail (api, "nvmlDeviceGetCpuAffinity", (int)idx, rc, err);
    if (!(*cores = nvml_cpu_list (mask, NVML_CPU_WORDS)))
        return errprintf (err, "out of memory");
    if (!**cores) {
        free (*cores);
        *cores = NULL;
    }
    return 0;
}

/* Device idx as one item of g. */
static int device_item (const struct nvml_api *api, unsigned idx,
                        struct gresnode *g, arbor_error_t *err)
{
    struct nvml_dev *dev = NULL;
    char name[NVML_NAME_SIZE] = "", type[GRESSPEC_TYPE_MAX + 1];
    char file[32], *files[1] = { file }, *cores = NULL;
    unsigned minor;
    struct gres_item it = {
        .name = "gpu", .count = 1, .files = files, .nfiles = 1
    };
    int rc;

    if ((rc = api->handle (idx, &dev)) != NVML_SUCCESS)
        return nvml_fail (api, "nvmlDeviceGetHandleByIndex_v2", (int)idx, rc,
                          err);
    if ((rc = api->name (dev, name, sizeof (name))) != NVML_SUCCESS)
        return nvml_fail (api, "nvmlDeviceGetName", (int)idx, rc, err);
    if ((rc = api->minor (dev, &minor)) != NVML_SUCCESS)
        return nvml_fail (api, "nvmlDeviceGetMinorNumber", (int)idx, rc, err);
    if (device_cores (api, dev, idx, &cores, err) < 0)
        return -1;
    name[sizeof (name) - 1] = '\0';
    snprintf (file, sizeof (file), "/dev/nvidia%u", minor);
    it.type = *nvml_type_name (name, type, sizeof (type)) ? type : NULL;
    it.cores = cores;
    rc = gresnode_add (g, &it);
    free (cores);
    if (rc < 0)
        return errprintf (err, "NVML: GPU %u: %s", idx, strerror (errno));
    return 0;
}

/* Every device, between nvmlInit_v2 and nvmlShutdown. */
static int detect_all (const struct nvml_api *api, struct gresnode *g,
                       arbor_error_t *err)
{
    unsigned n = 0;
    int rc;

    if ((rc = api->init ()) != NVML_SUCCESS)
        return nvml_fail (api, "nvmlInit_v2", -1, rc, err);
    if ((rc = api->count (&n)) != NVML_SUCCESS)
        rc = nvml_fail (api, "nvmlDeviceGetCount_v2", -1, rc, err);
    else if (n > GRESNODE_ITEMS_MAX) {
        errno = E2BIG;
        rc = errprintf (err, "NVML: %u GPUs, more than %d", n,
                        GRESNODE_ITEMS_MAX);
    }
    for (unsigned i = 0; rc == 0 && i < n; i++)
        rc = device_item (api, i, g, err);
    int e = errno;
    api->shutdown (); /* its own failure changes nothing found */
    errno = e;
    return rc;
}

/* Move found's items to the end of out: all of them, or none. */
static int take_items (struct gresnode *out, struct gresnode *found,
                       arbor_error_t *err)
{
    struct gres_item *v;

    if (found->n == 0)
        return 0;
    if (out->n + found->n > GRESNODE_ITEMS_MAX) {
        errno = E2BIG;
        return errprintf (err, "NVML: too many resources");
    }
    if (!(v = realloc (out->v, (out->n + found->n) * sizeof (*v)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    memcpy (v + out->n, found->v, found->n * sizeof (*v));
    out->v = v;
    out->n += found->n;
    free (found->v);
    found->v = NULL;
    found->n = 0;
    return 0;
}

int nvml_detect (const char *lib, struct gresnode *out, arbor_error_t *err)
{
    struct nvml_api api;
    struct gresnode found = { NULL, 0 };
    int rc, e;

    if (api_open (lib ? lib : NVML_LIBRARY, &api, err) < 0)
        return -1;
    rc = detect_all (&api, &found, err);
    if (rc == 0)
        rc = take_items (out, &found, err);
    e = errno;
    gresnode_clear (&found);
    dlclose (api.dso);
    errno = e;
    return rc;
}
