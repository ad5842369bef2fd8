/* fmt_fuzz.c - libFuzzer target: squeue's -o formats, -O field lists
 * and --sort keys (cli/fmt.c, cli/queue/queue_fields.c,
 * cli/queue/queue_sort.c).
 *
 * The input is parsed all three ways; what parses is laid out over one
 * job's view. Nothing may crash or read out of bounds.
 *
 *     build-fuzz/test-bin/fmt_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "queue/queue_fields.h"
#include "queue/queue_sort.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void fmt_fuzz_print (const struct fmt *f)
{
    /* a view whose other strings are unset (NULL), as a job's may be */
    static char name[] = "n", state[] = "RUNNING";
    struct job_view v = { .rec = { .id = 5,
                                   .name = name,
                                   .state_shown = state,
                                   .time_limit = 60,
                                   .start_time = 1000 } };
    struct queue_row row = { .job = &v, .now = 2000 };
    FILE *out = fopen ("/dev/null", "w");

    if (!out)
        return;
    fmt_print_header (out, f);
    fmt_print_row (out, f, queue_field_value, &row);
    fclose (out);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = malloc (size + 1);
    struct queue_sort keys;
    arbor_error_t err;
    struct fmt f;
    size_t nd;
    const struct fmt_def *defs = queue_field_defs (&nd);

    if (!text)
        return 0;
    memcpy (text, data, size);
    text[size] = '\0';
    if (fmt_parse (text, defs, nd, &f, &err) == 0) {
        fmt_fuzz_print (&f);
        fmt_free (&f);
    }
    if (fmt_parse_long (text, defs, nd, &f, &err) == 0) {
        fmt_fuzz_print (&f);
        fmt_free (&f);
    }
    (void)queue_sort_parse (text, &keys, &err);
    free (text);
    return 0;
}
