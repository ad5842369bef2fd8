/* jobspec_fuzz.c - libFuzzer target: what users type for sbatch and srun
 * options that the commands and the controller parse: --array
 * (arrayspec.c), --dependency (depspec.c), --begin (begintime.c) and
 * --cpu-bind (cpubind.c). The first byte picks the parser.
 *
 * Each must never crash or read past its string, fail with EINVAL (or
 * ENOMEM) or succeed with a sane result: ascending distinct array
 * indexes within the bound, dependency terms with job ids, a begin time,
 * a cpu-bind whose text form parses back to the same thing.
 *
 *     build-fuzz/test-bin/jobspec_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrayspec.h"
#include "begintime.h"
#include "cpubind.h"
#include "depspec.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void fuzz_array (const char *s)
{
    struct arrayspec a;
    arbor_error_t err;

    if (arrayspec_parse (s, 100000, &a, &err) < 0) {
        if (errno != EINVAL && errno != ENOMEM)
            abort ();
        return;
    }
    for (size_t i = 0; i < a.n; i++)
        if (a.ids[i] > 100000 || (i && a.ids[i] <= a.ids[i - 1]))
            abort ();
    arrayspec_clear (&a);
}

static void fuzz_dep (const char *s)
{
    struct depspec d;
    arbor_error_t err;

    if (depspec_parse (s, &d, &err) < 0) {
        if (errno != EINVAL && errno != ENOMEM)
            abort ();
        return;
    }
    for (size_t i = 0; i < d.n; i++)
        if (d.deps[i].type != DEP_SINGLETON && d.deps[i].job_id == 0)
            abort ();
    depspec_clear (&d);
}

static void fuzz_cpubind (const char *s)
{
    struct cpubind b, b2;
    arbor_error_t err;
    char *text;

    if (cpubind_parse (s, &b, &err) < 0) {
        if (errno != EINVAL && errno != ENOMEM)
            abort ();
        return;
    }
    if (!(text = cpubind_text (&b)))
        abort ();
    if (cpubind_parse (text, &b2, &err) < 0)
        abort ();
    free (text);
    cpubind_clear (&b);
    cpubind_clear (&b2);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s;
    time_t t;
    arbor_error_t err;

    if (size < 1)
        return 0;
    s = malloc (size);
    memcpy (s, data + 1, size - 1);
    s[size - 1] = '\0'; /* a C string, as the options are */
    switch (data[0] % 4) {
    case 0: fuzz_array (s); break;
    case 1: fuzz_dep (s); break;
    case 2:
        if (begin_parse (s, 1700000000, &t, &err) < 0 && errno != EINVAL)
            abort ();
        break;
    default: fuzz_cpubind (s); break;
    }
    free (s);
    return 0;
}
