/* assoc_tree.c - the account tree as indices. See assoc_tree.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assoc/assoc_tree.h"

static int by_name (const void *pa, const void *pb, void *arg)
{
    const struct msg_assoc_rec *v = arg;

    return strcasecmp (v[*(const size_t *)pa].name,
                       v[*(const size_t *)pb].name);
}

/* The index of account 'name' (sorted: the accounts' indices by name),
 * or n. */
static size_t account_at (const struct assoc *a, const size_t *sorted,
                          const char *name)
{
    size_t lo = 0, hi = a->naccounts;

    while (name && lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcasecmp (a->accounts[sorted[mid]].name, name);
        if (c == 0)
            return sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return a->naccounts;
}

/* Counting sort of 'npairs' (owner, item) pairs into at[] / item[]:
 * each owner's items in the order they came. */
static int group (size_t nowners, const size_t *owner, const size_t *what,
                  size_t npairs, size_t **at, size_t **items)
{
    size_t *fill;

    *at = calloc (nowners + 2, sizeof (size_t));
    *items = calloc (npairs + 1, sizeof (size_t));
    fill = calloc (nowners + 1, sizeof (size_t));
    if (!*at || !*items || !fill) {
        free (fill);
        return -1;
    }
    for (size_t i = 0; i < npairs; i++)
        (*at)[owner[i] + 1]++;
    for (size_t o = 0; o < nowners; o++)
        (*at)[o + 1] += (*at)[o];
    for (size_t i = 0; i < npairs; i++)
        (*items)[(*at)[owner[i]] + fill[owner[i]]++] = what[i];
    free (fill);
    return 0;
}

/* The (account, item) pairs of sub-accounts (users false) or of users'
 * memberships, accounts that are none left out. */
static size_t pairs (const struct assoc *a, const size_t *sorted, bool users,
                     size_t *owner, size_t *what)
{
    size_t n = 0;

    if (!users) {
        for (size_t i = 0; i < a->naccounts; i++) {
            size_t p = account_at (a, sorted, a->accounts[i].parent);
            if (p < a->naccounts && p != i) {
                owner[n] = p;
                what[n++] = i;
            }
        }
        return n;
    }
    for (size_t u = 0; u < a->nusers; u++)
        for (uint32_t k = 0; k < a->users[u].accounts_count; k++) {
            size_t p = account_at (a, sorted, a->users[u].accounts[k]);
            if (p < a->naccounts) {
                owner[n] = p;
                what[n++] = u;
            }
        }
    return n;
}

int assoc_tree_build (const struct assoc *a, struct assoc_tree *t)
{
    size_t nm = a->naccounts, n;
    size_t *sorted = calloc (nm + 1, sizeof (size_t));
    size_t *owner = NULL, *what = NULL;
    int rc = -1;

    memset (t, 0, sizeof (*t));
    for (size_t u = 0; u < a->nusers; u++)
        nm += a->users[u].accounts_count;
    owner = calloc (nm + 1, sizeof (size_t));
    what = calloc (nm + 1, sizeof (size_t));
    if (!sorted || !owner || !what)
        goto out;
    for (size_t i = 0; i < a->naccounts; i++)
        sorted[i] = i;
    qsort_r (sorted, a->naccounts, sizeof (size_t), by_name, a->accounts);
    t->root = account_at (a, sorted, ASSOC_ROOT);
    n = pairs (a, sorted, false, owner, what);
    if (group (a->naccounts, owner, what, n, &t->child_at, &t->child) < 0)
        goto out;
    n = pairs (a, sorted, true, owner, what);
    if (group (a->naccounts, owner, what, n, &t->user_at, &t->user) < 0)
        goto out;
    rc = 0;
out:
    free (sorted);
    free (owner);
    free (what);
    if (rc < 0) {
        assoc_tree_free (t);
        errno = ENOMEM;
    }
    return rc;
}

void assoc_tree_free (struct assoc_tree *t)
{
    free (t->child_at);
    free (t->child);
    free (t->user_at);
    free (t->user);
    memset (t, 0, sizeof (*t));
}
