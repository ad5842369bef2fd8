/* spawnmsg_fuzz.c - libFuzzer target: the spawner packet parser.
 *
 * spawnmsg_parse must never crash or read past the input, must fail with
 * EPROTO or succeed, and what it accepts is a struct spawnmsg of a known
 * kind with the right magic (and a plausible pid where one is named).
 *
 *     build/test-bin/spawnmsg_fuzz -max_total_time=60
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "spawnmsg.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct spawnmsg m;
    arbor_error_t err;

    errno = 0;
    if (spawnmsg_parse (data, size, &m, &err) < 0) {
        if (errno != EPROTO)
            abort ();
        return 0;
    }
    if (size != sizeof (m) || m.magic != SPAWNMSG_MAGIC
        || m.kind < SPAWNMSG_SPAWN || m.kind > SPAWNMSG_READY
        || ((m.kind == SPAWNMSG_FORKED || m.kind == SPAWNMSG_EXITED)
            && m.pid <= 1))
        abort ();
    return 0;
}
