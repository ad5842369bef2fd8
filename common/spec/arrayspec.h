/* arrayspec.h - job array index expressions (sbatch --array).
 *
 *     "0-99"       indexes 0 to 99       "1,3,5"     those three
 *     "0-15:4"     0, 4, 8, 12            "0-99%10"   at most 10 running
 *
 * Items are separated by commas; "%N" (usually last, but taken after any
 * item, as in "0-99%10,200") caps how many tasks of the array run at
 * once. Indexes are sorted and each kept once.
 */
#ifndef ARBOR_ARRAYSPEC_H
#define ARBOR_ARRAYSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct arrayspec {
    uint32_t *ids; /* ascending, distinct */
    size_t n;
    uint32_t throttle; /* %N, 0: no cap */
};

/* The largest index ever accepted: Slurm's largest MaxArraySize is
 * 4000001. Parsing allocates max_index + 1 bytes, so a huge MaxArraySize
 * must not make every parse allocate gigabytes. */
#define ARRAYSPEC_MAX_INDEX 4000000u

/* Parse 's'; every index must be at most max_index (MaxArraySize - 1),
 * itself capped at ARRAYSPEC_MAX_INDEX whatever the caller passes.
 * 0, or -1 with errno EINVAL (err: "invalid --array '0-x': ...") or
 * ENOMEM; 'out' is untouched on failure. */
int arrayspec_parse (const char *s, uint32_t max_index, struct arrayspec *out,
                     arbor_error_t *err);
void arrayspec_clear (struct arrayspec *a);

#endif
