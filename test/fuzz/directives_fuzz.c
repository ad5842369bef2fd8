/* directives_fuzz.c - libFuzzer target: a batch script's directive lines
 * (cli/directives.c, over common/util/words.c).
 *
 * directives_parse must never crash or read past the script; it fails
 * with EINVAL (a bad quote, a NUL byte) or succeeds with argc words,
 * each on a line within the script, argv NULL-terminated.
 *
 *     build-fuzz/test-bin/directives_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "directives.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const char *const prefixes[] = { "#SBATCH", "#ARBOR", NULL };
    struct directives d;
    arbor_error_t err;
    size_t lines = 1;
    char *copy = malloc (size ? size : 1); /* exact size: ASan sees overreads */

    memcpy (copy, data, size);
    for (size_t i = 0; i < size; i++)
        lines += copy[i] == '\n';
    errno = 0;
    if (directives_parse (copy, size, prefixes, "sbatch", &d, &err) < 0) {
        if (errno != EINVAL && errno != ENOMEM)
            abort ();
        free (copy);
        return 0;
    }
    if (d.argc < 1 || d.argv[d.argc] || strcmp (d.argv[0], "sbatch"))
        abort ();
    for (int i = 1; i < d.argc; i++)
        if (d.lines[i] < 1 || d.lines[i] > lines || !d.argv[i])
            abort ();
    directives_clear (&d);
    free (copy);
    return 0;
}
