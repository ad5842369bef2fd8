/* adopt_opts_fuzz.c - libFuzzer target: pam_arbor_adopt's module
 * arguments (pam/adopt_opts.c), and its choice of a job.
 *
 * The input is split at NUL and newline bytes into the argv PAM would
 * pass. adopt_opts_parse must never crash and, when it accepts, leave
 * only valid actions; adopt_pick over a few jobs must pick one of them.
 *
 *     build-fuzz/test-bin/adopt_opts_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adopt.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const uint32_t jobs[] = { 9, 5, 7 };
    const char *argv[64];
    struct adopt_opts o;
    struct adopt_choice c;
    arbor_error_t err;
    char *text = malloc (size + 1);
    int argc = 0;

    memcpy (text, data, size);
    text[size] = '\0';
    for (char *p = text; argc < 64;) {
        argv[argc++] = p;
        size_t n = strcspn (p, "\n");
        if (p + n >= text + size || !p[n])
            break;
        p[n] = '\0';
        p += n + 1;
    }
    if (adopt_opts_parse (&o, argc, argv, &err) == 0) {
        if (o.no_jobs != ACT_DENY && o.no_jobs != ACT_IGNORE)
            abort ();
        if (o.adopt_failure != ACT_ALLOW && o.adopt_failure != ACT_DENY)
            abort ();
        adopt_pick (&o, jobs, data[0] % 4, size > 1 ? data[1] % 10 : 0, &c);
        if (c.verdict == VERDICT_ADOPT && c.job != 9 && c.job != 5
            && c.job != 7)
            abort ();
    }
    adopt_opts_free (&o);
    free (text);
    return 0;
}
