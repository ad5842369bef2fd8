/* nvml_fake.c - a stand-in for libnvidia-ml.so.1, for the unit tests of
 * noded/gres/nvml.c and gres_load.c (built as a MODULE and dlopened by
 * its path).
 *
 * It answers the calls nvml.c makes with a fixed machine: two GPUs named
 * "NVIDIA A100-SXM4-40GB", minors 0 and 1, local to CPUs 0-3 and 4-7.
 * The environment changes it, read at each call:
 *   NVML_FAKE_COUNT=N        N GPUs instead (minors 0..N-1, GPU i local to
 *                            CPUs 4i..4i+3)
 *   NVML_FAKE_FAIL=CALL[:RC] CALL (e.g. nvmlDeviceGetName) returns RC,
 *                            999 (NVML_ERROR_UNKNOWN) when not given
 *   NVML_FAKE_TRACE=PATH     "init" and "shutdown" are appended to PATH
 *                            as they are called
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_SUCCESS 0
#define FAKE_ERROR_UNKNOWN 999
#define FAKE_GPUS_MAX 64

struct nvml_dev;

/* The calls, as NVML declares them (nvml.c's struct nvml_api). */
int nvmlInit_v2 (void);
int nvmlShutdown (void);
int nvmlDeviceGetCount_v2 (unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2 (unsigned int index, struct nvml_dev **dev);
int nvmlDeviceGetName (struct nvml_dev *dev, char *name, unsigned int len);
int nvmlDeviceGetMinorNumber (struct nvml_dev *dev, unsigned int *minor);
int nvmlDeviceGetCpuAffinity (struct nvml_dev *dev, unsigned int nwords,
                              unsigned long *mask);
const char *nvmlErrorString (int rc);

/* RC when NVML_FAKE_FAIL names 'call', else success. */
static int fake_rc (const char *call)
{
    const char *f = getenv ("NVML_FAKE_FAIL");
    size_t len = strlen (call);

    if (!f || strncmp (f, call, len) || (f[len] && f[len] != ':'))
        return FAKE_SUCCESS;
    return f[len] == ':' ? atoi (f + len + 1) : FAKE_ERROR_UNKNOWN;
}

static void fake_trace (const char *what)
{
    const char *path = getenv ("NVML_FAKE_TRACE");
    FILE *f = path ? fopen (path, "a") : NULL;

    if (f) {
        fprintf (f, "%s\n", what);
        fclose (f);
    }
}

static unsigned fake_count (void)
{
    const char *s = getenv ("NVML_FAKE_COUNT");
    int n = s ? atoi (s) : 2;

    return n < 0 ? 0 : n > FAKE_GPUS_MAX ? FAKE_GPUS_MAX : (unsigned)n;
}

/* A device handle is its index + 1, never dereferenced. */
static unsigned fake_index (struct nvml_dev *dev)
{
    return (unsigned)((unsigned long)dev - 1);
}

int nvmlInit_v2 (void)
{
    fake_trace ("init");
    return fake_rc ("nvmlInit_v2");
}

int nvmlShutdown (void)
{
    fake_trace ("shutdown");
    return fake_rc ("nvmlShutdown");
}

int nvmlDeviceGetCount_v2 (unsigned int *n)
{
    *n = fake_count ();
    return fake_rc ("nvmlDeviceGetCount_v2");
}

int nvmlDeviceGetHandleByIndex_v2 (unsigned int index, struct nvml_dev **dev)
{
    if (index >= fake_count ())
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *dev = (struct nvml_dev *)(unsigned long)(index + 1);
    return fake_rc ("nvmlDeviceGetHandleByIndex_v2");
}

int nvmlDeviceGetName (struct nvml_dev *dev, char *name, unsigned int len)
{
    snprintf (name, len, "NVIDIA A100-SXM4-40GB");
    return fake_rc ("nvmlDeviceGetName");
}

int nvmlDeviceGetMinorNumber (struct nvml_dev *dev, unsigned int *minor)
{
    *minor = fake_index (dev);
    return fake_rc ("nvmlDeviceGetMinorNumber");
}

int nvmlDeviceGetCpuAffinity (struct nvml_dev *dev, unsigned int nwords,
                              unsigned long *mask)
{
    unsigned first = 4 * fake_index (dev);
    const unsigned bits = 8 * sizeof (unsigned long);

    memset (mask, 0, nwords * sizeof (*mask));
    for (unsigned cpu = first; cpu < first + 4 && cpu / bits < nwords; cpu++)
        mask[cpu / bits] |= 1ul << (cpu % bits);
    return fake_rc ("nvmlDeviceGetCpuAffinity");
}

const char *nvmlErrorString (int rc)
{
    switch (rc) {
    case 0: return "Success";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    default: return "Unknown Error";
    }
}
