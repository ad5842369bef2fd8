/* bcast_libs.h - sbcast --send-libs: the shared libraries an executable
 * needs, as the dynamic loader resolves them.
 *
 * The loader is the authority on what a program loads (DT_NEEDED,
 * RPATH/RUNPATH, LD_LIBRARY_PATH, ld.so.cache, hwcaps directories), so
 * we ask it, as Debian's ldd(1) does: ldd's output is parsed
 * ("NAME => PATH (0x...)" lines; the vDSO, the loader itself and "not
 * found" lines are skipped). Each library is sent under the NAME the
 * executable asks for, into DEST_libs/, unless PATH lies in an excluded
 * directory (--exclude; Slurm's BcastExclude default: /lib, /usr/lib,
 * /lib64, /usr/lib64, which the nodes have anyway).
 */
#ifndef ARBOR_CLI_BCAST_LIBS_H
#define ARBOR_CLI_BCAST_LIBS_H

#include <stdbool.h>
#include <stddef.h>

#define BCAST_EXCLUDE_DEFAULT "/lib,/usr/lib,/lib64,/usr/lib64"

struct bcast_lib {
    char *name; /* as the executable needs it: "libfoo.so.1" */
    char *path; /* where it was found */
};

struct bcast_libs {
    struct bcast_lib *v;
    size_t n;
};

/* Parse ldd's output 'text' into *out (appended). 0, or -1 with errno
 * ENOMEM. Lines that are not "NAME => /PATH ..." are skipped. */
int bcast_libs_parse (const char *text, struct bcast_libs *out);

/* Is 'path' under one of the comma-separated directories of 'exclude'
 * ("NONE": none; NULL: the default)? A directory excludes what lies
 * below it at any depth. */
bool bcast_libs_excluded (const char *path, const char *exclude);

/* Drop the excluded entries of 'libs'. */
void bcast_libs_filter (struct bcast_libs *libs, const char *exclude);

/* Run ldd on 'exe' and parse what it says. 0, or -1 with errno and a
 * sentence in why. A static executable has no libraries: 0, none. */
int bcast_libs_find (const char *exe, struct bcast_libs *out, char *why,
                     size_t len);

void bcast_libs_clear (struct bcast_libs *libs);

#endif
