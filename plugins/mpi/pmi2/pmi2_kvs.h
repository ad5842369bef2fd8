/* pmi2_kvs.h - the key-value space of a step's PMI clients, and the batch
 * of pairs a node contributes to a fence.
 *
 * A put is not visible until the next fence (PMI's rule, as in Slurm's
 * mpi/pmi2): it goes into this node's batch. When every local task has
 * entered the fence, the batch is sealed into the node's contribution to
 * the step's all-gather; the gathered round, every node's contribution
 * concatenated, is merged into each node's KVS.
 *
 * A contribution is big-endian: [u32 n][n bytes of pairs], each pair
 * [u32 klen][u32 vlen][key][value], no NUL bytes, keys 1..PMI_MAX_KEYLEN
 * and values 0..PMI_MAX_VALLEN bytes.
 */
#ifndef ARBOR_MPI_PMI2_KVS_H
#define ARBOR_MPI_PMI2_KVS_H

#include <stddef.h>
#include <stdint.h>

struct pmi_kvs;

/* An empty KVS holding at most max_bytes of keys and values. NULL with
 * errno ENOMEM. Free with pmi_kvs_destroy (NULL accepted, keeps errno). */
struct pmi_kvs *pmi_kvs_create (size_t max_bytes);
void pmi_kvs_destroy (struct pmi_kvs *k);

/* Set key to val (both copied), replacing an older value. 0, or -1 with
 * errno EINVAL (key empty or longer than PMI_MAX_KEYLEN, value longer
 * than PMI_MAX_VALLEN), ENOSPC (past max_bytes), ENOMEM. No side
 * effects on failure. */
int pmi_kvs_put (struct pmi_kvs *k, const char *key, const char *val);

/* The value of key, or NULL. Valid until key is put again or k is
 * destroyed. */
const char *pmi_kvs_get (const struct pmi_kvs *k, const char *key);

/* Number of keys. */
size_t pmi_kvs_count (const struct pmi_kvs *k);

/* Merge a gathered round: contributions concatenated. The whole round
 * is checked first: -1 with errno EPROTO if it is malformed, and then
 * nothing was merged; -1 with ENOSPC or ENOMEM if the KVS could not hold
 * it all (part may be merged). 0 on success, *nodes the number of
 * contributions (may be NULL). */
int pmi_kvs_merge (struct pmi_kvs *k, const void *data, size_t len,
                   size_t *nodes);

/* This node's pairs since the last fence. */
struct pmi_batch {
    char *data; /* 4 bytes kept for the header, then the pairs */
    size_t len, cap, max;
    size_t npairs;
};

/* An empty batch of at most max bytes. */
void pmi_batch_init (struct pmi_batch *b, size_t max);

/* Append key=val. 0, or -1 with errno EINVAL (as pmi_kvs_put), EMSGSIZE
 * (past max), ENOMEM. No side effects on failure. */
int pmi_batch_add (struct pmi_batch *b, const char *key, const char *val);

/* The contribution (header filled in), *len its size; NULL with errno
 * ENOMEM. Valid until the next add, reset or free. */
const void *pmi_batch_seal (struct pmi_batch *b, size_t *len);

/* Empty the batch (after it was contributed); free its memory. */
void pmi_batch_reset (struct pmi_batch *b);
void pmi_batch_free (struct pmi_batch *b);

#endif
