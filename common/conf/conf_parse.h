/* conf_parse.h - the parser's state, shared by the three files of the
 * arbor.conf parser.
 *
 * Private to common/conf/: conf.c reads a file and runs the line stages,
 * conf_keys.c (conf_keys.h) holds the lexer (tokens, values) and the
 * global keys, conf_records.c (conf_records.h) the NodeName= and
 * PartitionName= records and the final pass over them. This header holds
 * only the record they all work on; every function of theirs that fails
 * fills p->err with "FILE:LINE: [KEY: ]WHAT" and returns -1 with errno set.
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
    struct conf_node node_dflt;     /* NodeName=DEFAULT (its features
                                       and gres are the parser's copies) */
    uint32_t part_max_time;         /* PartitionName=DEFAULT */
    uint32_t part_default_time;
    uint32_t part_priority_tier;       /* ... its PriorityTier */
    uint32_t part_priority_job_factor; /* ... its PriorityJobFactor */
    bool part_has_default_time;
    int key_lines[CONF_MAX_KEYS]; /* line each global key was set on */
};

#endif
