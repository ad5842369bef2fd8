/* gpubind_fuzz.c - libFuzzer target: --gpu-bind values
 * (common/spec/gpubind.c). Parsing must never crash, leak or read out of
 * bounds; what parses gives text that parses again to the same binding
 * and the same text.
 *
 *     cmake -DARBOR_FUZZ=ON -DCMAKE_C_COMPILER=clang ...
 *     build/test-bin/gpubind_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpubind.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int same (const struct gpubind *a, const struct gpubind *b)
{
    return a->mode == b->mode && a->verbose == b->verbose && a->n == b->n
           && a->nlist == b->nlist
           && (!a->nlist
               || !memcmp (a->list, b->list, a->nlist * sizeof (*a->list)));
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    struct gpubind b, again;
    char *t1 = NULL, *t2 = NULL;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    if (gpubind_parse (s, &b, NULL) == 0) {
        if (b.nlist > GPUBIND_LIST_MAX || !(t1 = gpubind_text (&b))
            || strlen (t1) > GPUBIND_LEN_MAX
            || gpubind_parse (t1, &again, NULL) < 0 || !same (&b, &again)
            || !(t2 = gpubind_text (&again)) || strcmp (t1, t2) != 0)
            abort ();
        free (t1);
        free (t2);
        gpubind_clear (&again);
        gpubind_clear (&b);
    } else if (b.list || b.nlist || b.mode != GPUBIND_DEFAULT)
        abort (); /* a refused value leaves nothing behind */
    free (s);
    return 0;
}
