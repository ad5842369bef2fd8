/* info_json.h - arbor info --json: nodes and partitions as one JSON
 * document.
 *
 *   {"schema": "arbor.info", "version": 1,
 *    "nodes": [ {node...}, ... ], "partitions": [ {partition...}, ... ]}
 *
 * docs/json/info.md describes every member, docs/schema/
 * arbor.info.schema.json is its JSON Schema; within a major version
 * members are only added (docs/json-schema.md).
 */
#ifndef ARBOR_CLI_INFO_JSON_H
#define ARBOR_CLI_INFO_JSON_H

#include <jansson.h>

#include "info_fields.h"
#include "info_rows.h"

#define INFO_JSON_SCHEMA "arbor.info"
#define INFO_JSON_VERSION 1

/* The document of the nodes that 'flt' lets through (its -p, -t, -R,
 * -d, -r) and of the partitions -p lets through, each with those of its
 * nodes. Caller json_decref's it; NULL with errno ENOMEM. */
json_t *info_json_build (const struct info_data *d,
                         const struct info_filter *flt);

#endif
