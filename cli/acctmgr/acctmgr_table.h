/* acctmgr_table.h - sacctmgr show's table, from an ASSOC_REPLY.
 *
 * The reply names its columns by sacctmgr's format= names ("Account",
 * "DefaultAccount"...) and gives the cells row after row. The columns
 * printed are format='s, or by default:
 *   account      Account Descr Org
 *   user         User DefaultAccount AdminLevel
 *   cluster      Cluster ControlHost ControlPort RPC
 *   association  Cluster Account User Partition Share
 *   qos          Name Priority GraceTime Preempt PreemptMode Flags
 *                UsageFactor MaxWall
 * (those the reply lacks are left out; when none is left, or for another
 * entity, every column of the reply). Headers and widths are Slurm's:
 *   Account "Account" 10       Descr "Descr" 20        Org "Org" 20
 *   ParentName "Par Name" 10   Coordinators "Coordinators" 20
 *   User "User" 10             DefaultAccount "Def Acct" 10
 *   AdminLevel "Admin" 9       Cluster "Cluster" 10
 *   ControlHost "ControlHost" 15  ControlPort "ControlPort" 12
 *   RPC "RPC" 5                Partition "Partition" 10   Share "Share" 9
 * and any other column its name, 10 wide. format=NAME%N makes it N wide,
 * NAME%-N N wide and left-aligned; names match in any case.
 *
 * Fixed layout, as Slurm's print_fields: every cell right-aligned (or
 * left) in its width and followed by one space, trailing one included;
 * a cell longer than its width is cut to it, its last character shown
 * as '+'; the header is cut without '+'; under it a line of dashes, one
 * run per column. -p: "a|b|c|", -P: "a|b|c", whole cells, no dashes.
 * -n: no header (nor dashes). Pure functions.
 */
#ifndef ARBOR_CLI_ACCTMGR_TABLE_H
#define ARBOR_CLI_ACCTMGR_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "error.h"
#include "proto.h"

enum acctmgr_layout {
    ACCTMGR_FIXED,     /* columns padded to their widths */
    ACCTMGR_PARSABLE,  /* -p: '|' after every cell */
    ACCTMGR_PARSABLE2, /* -P: '|' between cells */
};

struct acctmgr_view {
    const char *entity; /* the request's ("account"...): its defaults */
    const char *format; /* format='s value(s), NULL: the defaults */
    bool noheader;      /* -n */
    enum acctmgr_layout layout;
};

/* Print r as v asks. 0, or -1 with errno and err, nothing printed:
 * EINVAL for a bad format= ("Unknown field 'xyz' (valid: Account, Descr,
 * Org)", "Bad width in 'user%x'"), EPROTO for a reply whose cells do not
 * fill its rows, ENOMEM. */
int acctmgr_table_print (FILE *f, const struct msg_assoc_reply *r,
                         const struct acctmgr_view *v, arbor_error_t *err);

#endif
