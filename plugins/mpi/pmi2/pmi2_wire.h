/* pmi2_wire.h - the PMI-1 and PMI-2 wire commands: framing, parsing and
 * formatting, pure (no I/O, no allocation), so that the parser can be
 * unit-tested and fuzzed on its own.
 *
 * Both protocols run over the task's PMI_FD (a socketpair with the stepd).
 * Every client opens with a PMI-1 line, "cmd=init pmi_version=V
 * pmi_subversion=S\n"; the answer "cmd=response_to_init ... rc=0\n" fixes
 * the protocol of the rest of the connection:
 *   PMI-1 (V = 1)  one command a line: "cmd=NAME key=value ...\n", pairs
 *                  separated by spaces, so no value holds a space; the
 *                  spawn command is several lines "mcmd=spawn\n...endcmd\n".
 *   PMI-2 (V = 2)  a 6-byte decimal length, left-justified and padded with
 *                  spaces ("%-6d"), then that many bytes
 *                  "cmd=NAME;key=value;...;", a ';' inside a value doubled.
 * Answers are formatted the same way (pmi_resp_*).
 */
#ifndef ARBOR_MPI_PMI2_WIRE_H
#define ARBOR_MPI_PMI2_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* The protocol a connection speaks: PMI_PROTO_NONE until its init, which
 * is framed as PMI-1. */
enum pmi_proto {
    PMI_PROTO_NONE = 0,
    PMI_PROTO_1 = 1,
    PMI_PROTO_2 = 2,
};

/* Limits, those of MPICH's Hydra (pmi_common.h) and Slurm's mpi/pmi2, so
 * that clients that size their buffers after them fit what we send. */
#define PMI_MAX_KEYLEN 64     /* bytes of a KVS key */
#define PMI_MAX_VALLEN 1024   /* bytes of a KVS value */
#define PMI_MAX_KVSNAME 256   /* bytes of a KVS name */
#define PMI_WIRE_MAX_CMD 4096 /* bytes of a command, its framing included */
#define PMI_WIRE_MAX_PAIRS 64 /* pairs of a command, cmd= included */
#define PMI_WIRE_HDR 6        /* PMI-2 length prefix */

struct pmi_pair {
    const char *key;
    const char *val;
};

/* A parsed command. Every string points into buf (NUL-terminated,
 * unescaped copies): valid while the struct is. */
struct pmi_cmd {
    const char *name; /* value of cmd= (or mcmd=) */
    bool mcmd;        /* PMI-1 multi-line spawn command */
    size_t npairs;    /* pairs after the name */
    struct pmi_pair pairs[PMI_WIRE_MAX_PAIRS];
    char buf[PMI_WIRE_MAX_CMD + 1];
};

/* Length of the first complete command in data[0..len), framing
 * included; 0 if more bytes are needed; -1 with errno EPROTO (bad
 * framing: a PMI-2 length that is not a number, or is 0) or EMSGSIZE (a
 * command longer than PMI_WIRE_MAX_CMD). After -1 the stream cannot be
 * resynchronised. */
ssize_t pmi_wire_frame (enum pmi_proto proto, const char *data, size_t len);

/* Parse one command as framed by pmi_wire_frame (data[0..len), len its
 * return) into *c. 0, or -1 with errno EPROTO and err saying what is
 * wrong: no cmd= first, a pair without '=', an empty key, a NUL byte,
 * too many pairs, or (PMI-2) a header that does not match len. */
int pmi_wire_parse (enum pmi_proto proto, const char *data, size_t len,
                    struct pmi_cmd *c, arbor_error_t *err);

/* Value of the first pair named key (not cmd), or NULL. Borrowed from c. */
const char *pmi_cmd_get (const struct pmi_cmd *c, const char *key);

/* An answer being formatted:
 *   pmi_resp_init (&r, proto, "get_result");
 *   pmi_resp_add (&r, "rc", "0");
 *   if (pmi_resp_end (&r) == 0) send (r.buf, r.len);
 * Errors stick until pmi_resp_end, which reports them. */
struct pmi_resp {
    enum pmi_proto proto;
    size_t len;
    int error;                      /* first errno met, 0 if none */
    char buf[PMI_WIRE_MAX_CMD + 1]; /* framing included, NUL-terminated */
};

/* Start an answer named cmd (PMI_PROTO_NONE formats as PMI-1). */
void pmi_resp_init (struct pmi_resp *r, enum pmi_proto proto, const char *cmd);

/* Append key=val. PMI-1 refuses (EINVAL) a key or value with a space,
 * '=' in the key or a newline; PMI-2 escapes ';' in values and refuses
 * ';' or '=' in keys. EMSGSIZE when the answer, framing included, would
 * pass PMI_WIRE_MAX_CMD bytes. */
void pmi_resp_add (struct pmi_resp *r, const char *key, const char *val);

/* As pmi_resp_add with a number. */
void pmi_resp_addint (struct pmi_resp *r, const char *key, long long val);

/* As pmi_resp_add for human text (an error message): what the protocol
 * cannot carry (spaces in PMI-1, control bytes) becomes '_', and it is
 * cut to fit. */
void pmi_resp_addtext (struct pmi_resp *r, const char *key, const char *text);

/* Finish: the newline (PMI-1) or the length prefix (PMI-2). 0 with
 * r->buf, r->len ready to send; -1 with errno (r->error) if any step
 * failed. */
int pmi_resp_end (struct pmi_resp *r);

/* PMI_process_mapping of a block layout (node i runs tasks[i] ranks, in
 * node order) in MPICH's vector form: runs of consecutive nodes with as
 * many tasks each, "(vector,(first node,nodes,tasks per node),...)", e.g.
 * "(vector,(0,4,2))" for 4 nodes of 2 tasks. Written to buf (size bytes,
 * NUL-terminated): 0, or -1 with errno EMSGSIZE if it does not fit, or
 * EINVAL if nnodes is 0. */
int pmi_wire_mapping (char *buf, size_t size, const uint32_t *tasks,
                      uint32_t nnodes);

/* The same for any placement (srun -m): node i runs tasks[i] ranks, listed
 * node by node in ranks[] (NULL: block, as pmi_wire_mapping). Walking the
 * ranks in order, each tuple says that 'nodes' consecutive nodes from
 * 'first node' take 'tasks per node' consecutive ranks each; MPICH repeats
 * the vector until every rank has a node, so a list that is one pattern
 * repeated is written once: cyclic over 2 nodes, "(vector,(0,2,1))";
 * plane=2 over 2 nodes, "(vector,(0,2,2))". Errors as pmi_wire_mapping's,
 * or ENOMEM. */
int pmi_wire_mapping_ranks (char *buf, size_t size, const uint32_t *tasks,
                            uint32_t nnodes, const uint32_t *ranks);

#endif
