/* queue.h - "arbor queue" (squeue) below its command: cli/queue/'s one
 * header, for cmd_queue.c and the tests. It declares nothing itself;
 * each module keeps its own header:
 *
 *   queue_fields.h  the job fields: -o letters, -O names, headers, each
 *                   field's text, and --sort (queue_sort.c)
 *   queue_select.h  which jobs and steps are listed, beyond what the
 *                   controller filters
 *   queue_fold.h    the lines, and the folding of job arrays
 *   queue_json.h    --json
 *
 * Another room that needs one module (info/ the fields) includes that
 * module's header by its path, "queue/queue_fields.h".
 */
#ifndef ARBOR_CLI_QUEUE_H
#define ARBOR_CLI_QUEUE_H

#include "queue_fields.h"
#include "queue_fold.h"
#include "queue_json.h"
#include "queue_select.h"
#include "queue_sort.h"

#endif /* !ARBOR_CLI_QUEUE_H */
