/* arbor.c - the arbor command: dispatch to a subcommand.
 *
 * "arbor SUB [ARGS]" runs subcommand SUB; the Slurm entry points (srun,
 * sbatch, squeue... sacctmgr: cmds.def's, symlinks to this binary) run
 * the matching subcommand directly, so existing scripts work unchanged.
 * The subcommand sees argv[0] as "arbor SUB" (or the Slurm name) for its
 * messages.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "version.h"

struct subcmd {
    const char *name;
    const char *slurm; /* argv[0] alias, or NULL */
    int (*main) (int argc, char **argv);
    const char *summary;
};

/* The table is cmds.def's, in its order. */
static const struct subcmd subcmds[] = {
#define CMD(name, slurm, entry, summary) { name, slurm, entry, summary },
#include "cmds.def"
#undef CMD
    { NULL, NULL, NULL, NULL },
};

/* --usage: arbor's own words in short. */
static const char *const arbor_synopsis[] = {
    "[--help] [--usage] [-V | --version] COMMAND [ARGS...]",
    NULL,
};

static void arbor_usage (FILE *f)
{
    fprintf (f, "Usage: arbor [--help | --usage | --version] COMMAND "
                "[ARGS...]\n\n"
                "Commands:\n");
    for (const struct subcmd *s = subcmds; s->name; s++)
        fprintf (f, "  %-8s %s\n", s->name, s->summary);
    fprintf (f, "\nSlurm names:");
    for (const struct subcmd *s = subcmds; s->name; s++)
        if (s->slurm)
            fprintf (f, " %s", s->slurm);
    fprintf (f, "\nrun the same commands. Run 'arbor COMMAND --help' for a "
                "command's options.\n");
}

static const struct subcmd *arbor_find (const char *name, bool slurm)
{
    for (const struct subcmd *s = subcmds; s->name; s++) {
        const char *n = slurm ? s->slurm : s->name;
        if (n && !strcmp (n, name))
            return s;
    }
    return NULL;
}

int main (int argc, char **argv)
{
    const char *base = argc > 0 ? basename (argv[0]) : "arbor";
    const struct subcmd *s;
    char prog[64];

    if ((s = arbor_find (base, true))) {
        argv[0] = (char *)base; /* "srun: error: ...", as Slurm */
        return s->main (argc, argv);
    }
    if (argc < 2) {
        arbor_usage (stderr);
        return 1;
    }
    if (!strcmp (argv[1], "--help") || !strcmp (argv[1], "-h")
        || !strcmp (argv[1], "help")) {
        arbor_usage (stdout);
        return 0;
    }
    if (!strcmp (argv[1], "--version") || !strcmp (argv[1], "-V")) {
        version_print (stdout, "arbor"); /* "arbor X (slurm Y)" */
        return 0;
    }
    if (!strcmp (argv[1], "--usage")) {
        version_usage (stdout, "arbor", arbor_synopsis);
        return 0;
    }
    if (!(s = arbor_find (argv[1], false))) {
        fprintf (stderr,
                 "arbor: '%s' is not an arbor command\n"
                 "Try 'arbor --help' for the list of commands.\n",
                 argv[1]);
        return 1;
    }
    snprintf (prog, sizeof (prog), "arbor %s", s->name);
    argv[1] = prog;
    return s->main (argc - 1, argv + 1);
}
