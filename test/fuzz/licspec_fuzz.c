/* licspec_fuzz.c - libFuzzer target: license lists as users write them
 * (-L/--licenses, reaching the controller as given) and as arbor.conf's
 * Licenses= says them (common/spec/licspec.c). The first byte picks the use.
 *
 * The parser must never crash or read past its string, fail with EINVAL
 * (or ENOMEM), or give a list whose canonical text parses back to the
 * same text, within the bounds: names of 1 to LICSPEC_NAME_MAX bytes, at
 * most LICSPEC_MAX items, counts within LICSPEC_COUNT_MAX (not 0 for a
 * job's).
 *
 *     build-fuzz/test-bin/licspec_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "licspec.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void check (const struct licspec *l, enum licspec_use use)
{
    if (l->n > LICSPEC_MAX || (l->any && use == LICSPEC_CONF))
        abort ();
    for (size_t i = 0; i < l->n; i++) {
        size_t len = strlen (l->items[i].name);
        if (len == 0 || len > LICSPEC_NAME_MAX
            || l->items[i].count > LICSPEC_COUNT_MAX
            || (use == LICSPEC_JOB && l->items[i].count == 0))
            abort ();
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    enum licspec_use use;
    struct licspec l, again;
    arbor_error_t err;
    char *s, *text, *text2;

    if (size < 1)
        return 0;
    use = data[0] & 1 ? LICSPEC_CONF : LICSPEC_JOB;
    s = malloc (size);
    memcpy (s, data + 1, size - 1);
    s[size - 1] = '\0'; /* a C string, as the options are */
    if (licspec_parse (s, use, &l, &err) < 0) {
        if (errno != EINVAL && errno != ENOMEM)
            abort ();
        free (s);
        return 0;
    }
    check (&l, use);
    if (!(text = licspec_text (&l))
        || licspec_parse (text, use, &again, &err) < 0
        || !(text2 = licspec_text (&again)) || strcmp (text, text2) != 0)
        abort ();
    free (text);
    free (text2);
    licspec_clear (&again);
    licspec_clear (&l);
    free (s);
    return 0;
}
