/* node_features.c - a node's features; see node_features.h. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "featspec.h"
#include "nodes/node.h"
#include "nodes/node_features.h"

/* The names of 'text' (checked) as an array pointing into 'copy'. */
static char **features_split (char *copy, size_t n)
{
    char **v = calloc (n, sizeof (*v));
    char *save = NULL;
    size_t i = 0;

    if (!v)
        return NULL;
    for (char *t = strtok_r (copy, ",", &save); t && i < n;
         t = strtok_r (NULL, ",", &save))
        v[i++] = t;
    return v;
}

int node_features_set (struct node *n, const char *text, arbor_error_t *err)
{
    char *shown = NULL, *copy = NULL, **v = NULL;
    size_t count = 0;

    if (text && *text) {
        arbor_error_t e;
        if (featspec_list_check (text, &count, &e) < 0)
            return errprintf (err, "invalid features %s", e.text);
        if (!(shown = strdup (text)) || !(copy = strdup (text))
            || !(v = features_split (copy, count))) {
            free (shown);
            free (copy);
            errno = ENOMEM;
            return errprintf (err, "out of memory");
        }
    }
    node_features_clear (n);
    n->features = shown;
    n->feat_buf = copy;
    n->feat = v;
    n->nfeat = count;
    return 0;
}

void node_features_clear (struct node *n)
{
    free (n->features);
    free (n->feat_buf);
    free (n->feat);
    n->features = NULL;
    n->feat_buf = NULL;
    n->feat = NULL;
    n->nfeat = 0;
}

bool node_has_feature (const struct node *n, const char *name)
{
    for (size_t i = 0; i < n->nfeat; i++)
        if (!strcmp (n->feat[i], name))
            return true;
    return false;
}
