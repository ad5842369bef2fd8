/* optenv.h - input environment variables that stand for options.
 *
 * srun, sbatch and salloc read options from the environment (SLURM_*,
 * SBATCH_*, SALLOC_*): each variable means one option, a flag option is
 * on when its variable is empty, "yes" or a non-zero number. This turns
 * the variables of a table that are set into an argv that opt_parse()
 * reads like a command line, so that they are validated by the same
 * code, with the same messages (naming the variable's option).
 */
#ifndef ARBOR_CLI_OPTENV_H
#define ARBOR_CLI_OPTENV_H

#include <stdbool.h>

struct optenv {
    const char *var; /* SBATCH_PARTITION */
    const char *opt; /* the long option: "partition" */
    bool flag;       /* takes no value */
};

/* {prog, "--OPT=VALUE"...} for the set variables of 'tab' (terminated by
 * a zero entry), in table order, NULL-terminated; *argc is its length.
 * Caller frees with optenv_free. NULL with errno ENOMEM. */
char **optenv_argv (const char *prog, const struct optenv *tab, int *argc);
void optenv_free (char **argv);

#endif
