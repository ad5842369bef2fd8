/* trigtype.h - the vocabulary of event triggers (strigger), shared by
 * the command and the controller.
 *
 * A trigger watches a resource (a job, some nodes or all of them) for
 * events, bits of one mask: a node going DOWN, coming back UP from DOWN,
 * becoming DRAINED, FAILING, staying IDLE; a job finishing (fini) or
 * reaching its time limit (time). The names are strigger's, as its
 * TYPE and RES_TYPE columns print them. The values travel in
 * TRIGGER_SET and TRIGGER_REC: never renumbered. Pure, no allocation.
 */
#ifndef ARBOR_COMMON_TRIGTYPE_H
#define ARBOR_COMMON_TRIGTYPE_H

#include <stddef.h>
#include <stdint.h>

enum trig_res {
    TRIG_RES_JOB = 1,
    TRIG_RES_NODE = 2,
};

enum {
    TRIG_UP = 1u << 0,
    TRIG_DOWN = 1u << 1,
    TRIG_FAIL = 1u << 2,
    TRIG_TIME = 1u << 3,
    TRIG_FINI = 1u << 4,
    TRIG_IDLE = 1u << 5,
    TRIG_DRAINED = 1u << 6,
};
#define TRIG_KNOWN ((1u << 7) - 1)
/* What a job trigger may watch (its nodes for up, down and fail). */
#define TRIG_JOB_TYPES (TRIG_UP | TRIG_DOWN | TRIG_FAIL | TRIG_TIME | TRIG_FINI)
/* What a node trigger may watch. */
#define TRIG_NODE_TYPES \
    (TRIG_UP | TRIG_DOWN | TRIG_FAIL | TRIG_IDLE | TRIG_DRAINED)

enum {
    TRIG_FLAG_PERM = 1u << 0, /* kept after it fires */
};

#define TRIG_OFFSET_MAX 32000 /* |--offset|, as strigger's */

/* "job", "node", or "?" for another value. */
const char *trigtype_res_str (uint32_t res_type);
/* The event names of 'types', comma-separated ("down", "fini"), or
 * "none"; written to buf (64 bytes are enough); returns buf. */
const char *trigtype_str (uint32_t types, char *buf, size_t len);

#endif
