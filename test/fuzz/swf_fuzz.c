/* swf_fuzz.c - libFuzzer target: workload traces (sim/swf.c).
 *
 * arbor-sim reads traces from anywhere; swf_read must never crash or
 * read past its input, and every job it accepts must have processors, a
 * run time and a requested time at least that long.
 *
 *     build-fuzz/test-bin/swf_fuzz -max_total_time=60
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "swf.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    FILE *f = fmemopen ((void *)data, size, "r");
    struct swf_trace t;
    arbor_error_t err;

    if (!f)
        return 0;
    if (swf_read (f, "fuzz", &t, &err) == 0) {
        for (size_t i = 0; i < t.njobs; i++)
            if (!t.jobs[i].procs || t.jobs[i].run < 0
                || t.jobs[i].req_time < t.jobs[i].run)
                abort ();
        swf_free (&t);
    }
    fclose (f);
    return 0;
}
