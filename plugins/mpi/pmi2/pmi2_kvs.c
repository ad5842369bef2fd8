/* pmi2_kvs.c - the key-value space (a chained hash table that grows) and
 * the fence batches (see pmi2_kvs.h). Pure: no I/O, allocation only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmi2_kvs.h"
#include "pmi2_wire.h"

struct kvs_entry {
    struct kvs_entry *next;
    char *val;  /* owned */
    char key[]; /* NUL-terminated */
};

struct pmi_kvs {
    struct kvs_entry **slots;
    size_t nslots, count, bytes, max_bytes;
};

#define KVS_FIRST_SLOTS 64

static uint32_t kvs_hash (const char *key)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (; *key; key++)
        h = (h ^ (unsigned char)*key) * 16777619u;
    return h;
}

struct pmi_kvs *pmi_kvs_create (size_t max_bytes)
{
    struct pmi_kvs *k = calloc (1, sizeof (*k));

    if (!k || !(k->slots = calloc (KVS_FIRST_SLOTS, sizeof (*k->slots)))) {
        free (k);
        errno = ENOMEM;
        return NULL;
    }
    k->nslots = KVS_FIRST_SLOTS;
    k->max_bytes = max_bytes;
    return k;
}

void pmi_kvs_destroy (struct pmi_kvs *k)
{
    int e = errno;

    if (!k)
        return;
    for (size_t i = 0; i < k->nslots; i++)
        while (k->slots[i]) {
            struct kvs_entry *en = k->slots[i];
            k->slots[i] = en->next;
            free (en->val);
            free (en);
        }
    free (k->slots);
    free (k);
    errno = e;
}

static struct kvs_entry *kvs_find (const struct pmi_kvs *k, const char *key)
{
    struct kvs_entry *en = k->slots[kvs_hash (key) & (k->nslots - 1)];

    for (; en; en = en->next)
        if (!strcmp (en->key, key))
            return en;
    return NULL;
}

/* Double the table when it holds more keys than slots; a failure to grow
 * only costs speed. */
static void kvs_grow (struct pmi_kvs *k)
{
    size_t n = k->nslots * 2;
    struct kvs_entry **slots;

    if (k->count < k->nslots || !(slots = calloc (n, sizeof (*slots))))
        return;
    for (size_t i = 0; i < k->nslots; i++)
        while (k->slots[i]) {
            struct kvs_entry *en = k->slots[i];
            size_t j = kvs_hash (en->key) & (n - 1);
            k->slots[i] = en->next;
            en->next = slots[j];
            slots[j] = en;
        }
    free (k->slots);
    k->slots = slots;
    k->nslots = n;
}

static bool kvs_pair_ok (const char *key, size_t klen, size_t vlen)
{
    return klen > 0 && klen <= PMI_MAX_KEYLEN && vlen <= PMI_MAX_VALLEN
           && key[0] != '\0';
}

int pmi_kvs_put (struct pmi_kvs *k, const char *key, const char *val)
{
    size_t klen = strlen (key), vlen = strlen (val);
    struct kvs_entry *en = kvs_find (k, key);
    size_t old = en ? strlen (en->val) : 0;
    size_t add = en ? vlen : klen + vlen;
    char *copy;

    if (!kvs_pair_ok (key, klen, vlen)) {
        errno = EINVAL;
        return -1;
    }
    if (k->bytes - old + add > k->max_bytes) {
        errno = ENOSPC;
        return -1;
    }
    if (!(copy = strdup (val))) {
        errno = ENOMEM;
        return -1;
    }
    if (!en) {
        size_t slot = kvs_hash (key) & (k->nslots - 1);
        if (!(en = malloc (sizeof (*en) + klen + 1))) {
            free (copy);
            errno = ENOMEM;
            return -1;
        }
        memcpy (en->key, key, klen + 1);
        en->val = NULL;
        en->next = k->slots[slot];
        k->slots[slot] = en;
        k->count++;
    }
    free (en->val);
    en->val = copy;
    k->bytes = k->bytes - old + add;
    kvs_grow (k);
    return 0;
}

const char *pmi_kvs_get (const struct pmi_kvs *k, const char *key)
{
    const struct kvs_entry *en = kvs_find (k, key);

    return en ? en->val : NULL;
}

size_t pmi_kvs_count (const struct pmi_kvs *k)
{
    return k->count;
}

