/* skip.h - honest skips for the cmocka unit tests.
 *
 * cmocka's skip() alone makes a test that verified nothing look passed:
 * the program exits 0 and ctest prints "Passed". Tests that cannot run
 * here (no munged, no writable cgroup, not root) call ARBOR_SKIP(why)
 * instead, and main() returns arbor_test_exit(cmocka_run_...()):
 *   - any failure: the number of failures;
 *   - else any skip: 77, which ctest reports as "Not Run (Skipped)"
 *     (arbor_unit_test() sets SKIP_RETURN_CODE 77), or, under CI=true,
 *     where nothing may skip, 1: a failure naming how many were skipped;
 *   - else 0.
 * A program whose every test needs what is missing returns
 * arbor_skip_all(why) from main() before running any.
 *
 * Include this in the test's main file only: it keeps the skip count in
 * a file-scope static of that program.
 */
#ifndef ARBOR_TEST_SKIP_H
#define ARBOR_TEST_SKIP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ARBOR_SKIP_CODE 77

static unsigned arbor_skips;

#define ARBOR_SKIP(why)                          \
    do {                                         \
        fprintf (stderr, "# SKIP: %s\n", (why)); \
        arbor_skips++;                           \
        skip ();                                 \
    } while (0)

static inline int arbor_in_ci (void)
{
    const char *v = getenv ("CI");

    return v
           && (!strcasecmp (v, "true") || !strcmp (v, "1")
               || !strcasecmp (v, "yes"));
}

static inline int arbor_test_exit (int failed)
{
    if (failed)
        return failed;
    if (!arbor_skips)
        return 0;
    if (arbor_in_ci ()) {
        fprintf (stderr,
                 "# CI=true: %u test(s) skipped, which CI does not "
                 "allow\n",
                 arbor_skips);
        return 1;
    }
    return ARBOR_SKIP_CODE;
}

static inline int arbor_skip_all (const char *why)
{
    fprintf (stderr, "# SKIP: every test: %s\n", why);
    arbor_skips++;
    return arbor_test_exit (0);
}

#endif
