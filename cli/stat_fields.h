/* stat_fields.h - sstat's fields, on sacct's layouts (acct_fields.h).
 *
 * A row is an acct_row whose 'ext' is a struct stat_step (stat_step.h).
 * Sizes are printed as sacct prints them ("1180K", "2.50G"), CPU times
 * as sacct's CPU times, the task with the extreme value by its global
 * rank. Measures Arbor does not take (energy, CPU frequency) are not
 * fields: asking for one is "Invalid field requested".
 */
#ifndef ARBOR_CLI_STAT_FIELDS_H
#define ARBOR_CLI_STAT_FIELDS_H

#include "acct/acct_fields.h"

/* sstat's default list, less what Arbor does not measure. */
#define STAT_DEFAULT_FORMAT                                            \
    "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,"    \
    "MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask," \
    "AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,MaxDiskRead," \
    "MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"        \
    "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite"
/* -i/--pidformat */
#define STAT_PID_FORMAT "JobID,Nodelist,Pids"

extern const struct acct_table stat_table;

#endif
