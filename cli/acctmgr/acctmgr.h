/* acctmgr.h - "arbor acctmgr" (sacctmgr) below its command: cli/acctmgr/'s
 * one header, for cmd_acctmgr.c and the tests. It declares nothing itself;
 * each module keeps its own header:
 *
 *   acctmgr_args.h   the command words (verb, entity, names, where, set)
 *                    turned into an ASSOC_REQ
 *   acctmgr_table.h  show's table from an ASSOC_REPLY
 *   acctmgr_ask.h    the question before a change is committed
 */
#ifndef ARBOR_CLI_ACCTMGR_H
#define ARBOR_CLI_ACCTMGR_H

#include "acctmgr_args.h"
#include "acctmgr_ask.h"
#include "acctmgr_table.h"

#endif /* !ARBOR_CLI_ACCTMGR_H */
