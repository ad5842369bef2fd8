/* cmds.h - the subcommands of the arbor command.
 *
 * Each subcommand lives in cli/cmd_<name>.c and exports one entry point,
 * cmd_<name>_main(), called by arbor.c with argv[0] set to the name the
 * user typed ("arbor run", or "srun" when invoked through that link). An
 * entry point returns the process exit status; it may also exit() itself
 * on fatal errors (die()).
 */
#ifndef ARBOR_CLI_CMDS_H
#define ARBOR_CLI_CMDS_H

int cmd_run_main (int argc, char **argv);
int cmd_alloc_main (int argc, char **argv);
int cmd_batch_main (int argc, char **argv);
int cmd_hold_main (int argc, char **argv);
int cmd_release_main (int argc, char **argv);
int cmd_requeue_main (int argc, char **argv);
/* JOB_ACTION 'action' ("hold", "uhold", "release", "requeue", "suspend",
 * "resume") on the jobs named by argv (cmd_jobaction.c; scontrol's words
 * use it too). The exit status. */
int jobaction_run (const char *prog, const char *action, int argc, char **argv);
/* scontrol update JobId=LIST KEY=VALUE...: JOB_UPDATE. The exit status. */
int jobupdate_run (const char *prog, int argc, char **argv);
int cmd_info_main (int argc, char **argv);
int cmd_queue_main (int argc, char **argv);
int cmd_cancel_main (int argc, char **argv);
int cmd_control_main (int argc, char **argv);
int cmd_local_main (int argc, char **argv);
int cmd_job_main (int argc, char **argv);
int cmd_acct_main (int argc, char **argv);
int cmd_eff_main (int argc, char **argv);
int cmd_prio_main (int argc, char **argv);
int cmd_stat_main (int argc, char **argv);
int cmd_attach_main (int argc, char **argv);
int cmd_bcast_main (int argc, char **argv);
int cmd_gather_main (int argc, char **argv);
int cmd_trigger_main (int argc, char **argv);

#endif
