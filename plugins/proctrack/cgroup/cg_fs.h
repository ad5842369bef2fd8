/* cg_fs.h - proctrack/cgroup's file system work, shared by both backends
 * (cg_fs.c): interface files, and making and removing the groups'
 * directories.
 */
#ifndef ARBOR_PROCTRACK_CG_FS_H
#define ARBOR_PROCTRACK_CG_FS_H

#include <stddef.h>

/* Write 'text' to the interface file 'path' (open, write, close: no
 * allocation, so a task sharing the stepd's memory may call it). 0, or -1
 * with errno. Both backends use it. */
int cg_write (const char *path, const char *text);

/* Make <mount>/<rel> and whichever of its parents below mount are
 * missing, touching no level that exists (cg_fs.c says why). 0 (also
 * when it existed), or -1 with errno: EINVAL (empty mount or rel),
 * ENAMETOOLONG, ENOENT (mount missing), or mkdir(2)'s. */
int cg_mkdirs (const char *mount, const char *rel);

/* "<mount>/<rel>[/<file>]" into path (file NULL: none). 0, or -1 with
 * errno ENAMETOOLONG. */
int cg_path_join (char *path, size_t size, const char *mount, const char *rel,
                  const char *file);

/* Remove <mount>/<rel>, then its parents while they are empty, 'levels'
 * directories in all, stopping at the first the kernel keeps (busy: a
 * process or another step's or job's group is in it). A missing directory
 * counts as removed. 0 when <rel> is gone, or -1 with rmdir(2)'s errno
 * (EBUSY) when it stays, or ENAMETOOLONG. */
int cg_rmdirs (const char *mount, const char *rel, int levels);

/* 1 if <mount>/<rel>/cgroup.procs lists no process, 0 if it lists one, -1
 * with errno (ENOENT: no such group). */
int cg_procs_empty (const char *mount, const char *rel);

#endif
