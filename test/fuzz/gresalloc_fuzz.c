/* gresalloc_fuzz.c - libFuzzer target: what a job or step holds on a node
 * (common/spec/gresalloc.c), as credentials carry it. Parsing must never
 * crash, leak or read out of bounds; what parses writes back a text that
 * parses to the same text.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/gresalloc_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gresalloc.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static char t1[GRESALLOC_TEXT_MAX], t2[GRESALLOC_TEXT_MAX];
    char *s = malloc (size + 1);
    struct gresalloc a, b;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    if (gresalloc_parse (s, &a, NULL) == 0) {
        gresalloc_text (&a, t1, sizeof (t1));
        if (strlen (t1) + 1 < sizeof (t1)
            && (gresalloc_parse (t1, &b, NULL) < 0
                || strcmp (gresalloc_text (&b, t2, sizeof (t2)), t1) != 0))
            abort ();
    }
    free (s);
    return 0;
}
