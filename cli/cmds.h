/* cmds.h - the entry point of every subcommand, declared from cmds.def.
 *
 * Each subcommand lives in cli/cmd_<name>.c and exports one entry point,
 * listed in cmds.def, called by arbor.c with argv[0] set to the name the
 * user typed ("arbor run", or "srun" when invoked through that link). An
 * entry point returns the process exit status; it may also exit() itself
 * on fatal errors (die()). A cmd_<name>.c includes this header so that
 * its definition is checked against the signature arbor.c calls; nothing
 * else is declared here (what one command lends another has its own
 * header, as cmd_jobaction.h).
 */
#ifndef ARBOR_CLI_CMDS_H
#define ARBOR_CLI_CMDS_H

#define CMD(name, slurm, entry, summary) int entry (int argc, char **argv);
#include "cmds.def"
#undef CMD

#endif