/* ---- gathered rounds ----------------------------------------------------- */

static uint32_t get_u32 (const unsigned char *p)
{
    uint32_t v;

    memcpy (&v, p, 4);
    return ntohl (v);
}

/* Walk the pairs of one contribution, checking them; with k, put them.
 * 0, or -1 with errno. */
static int kvs_walk_pairs (struct pmi_kvs *k, const unsigned char *p,
                           size_t len)
{
    char key[PMI_MAX_KEYLEN + 1], val[PMI_MAX_VALLEN + 1];

    while (len > 0) {
        uint32_t klen, vlen;

        if (len < 8)
            goto bad;
        klen = get_u32 (p);
        vlen = get_u32 (p + 4);
        p += 8;
        len -= 8;
        if (klen == 0 || klen > PMI_MAX_KEYLEN || vlen > PMI_MAX_VALLEN
            || klen + vlen > len || memchr (p, '\0', klen + vlen))
            goto bad;
        memcpy (key, p, klen);
        key[klen] = '\0';
        memcpy (val, p + klen, vlen);
        val[vlen] = '\0';
        if (k && pmi_kvs_put (k, key, val) < 0)
            return -1;
        p += klen + vlen;
        len -= klen + vlen;
    }
    return 0;
bad:
    errno = EPROTO;
    return -1;
}

/* Walk the contributions of a round: check them all (k NULL) or merge. */
static int kvs_walk_round (struct pmi_kvs *k, const unsigned char *p,
                           size_t len, size_t *nodes)
{
    size_t n = 0;

    while (len > 0) {
        uint32_t blen;

        if (len < 4 || (blen = get_u32 (p)) > len - 4) {
            errno = EPROTO;
            return -1;
        }
        if (kvs_walk_pairs (k, p + 4, blen) < 0)
            return -1;
        p += 4 + blen;
        len -= 4 + blen;
        n++;
    }
    if (nodes)
        *nodes = n;
    return 0;
}

int pmi_kvs_merge (struct pmi_kvs *k, const void *data, size_t len,
                   size_t *nodes)
{
    if (len > 0 && !data) {
        errno = EINVAL;
        return -1;
    }
    if (kvs_walk_round (NULL, data, len, nodes) < 0)
        return -1;
    return kvs_walk_round (k, data, len, NULL);
}

/* ---- batches ------------------------------------------------------------- */

void pmi_batch_init (struct pmi_batch *b, size_t max)
{
    *b = (struct pmi_batch){ .max = max };
}

static int batch_reserve (struct pmi_batch *b, size_t need)
{
    size_t cap = b->cap ? b->cap : 256;
    char *d;

    if (need <= b->cap)
        return 0;
    while (cap < need)
        cap *= 2;
    if (!(d = realloc (b->data, cap))) {
        errno = ENOMEM;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    if (b->len == 0)
        b->len = 4; /* the header */
    return 0;
}

int pmi_batch_add (struct pmi_batch *b, const char *key, const char *val)
{
    size_t klen = strlen (key), vlen = strlen (val);
    size_t base = b->len ? b->len : 4, need = base + 8 + klen + vlen;
    uint32_t hdr[2] = { htonl ((uint32_t)klen), htonl ((uint32_t)vlen) };

    if (!kvs_pair_ok (key, klen, vlen)) {
        errno = EINVAL;
        return -1;
    }
    if (need - 4 > b->max) {
        errno = EMSGSIZE;
        return -1;
    }
    if (batch_reserve (b, need) < 0)
        return -1;
    memcpy (b->data + base, hdr, 8);
    memcpy (b->data + base + 8, key, klen);
    memcpy (b->data + base + 8 + klen, val, vlen);
    b->len = need;
    b->npairs++;
    return 0;
}

const void *pmi_batch_seal (struct pmi_batch *b, size_t *len)
{
    uint32_t n;

    if (batch_reserve (b, 4) < 0)
        return NULL;
    n = htonl ((uint32_t)(b->len - 4));
    memcpy (b->data, &n, 4);
    *len = b->len;
    return b->data;
}

void pmi_batch_reset (struct pmi_batch *b)
{
    pmi_batch_free (b);
}

void pmi_batch_free (struct pmi_batch *b)
{
    size_t max = b->max;

    free (b->data);
    pmi_batch_init (b, max);
}
