/* json_stream.h - a --json document of one list, written as its records
 * are made (json_stream.c), in json_doc_write's layout (json_doc.h).
 */
#ifndef ARBOR_CLI_JSON_STREAM_H
#define ARBOR_CLI_JSON_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

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

#endif /* !ARBOR_CLI_JSON_STREAM_H */
