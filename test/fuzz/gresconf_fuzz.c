/* gresconf_fuzz.c - libFuzzer target: gres.conf text
 * (common/conf/gresconf.c). Parsing must never crash, leak or read out
 * of bounds, and what it keeps must hold together.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/gresconf_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gresconf.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s;
    struct gresconf g;

    if (size > 65536 || !(s = malloc (size + 1)))
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    if (gresconf_parse (s, &g, NULL) == 0) {
        for (size_t i = 0; i < g.n; i++) {
            const struct gresconf_line *l = &g.v[i];
            if ((!l->name && !l->autodetect) || l->count == 0
                || (l->files && l->nfiles != l->count))
                abort ();
        }
        gresconf_clear (&g);
    }
    free (s);
    return 0;
}
