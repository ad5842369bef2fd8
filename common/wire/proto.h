/* proto.h - the Arbor wire protocol: message structs, versions, limits
 * and the encoder (proto.c); proto_decode.h and frame.h come with it.
 *
 * Only proto*.c touch msgpack. Messages are declared once in
 * proto_msgs.def; this header turns that list into
 *     enum msg_type { MSG_RC = 1, MSG_JOB_ALLOC = 100, ... };
 *     struct msg_rc { int32_t errnum; char *text; }; ...
 *     union msg_any (big enough for any message).
 *
 * A frame on the wire is
 *     header (PROTO_HEADER_SIZE bytes, network byte order):
 *         u32 magic      PROTO_MAGIC
 *         u16 major      PROTO_VERSION_MAJOR: a frame of another major is
 *                        refused with EPROTO
 *         u16 minor      PROTO_VERSION_MINOR (informational)
 *         u16 type       enum msg_type
 *         u16 flags      FRAME_F_*
 *         u32 matchtag   chosen by the requester, echoed in the answer
 *         u32 token_len  <= PROTO_MAX_TOKEN
 *         u32 body_len   <= PROTO_MAX_BODY
 *     token   on TCP, the frame's sequence number and MAC under the
 *             connection's session key (SESSION_TRAILER bytes, see
 *             session.h); the first frame of a connection is
 *             MSG_CONN_HELLO, which brings the key. Empty on unix
 *             sockets, where the kernel's SO_PEERCRED names the sender.
 *     body    a msgpack map with string keys, one per field.
 *
 * Decoders ignore unknown keys and reject missing or wrongly typed ones.
 */
#ifndef ARBOR_PROTO_H
#define ARBOR_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "stepids.h"

#define PROTO_MAGIC 0x41524252u /* "ARBR" */
#define PROTO_VERSION_MAJOR 2
#define PROTO_VERSION_MINOR 14
#define PROTO_HEADER_SIZE 24
#define PROTO_MAX_BODY (16u << 20)
#define PROTO_MAX_TOKEN 4096u

/* Input limits: what one field of a received message may hold. The decoder
 * refuses more with EPROTO and an error naming the message, the field and
 * the limit, so a hostile or buggy peer cannot make a daemon keep (or put
 * in every reply) more than this per field, whatever the body size:
 *   names (job, user, partition, node, state, reason, cluster):
 *                                              PROTO_MAX_NAME bytes
 *   paths (cwd):                               PROTO_MAX_PATH
 *   argv and env: each string PROTO_MAX_ARG (execve's MAX_ARG_STRLEN),
 *                 at most PROTO_MAX_ARGS strings
 *   credentials and node lists:                PROTO_MAX_LONG_STR
 *   any other string:                          PROTO_MAX_STR
 *   any other list:                            PROTO_MAX_LIST elements
 *   a STEP_MESH payload:                       PROTO_MAX_PAYLOAD bytes
 *   a batch script:                            PROTO_MAX_SCRIPT bytes
 *   output paths (std_out, std_err, std_in):   PROTO_MAX_PATH
 * The table is in proto.c (field_limits), by field name. */
#define PROTO_MAX_NAME 1024u
#define PROTO_MAX_PATH 4096u
#define PROTO_MAX_ARG (128u << 10)
#define PROTO_MAX_ARGS 65536u
#define PROTO_MAX_STR (64u << 10)
#define PROTO_MAX_LONG_STR (1u << 20)
#define PROTO_MAX_LIST (1u << 20)
#define PROTO_MAX_PAYLOAD (PROTO_MAX_BODY - (64u << 10))
#define PROTO_MAX_SCRIPT (4u << 20)

/* JOB_ALLOC's warn_signal with "B:" (sbatch --signal=B:SIG@TIME): a flag
 * bit beside the signal number, so that the kept requests of older
 * releases still decode. */
#define WARN_SIGNAL_BATCH 0x100
/* STEP_KILL's and STEP_SIGNAL's signal with this bit: the step's first
 * task's own process alone, not its children (scancel -b, --signal=B:
 * reach the batch shell, not the commands it runs). */
