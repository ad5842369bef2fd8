/* featspec.h - node feature constraints (-C/--constraint), in Slurm's
 * syntax (issue 35): what the commands' -C takes, and what the controller
 * checks nodes against (ctld/sched/constraint.h).
 *
 *   a          nodes with feature a
 *   a&b        nodes with both;  a|b  nodes with either (each on its own)
 *   (a|b)&c    grouping
 *   [a|b]      matching OR: every node of the job has the same one of them
 *   [a*2&b*1]  multiple counts: two nodes with a and one with b
 *   a*4        four of the job's nodes have a
 *
 * A feature name is letters, digits and "_.:-" (at most FEATSPEC_NAME_MAX
 * bytes). Brackets hold only a matching OR of names, or an AND of names
 * each with a count, as Slurm's documentation says; they do not nest.
 */
#ifndef ARBOR_FEATSPEC_H
#define ARBOR_FEATSPEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define FEATSPEC_LEN_MAX 1024 /* bytes of an expression */
#define FEATSPEC_NAME_MAX 64  /* bytes of a feature name */
#define FEATSPEC_TERMS_MAX 64 /* features named in one expression */
#define FEATSPEC_DEPTH_MAX 16 /* parentheses within parentheses */
#define FEATSPEC_COUNT_MAX 100000
#define FEATSPEC_NODE_MAX 64 /* features of one node (Features=) */

enum featspec_kind {
    FEAT_NAME,  /* name, count (0: none given) */
    FEAT_AND,   /* left & right */
    FEAT_OR,    /* left | right */
    FEAT_MATCH, /* [ ... ]: one bracket, its expression in 'left' */
};

struct featspec_node {
    enum featspec_kind kind;
    char *name;     /* FEAT_NAME */
    uint32_t count; /* FEAT_NAME: *count, 0 none */
    int left, right;
};

struct featspec {
    struct featspec_node *v;
    size_t n;
    int root; /* -1: empty */
};

/* Parse 's' into *out. 0, or -1 with errno EINVAL (and err saying what
 * and where, as "invalid constraint \"a&&b\": a feature name expected at
 * position 3") or ENOMEM; *out is then empty. */
int featspec_parse (const char *s, struct featspec *out, arbor_error_t *err);
void featspec_clear (struct featspec *f);
/* A node's feature list, as Features= and AvailableFeatures= write it
 * ("a100,ib"): names as an expression's (at most FEATSPEC_NAME_MAX
 * bytes), at most FEATSPEC_NODE_MAX of them. 0 with *count (NULL: not
 * wanted), or -1 with errno EINVAL and err ("'a,,b': an empty feature
 * name"). */
int featspec_list_check (const char *list, size_t *count, arbor_error_t *err);
/* A deep copy of 'src' into *dst. 0, or -1 with errno ENOMEM (*dst then
 * empty). */
int featspec_copy (struct featspec *dst, const struct featspec *src);
/* Can a node with features 'feats' (n of them) be one of the job's? For
 * an expression without brackets or counts, whether it satisfies it;
 * with them, whether it has a feature the bracket or count names (the
 * counts are the selection's to meet over the job's nodes). */
bool featspec_node_ok (const struct featspec *f, const char *const *feats,
                       size_t n);
/* The expression as text, from the parse (spaces gone, parentheses
 * where needed): malloc'd, NULL on ENOMEM. "" for an empty one. */
char *featspec_text (const struct featspec *f);

#endif
