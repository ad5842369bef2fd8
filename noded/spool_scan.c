/* spool_scan.c - the stepd sockets and records in this node's spool.
 *
 * One readdir loop for the four places that look for stepds in the spool:
 * registration (the jobs running here), STEP_KILL and STEPD_TERMINATE (the
 * stepds of a step, ours or a previous noded's) and the re-finding of
 * stepds at start (stepd_info.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "spool_scan.h"

/* Parse a spool entry name "stepd.<job>.<step>.sock" (or, if 'info',
 * "stepd.<job>.<step>.info"), exactly. */
static bool spool_entry_name (const char *name, bool info, uint32_t *job,
                              uint32_t *step)
{
    unsigned int j, s;
    int end = -1;

    if (sscanf (name, info ? "stepd.%u.%u.info%n" : "stepd.%u.%u.sock%n", &j,
                &s, &end)
            != 2
        || end < 0 || name[end] != '\0')
        return false;
    *job = j;
    *step = s;
    return true;
}

static int spool_entry (const char *spool, const char *name, spool_scan_f f,
                        uint32_t job, uint32_t step, void *arg)
{
    char *path;
    int n;

    if (asprintf (&path, "%s/%s", spool, name) < 0)
        path = NULL;
    n = f (path, job, step, arg);
    free (path);
    return n;
}

int spool_scan (const char *spool, spool_scan_f on_socket, spool_scan_f on_info,
                void *arg)
{
    DIR *dir = opendir (spool);
    struct dirent *de;
    int count = 0;

    if (!dir)
        return 0;
    while ((de = readdir (dir))) {
        uint32_t j, s;
        if (spool_entry_name (de->d_name, false, &j, &s))
            count += spool_entry (spool, de->d_name, on_socket, j, s, arg);
        else if (on_info && spool_entry_name (de->d_name, true, &j, &s))
            count += spool_entry (spool, de->d_name, on_info, j, s, arg);
    }
    closedir (dir);
    return count;
}
