/* json_doc.h - the --json documents of the arbor commands (acct, queue,
 * info, control show), built with jansson.
 *
 * Every document has the same top:
 *
 *   {"schema": "arbor.NAME", "version": MAJOR, "LIST": [ ... ]}
 *
 * docs/json-schema.md states the rule that keeps them stable (within a
 * major version members are only added) and docs/schema/ holds a JSON
 * Schema file for each, which the integration tests validate against.
 */
#ifndef ARBOR_CLI_JSON_DOC_H
#define ARBOR_CLI_JSON_DOC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* The documents written as their records are made (json_stream.c): every
 * writer of a document uses both, so they come together. */
#include "json_stream.h"

/* Set member 'k' of object 'o' to 'v' (consumed): 0, or -1 if 'v' is
 * NULL or out of memory; OR the results to learn whether any failed.
 * 'k' is one of our member names, ASCII: not checked again. */
#define JSON_SET(o, k, v) json_object_set_new_nocheck ((o), (k), (v))

/* A JSON string of 's' (NULL as ""); bytes of 's' that are not UTF-8
 * become '?', since JSON text must be UTF-8 and a job name is only bytes.
 * NULL when out of memory. */
json_t *json_doc_text (const char *s);

/* Unix seconds, or null for 0 ("not yet" or "never"). */
json_t *json_doc_time (uint64_t t);

/* {"schema": schema, "version": version, list_name: []}: the document,
 * with *list the (borrowed) array to append the records to. NULL with
 * errno ENOMEM. */
json_t *json_doc_create (const char *schema, int version, const char *list_name,
                         json_t **list);

/* Write 'doc': members in the order set, each record of a list on a line
 * of its own, then a newline. 0, or -1 with errno. */
int json_doc_write (const json_t *doc, FILE *f);

#endif