#define SIGNAL_LEADER_ONLY 0x100
#define STDIN_ALL (-1)  /* stdin to every task (srun's default) */
#define STDIN_NONE (-2) /* --input=none */

enum frame_flags {
    FRAME_F_RESPONSE = 1, /* an answer to the request of the same tag */
};

/* Field declarations for the generated structs. */
#define PROTO_DECL_BOOL(n) bool n;
#define PROTO_DECL_I32(n) int32_t n;
#define PROTO_DECL_U32(n) uint32_t n;
#define PROTO_DECL_U64(n) uint64_t n;
#define PROTO_DECL_STR(n) char *n;
#define PROTO_DECL_BIN(n) \
    char *n;              \
    uint32_t n##_len;
#define PROTO_DECL_STRLIST(n) \
    char **n;                 \
    uint32_t n##_count;
#define PROTO_DECL_U32LIST(n) \
    uint32_t *n;              \
    uint32_t n##_count;
#define PROTO_DECL_I32LIST(n) \
    int32_t *n;               \
    uint32_t n##_count;
#define PROTO_DECL_BINLIST(n) \
    struct proto_bin *n;      \
    uint32_t n##_count;

/* Entry i of list field f of reply r, read within the list's own count:
 * a peer of an older minor version sends fewer lists (they decode empty),
 * so what is missing reads as 0 or "" (also for a NULL string). */
#define PROTO_NUM(r, f, i) ((i) < (r)->f##_count ? (r)->f[i] : 0)
#define PROTO_STR(r, f, i) ((i) < (r)->f##_count && (r)->f[i] ? (r)->f[i] : "")

/* One element of a BINLIST field: opaque bytes (usually another
 * message's encoding, a record). Decoded data has a spare NUL after len. */
struct proto_bin {
    char *data;
    uint32_t len;
};

enum msg_type {
#define F(t, n)
#define MSG(id, UP, low, fields) MSG_##UP = id,
#include "proto_msgs.def"
#undef MSG
#undef F
};

#define F(t, n) PROTO_DECL_##t (n)
#define MSG(id, UP, low, fields) \
    struct msg_##low {           \
        fields                   \
    };
#include "proto_msgs.def"
#undef MSG
#undef F

union msg_any {
#define F(t, n)
#define MSG(id, UP, low, fields) struct msg_##low low;
#include "proto_msgs.def"
#undef MSG
#undef F
};

/* Free n elements of a BINLIST and the list. */
void proto_bins_free (struct proto_bin *v, size_t n);

/* "LAUNCH", or NULL for an unknown type. */
const char *proto_msg_name (int type);
bool proto_msg_known (int type);

/* Encode 'msg' (a struct msg_<type>) as a msgpack body. On success *buf is
 * malloc'd (caller frees) and *len set. -1 with errno EINVAL for an unknown
 * type, ENOMEM. */
int proto_encode (int type, const void *msg, char **buf, size_t *len);
/* The same, leaving out every field that holds nothing (false, 0, NULL or
 * "", no elements): for records read back with proto_decode_sparse only
 * (the job records of JOB_INFO answers and of accounting, 2.12), where
 * most of a record's fields are zero. */
int proto_encode_sparse (int type, const void *msg, char **buf, size_t *len);

/* Free what proto_decode() or the caller put in 'msg' and zero it. Every
 * pointer field must be NULL or malloc'd. */
void proto_clear (int type, void *msg);

/* Deep copy of 'src' into 'dst' (zeroed first). -1 with errno ENOMEM. */
int proto_copy (int type, const void *src, void *dst);

/* Move every list entry of 'src' to the end of the same list of 'dst'
 * (pages of one listing into one answer); src's lists are left empty,
 * other fields of both untouched. 0, or -1 with errno ENOMEM, EOVERFLOW
 * or EINVAL, both messages unchanged. */
int proto_append (int type, void *dst, void *src);

/* The decoder (proto_decode.c, the one reader of untrusted bytes) and the
 * frame header (frame.c) are modules of their own, with their own
 * headers; they come with this one so that a file speaking the protocol
 * needs one include. */
#include "frame.h"
#include "proto_decode.h"

#endif
