/* hostlist_fuzz.c - libFuzzer target: host list expressions.
 *
 * An expression comes from the credential's node list, the command line
 * (-w, -x) and arbor.conf. hostlist_create must never crash, read past
 * the input or hold more than its cap; what it accepts must survive the
 * round trip through hostlist_ranged, and the index must answer every
 * host as hostlist_find does.
 *
 *     build-fuzz/test-bin/hostlist_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void check_round_trip (const struct hostlist *hl)
{
    char *ranged = hostlist_ranged (hl);
    struct hostlist *back = ranged ? hostlist_create (ranged, NULL) : NULL;

    if (!back || hostlist_count (back) != hostlist_count (hl))
        abort ();
    for (size_t i = 0; i < hostlist_count (hl); i++)
        if (strcmp (hostlist_nth (hl, i), hostlist_nth (back, i)) != 0)
            abort ();
    hostlist_destroy (back);
    free (ranged);
}

static void check_index (const struct hostlist *hl)
{
    struct hostlist_index *ix = hostlist_index_create (hl);

    if (!ix)
        abort ();
    for (size_t i = 0; i < hostlist_count (hl) && i < 4096; i++) {
        const char *h = hostlist_nth (hl, i);
        if (hostlist_index_find (ix, h) != hostlist_find (hl, h))
            abort ();
    }
    hostlist_index_destroy (ix);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *expr = malloc (size + 1);
    struct hostlist *hl;

    if (!expr)
        return 0;
    memcpy (expr, data, size);
    expr[size] = '\0';
    /* big products are refused only past a million hosts: keep each
     * input's work small by skipping what expands past 20,000 */
    hl = hostlist_create (expr, NULL);
    if (hl && hostlist_count (hl) <= 20000) {
        for (size_t i = 0; i < hostlist_count (hl); i++)
            if (!hostlist_nth (hl, i))
                abort ();
        if (hostlist_nth (hl, hostlist_count (hl)))
            abort ();
        check_round_trip (hl);
        check_index (hl);
    }
    hostlist_destroy (hl);
    free (expr);
    return 0;
}
