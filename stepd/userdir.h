/* userdir.h - the step's directories in the node's spool area.
 *
 * The MPI plugin's directories and the batch step's script live in
 * directories the stepd (root) makes in the spool area, which no user may
 * write (userdir_make refuses one that others can write): a directory of
 * the job's user (0700) for what the tasks themselves write, and, for
 * what a root process (the PMIx server) creates and removes, a directory
 * of root's (rootdir_make) that the user can traverse but not write.
 * Both are removed at the end of the step, or by the noded when the
 * stepd died, relative to a descriptor of the spool and without ever
 * following a link the user may have put anywhere in them.
 */
#ifndef ARBOR_STEPD_USERDIR_H
#define ARBOR_STEPD_USERDIR_H

#include <sys/types.h>

#include "error.h"

/* Make 'path' (0700), owned by uid/gid when we are root, after removing
 * a leftover of a stepd that died. Its parent must be a directory that
 * only its owner (root, or us) can write. 0, or -1 with errno and err. */
int userdir_make (const char *path, uid_t uid, gid_t gid, const char *what,
                  arbor_error_t *err);
/* The same, but the directory stays ours (root's), mode 'mode'. */
int rootdir_make (const char *path, mode_t mode, const char *what,
                  arbor_error_t *err);
/* After the root process has made its files in 'path' (a rootdir_make
 * of mode 0700, that nobody else could reach meanwhile): make every
 * directory in it root's and 0755 (a library may have given one to the
 * job's user), then 'path' itself 'mode'. 0, or -1 with errno and err. */
int rootdir_seal (const char *path, mode_t mode, arbor_error_t *err);
/* Remove 'path' and everything in it (links are removed, not followed;
 * a link at 'path' itself is removed, not followed). Failures are logged
 * as warnings; ENOENT is not one. */
void userdir_remove (const char *path);
/* Is the directory 'dir' writable by someone other than its owner, or
 * owned by someone other than root or us? 1 yes (with err saying why),
 * 0 no, -1 with errno and err if it cannot be checked. */
int userdir_parent_unsafe (const char *dir, arbor_error_t *err);

#endif
