/* gresconf.h - gres.conf, in Slurm's format (issue 35; parsed and checked
 * here, not yet read by the daemons).
 *
 * Each line names one kind of resource on some nodes:
 *
 *   [NodeName=node[1-4]] Name=gpu [Type=a100] [File=/dev/nvidia[0-3]]
 *       [Count=4] [Cores=0-15] [Flags=...] [AutoDetect=nvml|off|...]
 *
 * or only AutoDetect=... (for every node, or NodeName='s). '#' starts a
 * comment. Count defaults to the number of files (1 without File=); with
 * File= it must be that number. Keys are case-insensitive, as Slurm's.
 */
#ifndef ARBOR_GRESCONF_H
#define ARBOR_GRESCONF_H
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define GRESCONF_LINES_MAX 4096
#define GRESCONF_FILES_MAX 1024 /* files of one line */

struct gresconf_line {
    unsigned lineno;
    char *nodes;  /* NodeName=, a hostlist expression; NULL: every node */
    char *name;   /* Name=; NULL on an AutoDetect-only line */
    char *type;   /* Type=; NULL none */
    char **files; /* File=, expanded (/dev/nvidia[0-1]: two) */
    size_t nfiles;
    uint64_t count;   /* Count=, or the files', or 1 */
    char *cores;      /* Cores=, as written; NULL none */
    char *flags;      /* Flags=, as written; NULL none */
    char *autodetect; /* AutoDetect=; NULL not given */
};

struct gresconf {
    struct gresconf_line *v;
    size_t n;
};

/* Parse a whole gres.conf ('text'). 0, or -1 with errno EINVAL and err
 * naming the line and what is wrong ("gres.conf line 3: unknown key
 * 'Nmae'"), or ENOMEM; *out is then empty. */
int gresconf_parse (const char *text, struct gresconf *out, arbor_error_t *err);
void gresconf_clear (struct gresconf *g);

#endif
