/* json.h - the --json documents of the arbor commands: cli/json/'s one
 * header, for the commands and the tests. It declares nothing itself:
 * the interface is json_doc.h (json_doc.c), which brings json_stream.h
 * (json_stream.c) with it; json_buf.h stays private to the room.
 *
 * The rooms that write a document (acct/, queue/, info/, control/)
 * include "json/json_doc.h" by its path.
 */
#ifndef ARBOR_CLI_JSON_H
#define ARBOR_CLI_JSON_H

#include "json_doc.h"

#endif /* !ARBOR_CLI_JSON_H */
