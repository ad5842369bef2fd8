/* control.h - "arbor control" (scontrol) show and ping below the command:
 * cli/control/'s one header, for cmd_control.c and the tests. It declares
 * nothing itself; each module keeps its own header:
 *
 *   control_show.h    show ... and ping: fetch, then print (the entry)
 *   control_lic.h     show licenses
 *   control_job.h     what show job and show step say
 *   control_node.h    what show node and show partition say
 *   control_config.h  show config
 *   control_hosts.h   show hostnames | hostlist
 *   control_rec.h     the records, in scontrol's layout
 *   control_json.h    the --json documents
 */
#ifndef ARBOR_CLI_CONTROL_H
#define ARBOR_CLI_CONTROL_H

#include "control_config.h"
#include "control_hosts.h"
#include "control_job.h"
#include "control_json.h"
#include "control_lic.h"
#include "control_node.h"
#include "control_rec.h"
#include "control_show.h"

#endif /* !ARBOR_CLI_CONTROL_H */
