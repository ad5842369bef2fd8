/* munged_fixture.h - a private munged for unit tests that need real munge.
 *
 * munged_fixture_start() creates a temp dir with a random key and starts
 * "munged -F -f" on a socket inside it, waiting until the socket answers.
 * Tests call it from a cmocka group setup and skip (with a message saying
 * why) when it returns -1 because munged is not installed.
 */
#ifndef ARBOR_MUNGED_FIXTURE_H
#define ARBOR_MUNGED_FIXTURE_H

#include <sys/types.h>

struct munged_fixture {
    char dir[256];
    char socket[320];
    pid_t pid;
};

/* 0 on success; -1 if munged cannot be started (why printed to stderr). */
int munged_fixture_start (struct munged_fixture *m);
void munged_fixture_stop (struct munged_fixture *m);

#endif
