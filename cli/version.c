/* version.c - --version and --usage of every command; see version.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "version.h"

#ifndef ARBOR_VERSION
#define ARBOR_VERSION "unknown"
#endif

bool version_is_slurm (const char *prog)
{
    const char *base = prog ? strrchr (prog, '/') : NULL;

    base = base ? base + 1 : prog;
    /* "arbor" and "arbor SUB" are Arbor's own names; everything else
     * reached this binary through a Slurm link (arbor.c). */
    return base && strncmp (base, "arbor", 5) != 0;
}

void version_print (FILE *f, const char *prog)
{
    if (version_is_slurm (prog))
        fprintf (f, "slurm %s\n", VERSION_SLURM);
    else
        fprintf (f, "arbor %s (slurm %s)\n", ARBOR_VERSION, VERSION_SLURM);
}

void version_usage (FILE *f, const char *prog, const char *const *synopsis)
{
    int indent = (int)(strlen ("Usage: ") + strlen (prog) + 1);

    if (!synopsis || !synopsis[0]) {
        fprintf (f, "Usage: %s\n", prog);
        return;
    }
    fprintf (f, "Usage: %s %s\n", prog, synopsis[0]);
    for (size_t i = 1; synopsis[i]; i++)
        fprintf (f, "%*s%s\n", indent, "", synopsis[i]);
}

/* The allocation options srun, salloc and sbatch share (opt.h), then
 * each command's own. */
#define VERSION_ALLOC_LINES                                     \
    "[-N nodes] [-n tasks] [-c cpus] [--ntasks-per-node=n]",    \
        "[-w hosts] [-x hosts] [-p partition] [-t time]",       \
        "[--mem=size | --mem-per-cpu=size] [--exclusive] [-O]", \
        "[-J name] [-A account] [--nice[=adj]] [-D dir] [-v]",  \
        "[--jobid=id] [--signal=[R:]sig[@time]]"

static const char *const version_run[] = {
    VERSION_ALLOC_LINES,
    "[-l] [-u] [-K] [-Q] [-o file] [-e file] [-i file]",
    "[-m dist] [--mpi=type] [--export=vars] [--pty]",
    "[--help] [--usage] [-V] executable [args...]",
    NULL,
};
static const char *const version_alloc_lines[] = {
    VERSION_ALLOC_LINES,
    "[--help] [--usage] [-V] [command [args...]]",
    NULL,
};
static const char *const version_batch[] = {
    VERSION_ALLOC_LINES,
    "[-o file] [-e file] [-i file] [-W] [-Q] [-a list]",
    "[--export=vars] [--wrap=cmd]",
    "[--help] [--usage] [-V] [script [args...]]",
    NULL,
};

void version_alloc (bool version, bool usage, const char *prog, const char *cmd)
{
    const char *const *lines = !strcmp (cmd, "run")     ? version_run
                               : !strcmp (cmd, "batch") ? version_batch
                                                        : version_alloc_lines;

    if (version)
        version_option ('V', prog, lines);
    if (usage)
        version_option (VERSION_OPT_USAGE, prog, lines);
}

void version_option (int c, const char *prog, const char *const *synopsis)
{
    if (c == 'V') {
        version_print (stdout, prog);
        exit (0);
    }
    if (c == VERSION_OPT_USAGE) {
        version_usage (stdout, prog, synopsis);
        exit (0);
    }
}
