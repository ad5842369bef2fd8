/* userdir.h - directories of the job's user in the node's spool area.
 *
 * The MPI plugin's temporary directory and the batch step's script live
 * in directories the stepd (root) makes for the job's user, in a spool
 * area the user cannot write. They are removed at the end of the step
 * without ever following a link the user may have put in them.
 */
#ifndef ARBOR_STEPD_USERDIR_H
#define ARBOR_STEPD_USERDIR_H

#include <sys/types.h>

#include "error.h"

/* Make 'path' (0700), owned by uid/gid when we are root, after removing
 * a leftover of a stepd that died. 0, or -1 with errno and err. */
int userdir_make (const char *path, uid_t uid, gid_t gid, const char *what,
                  arbor_error_t *err);
/* Remove 'path' and everything in it (links are removed, not followed).
 * Failures are logged as warnings; ENOENT is not one. */
void userdir_remove (const char *path);

#endif
