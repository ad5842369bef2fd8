/* trigger_text.h - strigger --get's table, and its filters.
 *
 * The controller answers TRIGGER_GET filtered by id, job and owner; the
 * event options given with --get (--down, --fini, --node ...) filter
 * further here, as strigger does: a trigger is shown when its type is
 * exactly the one asked for (and, for --node, it watches nodes). The
 * table is strigger's, same columns and widths:
 *
 *   TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER
 * FLAGS PROGRAM 2 node            * down                                     0
 * root           /usr/sbin/notify
 */
#ifndef ARBOR_CLI_TRIGGER_TEXT_H
#define ARBOR_CLI_TRIGGER_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "proto.h"

struct trigger_filter {
    uint32_t types; /* TRIG_* asked with --get; 0: any */
    bool nodes;     /* --node given: node triggers only */
};

/* Is entry i of r one 'flt' lets through? */
bool trigger_text_wanted (const struct msg_trigger_get_reply *r, uint32_t i,
                          const struct trigger_filter *flt);
/* Print the table of r's entries that pass 'flt' (the header unless
 * 'noheader', and only when one entry is printed). Returns how many. */
unsigned trigger_text_print (FILE *f, const struct msg_trigger_get_reply *r,
                             const struct trigger_filter *flt, bool noheader);

#endif
