/* conf_parse.h - the parser of arbor.conf, shared by its three files.
 *
 * Private to common/: conf.c reads a file and runs the line stages,
 * conf_keys.c holds the lexer (tokens, values) and the global keys,
 * conf_records.c the NodeName= and PartitionName= records and the final
 * pass over them. Every function that fails fills p->err with
 * "FILE:LINE: [KEY: ]WHAT" and returns -1 with errno set.
 */
#ifndef ARBOR_CONF_PARSE_H
#define ARBOR_CONF_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "error.h"

#define CONF_MAX_KEYS 96 /* global keys (conf_keys.c checks its table) */

/* What the parser knows beyond struct conf. */
struct conf_pending_part {
    int line;
    char *nodes; /* Nodes= as written, NULL if absent */
};

struct conf_parser {
    struct conf *c;
    const char *name; /* file name for messages */
    int line;
    arbor_error_t *err;
    int *node_lines;                /* line of each node in c->nodes */
    struct conf_pending_part *pend; /* one per c->parts */
    struct conf_node node_dflt;     /* NodeName=DEFAULT */
    uint32_t part_max_time;         /* PartitionName=DEFAULT */
    uint32_t part_default_time;
    uint32_t part_priority_tier;       /* ... its PriorityTier */
    uint32_t part_priority_job_factor; /* ... its PriorityJobFactor */
    bool part_has_default_time;
    int key_lines[CONF_MAX_KEYS]; /* line each global key was set on */
};

/* ---- conf_keys.c: lexer, values, global keys ---------------------------- */

int conf_fail (struct conf_parser *p, int errnum, const char *key,
               const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
/* Next Key=Value token of the line at *pp, unquoted in place. Returns 1
 * with *key and *val set, 0 at the end of the line, -1 on error. */
int conf_token (struct conf_parser *p, char **pp, char **key, char **val);
/* Values: a copy of a string, a decimal number in [min, max], a Slurm
 * time, YES/NO. */
int conf_set_str (struct conf_parser *p, char **dst, const char *val);
int conf_number (struct conf_parser *p, const char *key, const char *val,
                 uint32_t min, uint32_t max, uint32_t *out);
int conf_time (struct conf_parser *p, const char *key, const char *val,
               uint32_t *out);
int conf_real (struct conf_parser *p, const char *key, const char *val,
               double min, double *out);
int conf_bool (struct conf_parser *p, const char *key, const char *val,
               bool *out);
/* Set a global key. Returns 1 if 'key' is not one. */
int conf_global (struct conf_parser *p, const char *key, const char *val);
/* The canonical name of global key 'key' (name or Slurm alias), or NULL. */
const char *conf_key_name (const char *key);
/* Free the string values of the global keys of 'c'. */
void conf_keys_free (struct conf *c);

/* ---- conf_records.c: NodeName= and PartitionName= ----------------------- */

/* A record line: 'names' (or 'name') is the value of its first key,
 * 'rest' the line after it. */
int conf_node_line (struct conf_parser *p, const char *names, char *rest);
int conf_part_line (struct conf_parser *p, const char *name, char *rest);
/* Final pass: node names unique, partitions' Nodes= resolved. */
int conf_finish (struct conf_parser *p);

#endif
