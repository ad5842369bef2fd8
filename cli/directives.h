/* directives.h - the options written in a batch script ("#SBATCH -N 2").
 *
 * Slurm's sbatch rules. The script is read from its first line until the
 * first command, that is the first line that is neither blank nor a
 * comment (a line whose first non-blank character is '#', which includes
 * the "#!" line). In that header a directive is a line starting in column 0
 * with one of the prefixes, followed at once by a space or a tab:
 * "#SBATCH -N 2" is one, "#SBATCHX -N 2", " #SBATCH -N 2" and "#SBATCH"
 * alone are plain comments. Directives after the first command are
 * ignored. The rest of a directive line is split into words as sh(1)
 * would (quotes, backslashes, a '#' starting a word begins a comment; see
 * words.h):
 *     #SBATCH --job-name="my job" -N 2   # two nodes
 * gives "--job-name=my job", "-N", "2". CRLF line ends are accepted.
 */
#ifndef ARBOR_CLI_DIRECTIVES_H
#define ARBOR_CLI_DIRECTIVES_H

#include <stddef.h>
#include "error.h"

struct directives {
    char **argv;     /* argv[0] = prog, then the words in script order, then
                      * NULL; each malloc'd */
    int argc;        /* words in argv, prog included (so at least 1) */
    unsigned *lines; /* lines[i]: 1-based script line of argv[i];
                      * lines[0] = 0 */
};

/* Read the directives of script[0..len) whose prefix is one of 'prefixes'
 * (NULL-terminated, e.g. { "#SBATCH", "#ARBOR", NULL }) into *d, which the
 * caller then owns and frees with directives_clear(); argv suits getopt.
 * Returns 0, or -1 with errno EINVAL and err ("line 4: unterminated double
 * quote in #SBATCH directive", "line 7: the batch script contains a NUL
 * character", as Slurm refuses such a script) or ENOMEM. On failure *d is
 * not touched. */
int directives_parse (const char *script, size_t len,
                      const char *const *prefixes, const char *prog,
                      struct directives *d, arbor_error_t *err);

/* Free what directives_parse gave and zero *d. Accepts NULL and a zeroed
 * struct; keeps errno. */
void directives_clear (struct directives *d);

#endif
