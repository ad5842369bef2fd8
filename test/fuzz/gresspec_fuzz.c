/* gresspec_fuzz.c - libFuzzer target: --gres and --gpus* requests
 * (common/spec/gresspec.c). Parsing must never crash or read out of
 * bounds; what parses gives text that parses as --gres to the same text.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/gresspec_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gresspec.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void again (const struct gresspec *g)
{
    char t1[4096], t2[4096];
    struct gresspec h;

    gresspec_text (g, t1, sizeof (t1));
    if (g->n == 0)
        return;
    if (gresspec_parse (t1, &h, NULL) < 0)
        abort ();
    gresspec_text (&h, t2, sizeof (t2));
    if (strcmp (t1, t2) != 0)
        abort ();
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    struct gresspec g;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    if (gresspec_parse (s, &g, NULL) == 0)
        again (&g);
    if (gresspec_parse_gpus ("--gpus", s, &g, NULL) == 0)
        again (&g);
    free (s);
    return 0;
}
