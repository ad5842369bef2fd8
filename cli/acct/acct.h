/* acct.h - accounting output below its commands ("arbor acct", sacct, and
 * "arbor eff", seff): cli/acct/'s one header, for cmd_acct.c, cmd_eff.c
 * and the tests. It declares nothing itself; each module keeps its own
 * header:
 *
 *   acct_text.h    the words and numbers of accounting output (exit
 *                  codes, durations, sizes), as sacct writes and reads them
 *   acct_fields.h  sacct's fields and its two layouts
 *   acct_group.h   group names (cached), shown by sacct, seff, scontrol
 *   acct_select.h  which records become lines, and in what order
 *   acct_json.h    arbor acct --json
 *   eff.h          seff's report on one job
 *
 * Another room or helper that needs one module (acct_text.h is shared by
 * queue, info, control and stat, acct_fields.h by control and stat)
 * includes that module's header by its path, "acct/acct_text.h".
 */
#ifndef ARBOR_CLI_ACCT_H
#define ARBOR_CLI_ACCT_H

#include "acct_fields.h"
#include "acct_group.h"
#include "acct_json.h"
#include "acct_select.h"
#include "acct_text.h"
#include "eff.h"

#endif /* !ARBOR_CLI_ACCT_H */
