/* version.h - --version (-V) and --usage, the same on every command.
 *
 * Through a Slurm name (srun, squeue, scontrol ...) --version prints
 * exactly what Slurm's commands print, "slurm 23.11.0" and nothing else
 * on stdout, because tools find and gate on Slurm by parsing that line:
 * law (^slurm (\d+)\.(\d+)\.(\d+) on sbatch --version's first line),
 * FirecREST (sinfo -V, "slurm " stripped, the rest taken as the
 * version), Meta's clusterscope (every dot-separated part an integer),
 * Puppet's slurm facts (^slurm (.*)$) and Slurm's own test suite
 * (slurm \d+\.\d+\.\d+). Through Arbor's names ("arbor", "arbor run")
 * the line names Arbor and its own version too:
 * "arbor 0.9.0 (slurm 23.11.0)". --usage prints the command's short
 * synopsis, Slurm-style: "Usage: squeue [-A account] [-h] ...", its
 * continuation lines aligned under the first option.
 *
 * VERSION_SLURM is the Slurm release whose command-line behaviour Arbor
 * follows (docs/slurm-compat.md says where it still differs).
 */
#ifndef ARBOR_CLI_VERSION_H
#define ARBOR_CLI_VERSION_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#define VERSION_SLURM "23.11.0"

/* getopt_long's value for --usage; commands' own long-only values stay
 * below it. -V / --version return 'V'. */
#define VERSION_OPT_USAGE 0x7f00

/* The two long options, for a command's option table. */
/* clang-format off */
#define VERSION_LONGOPTS                                                  \
    { "version", no_argument, NULL, 'V' },                                \
    { "usage", no_argument, NULL, VERSION_OPT_USAGE }
/* clang-format on */

/* Is 'prog' (argv[0] as the command got it) a Slurm name rather than
 * "arbor" or "arbor SUB"? */
bool version_is_slurm (const char *prog);

/* The version line for 'prog' (see above), with its newline, to f. */
void version_print (FILE *f, const char *prog);

/* "Usage: PROG LINE0\n" then each further line of 'synopsis' (a
 * NULL-terminated array) indented under LINE0, to f. */
void version_usage (FILE *f, const char *prog, const char *const *synopsis);

/* srun, salloc and sbatch (cmd "run", "alloc" or "batch"), after
 * opt_parse: -V or --usage as above (and exit 0) when given. */
void version_alloc (bool version, bool usage, const char *prog,
                    const char *cmd);

/* In a getopt switch: for 'V' print the version, for VERSION_OPT_USAGE
 * the synopsis, to stdout, and exit 0; any other c returns. */
void version_option (int c, const char *prog, const char *const *synopsis);

#endif
