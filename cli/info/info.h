/* info.h - "arbor info" (sinfo) below its command: cli/info/'s one
 * header, for cmd_info.c and the tests. It declares nothing itself; each
 * module keeps its own header:
 *
 *   info_fields.h  the fields: -o letters, -O names, headers, and each
 *                  field's text for one line
 *   info_rows.h    the lines: which nodes, how they share lines, order
 *   info_json.h    --json
 */
#ifndef ARBOR_CLI_INFO_H
#define ARBOR_CLI_INFO_H

#include "info_fields.h"
#include "info_json.h"
#include "info_rows.h"

#endif /* !ARBOR_CLI_INFO_H */
