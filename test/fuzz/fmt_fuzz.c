/* fmt_fuzz.c - libFuzzer target: squeue's -o formats, -O field lists
 * and --sort keys (cli/fmt.c, cli/queue/queue_fields.c,
 * cli/queue/queue_sort.c).
 *
 * The input is parsed all three ways; what parses is laid out over a
 * one-job reply. Nothing may crash or read out of bounds.
 *
 *     build-fuzz/test-bin/fmt_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "queue/queue_fields.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void fmt_fuzz_print (const struct fmt *f)
{
    static uint32_t id = 5, limit = 60, start = 1000;
    static char *name = "n", *state = "RUNNING";
    struct msg_job_info_reply r = {
        .job_ids = &id,
        .job_ids_count = 1,
        .names = &name,
        .names_count = 1,
        .states = &state,
        .states_count = 1,
        .time_limits = &limit,
        .time_limits_count = 1,
        .start_times = &start,
        .start_times_count = 1,
    };
    struct queue_row row = { .r = &r, .now = 2000 };
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

    if (!text)
        return 0;
    memcpy (text, data, size);
    text[size] = '\0';
    if (fmt_parse (text, queue_fields, queue_nfields, &f, &err) == 0) {
        fmt_fuzz_print (&f);
        fmt_free (&f);
    }
    if (fmt_parse_long (text, queue_fields, queue_nfields, &f, &err) == 0) {
        fmt_fuzz_print (&f);
        fmt_free (&f);
    }
    (void)queue_sort_parse (text, &keys, &err);
    free (text);
    return 0;
}
