/* prio_info.h - PRIO_INFO: arbor prio's (sprio's) question. */
#ifndef ARBOR_CTLD_PRIO_INFO_H
#define ARBOR_CTLD_PRIO_INFO_H

#include "proto.h"

struct conn;
struct ctld;
struct frame;

/* Answer m from c with PRIO_INFO_REPLY (or RC). */
void prio_serve_info (struct ctld *ctx, struct conn *c, const struct frame *f,
                      const struct msg_prio_info *m);

#endif
