/* listen_tally.c - counts by key for the listener: a chained hash table
 * of 256 buckets (FNV-1a), an entry per key with a nonzero count. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "listen_tally.h"

#define TALLY_BUCKETS 256

struct tnode {
    struct tnode *next;
    unsigned n;
    char key[TALLY_KEY_MAX];
};

struct tally {
    struct tnode *b[TALLY_BUCKETS];
};

static unsigned bucket (const char *key)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; key[i] && i < TALLY_KEY_MAX - 1; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h % TALLY_BUCKETS;
}

static struct tnode **find (struct tally *t, const char *key)
{
    struct tnode **pp = &t->b[bucket (key)];

    while (*pp && strncmp ((*pp)->key, key, TALLY_KEY_MAX - 1) != 0)
        pp = &(*pp)->next;
    return pp;
}

struct tally *tally_create (void)
{
    return calloc (1, sizeof (struct tally));
}

void tally_destroy (struct tally *t)
{
    int saved = errno;

    if (!t)
        return;
    for (int i = 0; i < TALLY_BUCKETS; i++)
        while (t->b[i]) {
            struct tnode *n = t->b[i];
            t->b[i] = n->next;
            free (n);
        }
    free (t);
    errno = saved;
}

unsigned tally_get (const struct tally *t, const char *key)
{
    struct tnode **pp = find ((struct tally *)t, key);

    return *pp ? (*pp)->n : 0;
}

int tally_add (struct tally *t, const char *key)
{
    struct tnode **pp = find (t, key);

    if (!*pp) {
        if (!(*pp = calloc (1, sizeof (**pp)))) {
            errno = ENOMEM;
            return -1;
        }
        strncpy ((*pp)->key, key, TALLY_KEY_MAX - 1);
    }
    (*pp)->n++;
    return 0;
}

void tally_sub (struct tally *t, const char *key)
{
    struct tnode **pp = find (t, key);
    struct tnode *n = *pp;

    if (!n)
        return;
    if (--n->n == 0) {
        *pp = n->next;
        free (n);
    }
}

const char *tally_max (const struct tally *t)
{
    const struct tnode *best = NULL;

    for (int i = 0; i < TALLY_BUCKETS; i++)
        for (const struct tnode *n = t->b[i]; n; n = n->next)
            if (!best || n->n > best->n)
                best = n;
    return best ? best->key : NULL;
}
