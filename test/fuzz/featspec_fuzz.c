/* featspec_fuzz.c - libFuzzer target: -C/--constraint expressions
 * (common/spec/featspec.c). Parsing must never crash, leak or read out of
 * bounds; what parses gives text that parses again to the same text, and
 * can be checked against a node.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/featspec_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "featspec.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static const char *const feats[] = { "a", "b", "rack1", "x" };
    char *s = malloc (size + 1);
    struct featspec f, g;
    char *t1, *t2;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    if (featspec_parse (s, &f, NULL) == 0) {
        (void)featspec_node_ok (&f, feats, 4);
        if (!(t1 = featspec_text (&f)) || featspec_parse (t1, &g, NULL) < 0
            || !(t2 = featspec_text (&g)) || strcmp (t1, t2) != 0)
            abort ();
        free (t1);
        free (t2);
        featspec_clear (&g);
        featspec_clear (&f);
    }
    free (s);
    return 0;
}
