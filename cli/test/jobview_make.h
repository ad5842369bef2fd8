/* jobview_make.h - the cli unit tests' job views, made field by field.
 *
 * A job view (jobview.h) owns its strings, as jobinfo_fetch gives it:
 * the tests set them through jvm_set() and hand the view to
 * job_list_push(), and job_list_clear() frees them all. Header only, so
 * that each test program takes it without a library of its own.
 */
#ifndef ARBOR_CLI_TEST_JOBVIEW_MAKE_H
#define ARBOR_CLI_TEST_JOBVIEW_MAKE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobview.h"

/* Set the owned string *field to a copy of s (NULL: none), freeing what
 * it held; a test that runs out of memory stops there. */
static inline void jvm_set (char **field, const char *s)
{
    free (*field);
    *field = NULL;
    if (s && !(*field = strdup (s))) {
        fprintf (stderr, "jvm_set: out of memory\n");
        abort ();
    }
}

/* Append 'v' (moved: it is empty afterwards) to 'l'; stops the test if
 * it cannot. */
static inline void jvm_push (struct job_list *l, struct job_view *v)
{
    if (job_list_push (l, v) < 0) {
        fprintf (stderr, "jvm_push: out of memory\n");
        abort ();
    }
}

#endif
