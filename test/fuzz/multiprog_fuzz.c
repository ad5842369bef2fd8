/* multiprog_fuzz.c - libFuzzer target: srun --multi-prog configuration
 * files (common/spec/multiprog.c, over common/util/words.c).
 *
 * The first byte picks the step's task count (1..64), the rest is the
 * file. multiprog_parse must never crash; what it accepts gives every
 * task a non-empty argv.
 *
 *     build-fuzz/test-bin/multiprog_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "multiprog.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct multiprog *mp;
    arbor_error_t err;
    uint32_t ntasks;
    char *text;

    if (size < 1)
        return 0;
    ntasks = data[0] % 64 + 1;
    text = malloc (size - 1 ? size - 1 : 1);
    memcpy (text, data + 1, size - 1);
    errno = 0;
    if (!(mp = multiprog_parse (text, size - 1, ntasks, &err))) {
        if (errno != EINVAL && errno != ENOMEM)
            abort ();
        free (text);
        return 0;
    }
    for (uint32_t r = 0; r < ntasks; r++) {
        char **argv = multiprog_argv (mp, r);
        if (!argv || !argv[0])
            abort ();
        multiprog_argv_free (argv);
    }
    multiprog_destroy (mp);
    free (text);
    return 0;
}
