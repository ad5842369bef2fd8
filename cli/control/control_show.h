/* control_show.h - arbor control show ... and arbor control ping: what
 * scontrol shows, fetched from the controller (JOB_INFO, STEP_INFO,
 * NODE_INFO) or read locally (arbor.conf, host lists).
 *
 *     show job [ID]           show step [JOBID[.STEPID]]
 *     show node [LIST]        show partition [NAME]
 *     show config             show hostnames [LIST]    show hostlist LIST
 *     ping
 *
 * The records are control_job.h's and control_node.h's, printed as
 * control_rec.h lays them out or, with --json, as control_json.h's
 * documents. Errors are scontrol's: an unknown job is
 * "slurm_load_jobs error: Invalid job id specified" on stderr, an
 * unknown node "Node X not found" on stdout (as scontrol prints it);
 * both exit 1.
 */
#ifndef ARBOR_CLI_CONTROL_SHOW_H
#define ARBOR_CLI_CONTROL_SHOW_H

#include <stdbool.h>

struct control_show_opts {
    const char *prog;
    bool oneliner; /* -o: one line per record */
    bool details;  /* -d: Arbor's extra lines (steps of a job, CpuSpeed) */
    bool json;     /* --json */
};

/* "show" with argv the words after it. Returns the exit status (dies on
 * errors scontrol reports as such). */
int control_show (const struct control_show_opts *o, int argc, char **argv);

/* "ping": "Slurmctld(primary) at HOST is UP" and 0, or "... is DOWN"
 * and 1. */
int control_ping (void);

#endif
