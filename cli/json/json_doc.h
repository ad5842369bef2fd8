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

/* A document of one list written as its records are made, in
 * json_doc_write's layout: each record becomes text and is freed at
 * once, so a listing of thousands of jobs never holds its whole tree
 * (allocating and freeing one costs more than printing it). create: NULL
 * with errno ENOMEM. add consumes 'rec' (NULL: out of memory); 0, or -1
 * with errno ENOMEM (the stream is then failed). write: the document so
 * far, 0 or -1 with errno. */
struct json_stream;
struct json_stream *json_stream_create (const char *schema, int version,
                                        const char *list);
int json_stream_add (struct json_stream *s, json_t *rec);
int json_stream_write (struct json_stream *s, FILE *f);
void json_stream_destroy (struct json_stream *s);

/* A record written member by member, with no tree: json_put_object
 * (s, NULL) starts the next record of the list, json_put_object_end ends
 * it. Inside an object each value has its 'key'; inside a list, key is
 * NULL. Values: as json_doc_text (text), json_doc_time (time). An error
 * (out of memory, unbalanced ends) is kept: json_stream_write fails. */
void json_put_object (struct json_stream *s, const char *key);
void json_put_object_end (struct json_stream *s);
void json_put_list (struct json_stream *s, const char *key);
void json_put_list_end (struct json_stream *s);
void json_put_int (struct json_stream *s, const char *key, json_int_t v);
void json_put_text (struct json_stream *s, const char *key, const char *text);
void json_put_time (struct json_stream *s, const char *key, uint64_t t);
void json_put_null (struct json_stream *s, const char *key);
void json_put_bool (struct json_stream *s, const char *key, bool v);

#endif
