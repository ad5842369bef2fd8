/* conf_records.h - the NodeName= and PartitionName= records of arbor.conf
 * and the final pass over them (conf_records.c). Private to common/conf/;
 * see conf_parse.h for the parser they work on.
 */
#ifndef ARBOR_CONF_RECORDS_H
#define ARBOR_CONF_RECORDS_H

#include "conf_parse.h"

/* A record line: 'names' (or 'name') is the value of its first key,
 * 'rest' the line after it. */
int conf_node_line (struct conf_parser *p, const char *names, char *rest);
int conf_part_line (struct conf_parser *p, const char *name, char *rest);
/* Final pass: node names unique, partitions' Nodes= resolved. */
int conf_finish (struct conf_parser *p);

#endif
