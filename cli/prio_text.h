/* prio_text.h - sprio's table of the priority of pending jobs.
 *
 * Laid out as Slurm 22.05's sprio lays out the factors Arbor has
 * (PRIO_INFO_REPLY, common/wire/proto_msgs.def):
 *
 *           JOBID PARTITION   PRIORITY       SITE        AGE    JOBSIZE
 *              12 debug           1504          0        504       1000
 *
 * JOBID is 15 wide, PARTITION 9 (left-aligned), USER 8, NICE 11, the rest
 * 10; every value is cut to its column. Columns:
 *   default  JOBID PARTITION PRIORITY SITE, then AGE, JOBSIZE,
 *            PARTITION (the factor) and QOS (2.14: a controller of
 *            before sends no weight, 0) when their weight is not 0,
 *            then NICE when some job listed has a nice value (Arbor's
 *            addition: sprio shows it only with -l); USER after
 *            PARTITION with -u
 *   -l       USER and every factor column and NICE, whatever the weights:
 *            JOBID PARTITION USER PRIORITY SITE AGE JOBSIZE PARTITION QOS
 *            NICE (sprio's less ASSOC, FAIRSHARE and TRES, which Arbor
 *            does not have)
 *   -n       the factors as weighted value / weight, "%.7f" in [0, 1],
 *            and PRIORITY as priority / 4294967295 ("0.00000023"), all
 *            left-aligned; no SITE and no NICE column, as sprio -n
 *   -w       only the weights: a "Weights" row under the header (SITE's
 *            weight is 1, as sprio shows it; QOS's is PriorityWeightQOS)
 * Rows keep the reply's order, the order the scheduler considers the
 * jobs in (sprio sorts by job id unless -S says otherwise; Arbor has no
 * -S, and the scheduling order is what a user asking "when does my job
 * run" wants). SITE is always 0: Arbor has no site factor.
 * Under priority/wait the table is Arbor's own, with P and its parts as
 * decimals (thousandths on the wire):
 *           JOBID PARTITION   PRIORITY     PRESET       WAIT RESERVE
 *              12 debug         12.500     10.000      2.500      no
 * (USER after PARTITION with -u or -l, NICE when some job has one; -w
 * shows the threshold P_th under PRIORITY.)
 * Pure functions.
 */
#ifndef ARBOR_CLI_PRIO_TEXT_H
#define ARBOR_CLI_PRIO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "proto.h"

struct prio_view {
    bool longfmt;           /* -l */
    bool norm;              /* -n */
    bool weights_only;      /* -w */
    bool noheader;          /* -h */
    bool users;             /* -u was given: a USER column, as sprio */
    bool jobs;              /* -j was given: "Unable to find jobs ..."
                               when none is listed, as sprio */
    const char *partitions; /* -p a,b: keep only these (the request
                               carries one name); NULL keeps all */
};

/* sprio's refusal, when 'type' (PriorityType) is priority/basic:
 *   "You are not running a supported priority plugin\n(priority/basic).\n"
 *   "Only 'priority/multifactor' is supported.\n"
 * into buf, returned; NULL for any other type (printing goes ahead). */
const char *prio_text_unsupported (const char *type, char *buf, size_t len);

/* Print the table for 'r' as 'v' asks. Lists of 'r' shorter than
 * job_ids (an older controller) read as 0 or "". 0, or -1 with errno
 * ENOMEM (nothing printed). */
int prio_text_print (FILE *f, const struct msg_prio_info_reply *r,
                     const struct prio_view *v);

#endif
