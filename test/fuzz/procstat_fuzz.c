/* procstat_fuzz.c - libFuzzer target: the /proc text sstat's numbers come
 * from (stepd/procstat.c).
 *
 * The kernel writes these files, but a process names itself (comm, in
 * /proc/PID/stat, may hold spaces, parentheses and digits), so the
 * parsers must never crash or read past the text, whatever it holds.
 *
 *     build-fuzz/test-bin/procstat_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *text = malloc (size + 1);
    struct proc_sample s = { 0 };

    if (!text)
        return 0;
    memcpy (text, data, size);
    text[size] = '\0';
    if (procstat_parse_stat (text, 4, &s) == 0 && s.pid <= 0)
        abort (); /* a line it takes names a process */
    procstat_parse_status (text, &s);
    procstat_parse_io (text, &s);
    free (text);
    return 0;
}
