/* cmd_jobaction.h - the job actions of cmd_jobaction.c that "arbor
 * control" (scontrol) lends its words to: hold, release, requeue, ...
 * and update JobId=.
 */
#ifndef ARBOR_CLI_CMD_JOBACTION_H
#define ARBOR_CLI_CMD_JOBACTION_H

/* JOB_ACTION 'action' ("hold", "uhold", "release", "requeue", "suspend",
 * "resume") on the jobs named by argv. The exit status. */
int jobaction_run (const char *prog, const char *action, int argc, char **argv);
/* scontrol update JobId=LIST KEY=VALUE...: JOB_UPDATE. The exit status. */
int jobupdate_run (const char *prog, int argc, char **argv);

#endif
