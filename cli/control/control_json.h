/* control_json.h - the --json documents of arbor control show job, step,
 * node and partition; see docs/json/control.md and
 * docs/schema/arbor.control.*.schema.json (keep the three in step).
 *
 *   {"schema": "arbor.control.job", "version": 1, "jobs": [...]}
 *
 * and likewise "arbor.control.step" ("steps"), "arbor.control.node"
 * ("nodes"), "arbor.control.partition" ("partitions"). Each record is
 * built from the same view as the text (control_job.h, control_node.h):
 * the facts only, none of the placeholders the text carries for
 * scontrol's parsers. Times are unix seconds or null, limits minutes
 * with null for unlimited.
 */
#ifndef ARBOR_CLI_CONTROL_JSON_H
#define ARBOR_CLI_CONTROL_JSON_H

#include <jansson.h>

#include "control_job.h"
#include "control_node.h"

#define CONTROL_JSON_VERSION 1

/* A record; NULL with errno ENOMEM. */
json_t *control_json_job (const struct control_job *j);
json_t *control_json_step (const struct control_step *s);
json_t *control_json_node (const struct control_node *n);
json_t *control_json_part (const struct control_part *p);

#endif
