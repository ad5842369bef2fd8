/* info_fields.h - sinfo's fields: -o letters, -O names, headers, and
 * each field's text for one output line (a group of nodes).
 *
 * The default formats are sinfo 22.05's:
 *   plain        "%#P %.5a %.10l %.6D %.6t %N"
 *   -s           "%#P %.5a %.10l %.16F  %N"
 *   -l           "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
 *   -N           "%#N %.6D %#P %6t"
 *   -N -l        "%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"
 *   -R           "%20E %9u %19H %N"
 *   -R -l        "%20E %12U %19H %6t %N"
 * '#' is sinfo's "as wide as the widest value, at least 9" (info_rows.h
 * resolves it once the lines are known). A line stands for one or more
 * nodes of one partition: counts (%D, %F, %C) and lists (%N, %o) cover
 * them all; %c, %m and %X show the smallest value with a '+' when the
 * nodes differ, %e and %O a "min-max" range (sinfo without -e). Values
 * follow sinfo: limits as [D-]H:MM:SS or "infinite", absent text as
 * "(null)", a reason as "none", node states by sinfo's short (%t: idle,
 * mix, alloc, comp, drng, drain, down, unk) or long names (%T), with a
 * '*' when the node does not respond. What arbor.conf cannot say is
 * sinfo's default for it: one socket per CPU, one core, one thread,
 * weight 1, no features, no gres, no temporary disk, OverSubscribe NO,
 * groups "all", not root only, job size "1-infinite". Who set a reason
 * and when (%u, %U, %H) are the controller's record: the administrator
 * who set it, or ArborUser for reasons the controller set; "Unknown"
 * when there is no reason (or an older controller does not say). %H is
 * YYYY-MM-DDTHH:MM:SS, or SLURM_TIME_FORMAT's strftime. Pure functions
 * but info_data_users (getpwuid): the unit test is
 * cli/test/info_fields_test.c.
 */
#ifndef ARBOR_CLI_INFO_FIELDS_H
#define ARBOR_CLI_INFO_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "fmt.h"
#include "proto.h"

#define INFO_FORMAT "%#P %.5a %.10l %.6D %.6t %N"
#define INFO_FORMAT_SUMMARIZE "%#P %.5a %.10l %.16F  %N"
#define INFO_FORMAT_LONG "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define INFO_FORMAT_NODE "%#N %.6D %#P %6t"
#define INFO_FORMAT_NODE_LONG \
    "%#N %.6D %#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"
#define INFO_FORMAT_REASONS "%20E %9u %19H %N"
#define INFO_FORMAT_REASONS_LONG "%20E %12U %19H %6t %N"

extern const struct fmt_def info_fields[];
extern const size_t info_nfields;

/* How a field's value depends on the nodes of a line, which decides
 * which nodes may share a line (info_rows.c). */
enum info_kind {
    INFO_PART,   /* the partition's: the same for all its nodes */
    INFO_NODE,   /* one node's: nodes share a line only if equal */
    INFO_RANGE,  /* smallest ('+') or range over the nodes; with -e
                    like INFO_NODE */
    INFO_SUMMARY /* a count or list over the nodes */
};
enum info_kind info_field_kind (int id);

/* What the lines are made of: the controller's answer and arbor.conf's
 * partitions, both borrowed. */
struct info_data {
    const struct msg_node_info_reply *r;
    const struct conf *conf;
    bool exact;              /* -e: every INFO_RANGE field is INFO_NODE */
    const char *time_format; /* %H: SLURM_TIME_FORMAT's strftime, or NULL
                                for YYYY-MM-DDTHH:MM:SS */
    /* Who set each node's reason, by name (reply order; owned): set by
     * info_data_users; NULL, or a NULL entry: the uid as a number. */
    char **users;
};

/* Name the uid of every node's reason (getpwuid, once per uid; the
 * number when it names nobody) into d->users. 0, or -1 with errno
 * ENOMEM (d->users NULL). Free with info_data_free. */
int info_data_users (struct info_data *d);
void info_data_free (struct info_data *d);

/* Node i's reason: who set it (its uid), as a name, into buf; when
 * (unix s). false when it has none (or the controller does not say):
 * sinfo's "Unknown". */
bool info_reason_by (const struct info_data *d, uint32_t i, uint32_t *uid,
                     const char **user, char *buf, size_t len);
uint32_t info_reason_time (const struct msg_node_info_reply *r, uint32_t i);

/* One output line: nodes of reply 'd->r' (indexes, in reply order) of
 * partition 'part' (index in d->conf->parts; -1 for none, or for lines
 * that are not per partition). */
struct info_row {
    const struct info_data *d;
    int part;
    uint32_t *nodes;
    size_t nnodes;
    size_t seq; /* creation order: ties of a sort keep it */
    char *key;  /* what the nodes share (info_rows.c) */
    /* %N and %o, ranged once the line is complete (info_rows.c), since
     * they may be longer than fmt's buffer; NULL: ranged when shown. */
    char *names, *addrs;
};

/* The line's node names (or addresses: NodeAddr, else the name), as a
 * ranged host list. Caller frees; NULL with errno ENOMEM. */
char *info_ranged (const struct info_row *row, bool addrs);

/* fmt_value_fn over a struct info_row. */
const char *info_field_value (int id, const void *row, char *buf, size_t len);
/* Field id's value as a number to sort by: true, or false for a field
 * sorted as text. */
bool info_field_number (int id, const struct info_row *row, double *v);

/* Node i's state (common/util/states.h), NODE_STATE_COUNT for a name this
 * client does not know; and whether it responds (an older controller
 * does not say: it does). */
int info_node_state (const struct msg_node_info_reply *r, uint32_t i);
bool info_node_responding (const struct msg_node_info_reply *r, uint32_t i);
/* sinfo's short (%t) or long (%T) name of node i's state, without the
 * '*': "drng" / "draining". An unknown name in lower case, in buf. */
const char *info_state_name (const struct msg_node_info_reply *r, uint32_t i,
                             bool lng, char *buf, size_t len);

#endif
