/* featspec.c - node feature constraints (-C/--constraint); see featspec.h.
 *
 * A recursive-descent parser over a bounded expression (its length, its
 * names, their count and the depth of parentheses are capped, so that
 * what a user submits costs little to parse and to check against each
 * node). The tree is kept as an array of nodes that refer to each other
 * by index.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "featspec.h"

struct parser {
    const char *s, *p;
    struct featspec *f;
    int depth;
    bool in_bracket;
    arbor_error_t *err;
};

/* The error names the expression when it is short enough to read. */
static int fail (struct parser *x, const char *what)
{
    size_t at = (size_t)(x->p - x->s) + 1;

    errno = EINVAL;
    if (strlen (x->s) > 60)
        return errprintf (x->err, "invalid constraint: %s at position %zu",
                          what, at);
    return errprintf (x->err, "invalid constraint \"%s\": %s at position %zu",
                      x->s, what, at);
}

static int add (struct parser *x, struct featspec_node n)
{
    struct featspec *f = x->f;
    struct featspec_node *v;

    if (f->n >= 2 * FEATSPEC_TERMS_MAX) {
        free (n.name);
        return fail (x, "too many features");
    }
    if (!(v = realloc (f->v, (f->n + 1) * sizeof (*v)))) {
        free (n.name);
        return errprintf (x->err, "out of memory");
    }
    f->v = v;
    f->v[f->n] = n;
    return (int)f->n++;
}

static bool name_char (char c)
{
    return isalnum ((unsigned char)c) || c == '_' || c == '.' || c == ':'
           || c == '-';
}

/* NAME ['*' COUNT] */
static int parse_name (struct parser *x)
{
    const char *start = x->p;
    struct featspec_node n = { .kind = FEAT_NAME, .left = -1, .right = -1 };

    while (name_char (*x->p))
        x->p++;
    if (x->p == start)
        return fail (x, "a feature name expected");
    size_t len = (size_t)(x->p - start);

    if (len > FEATSPEC_NAME_MAX)
        return fail (x, "feature name too long");
    if (*x->p == '*') {
        char *end;
        unsigned long c;
        x->p++;
        errno = 0;
        c = isdigit ((unsigned char)*x->p) ? strtoul (x->p, &end, 10) : 0;
        if (c == 0 || errno || c > FEATSPEC_COUNT_MAX)
            return fail (x, "a node count (1 to 100000) expected");
        n.count = (uint32_t)c;
        x->p = end;
    }
    if (!(n.name = strndup (start, len)))
        return errprintf (x->err, "out of memory");
    return add (x, n);
}

static int parse_or (struct parser *x);

/* '(' expr ')' | '[' expr ']' | NAME */
static int parse_factor (struct parser *x)
{
    char open = *x->p, close = open == '(' ? ')' : ']';
    int inner;

    if (open != '(' && open != '[')
        return parse_name (x);
    if (x->in_bracket)
        return fail (x, "no parentheses or brackets inside brackets");
    if (++x->depth > FEATSPEC_DEPTH_MAX)
        return fail (x, "parentheses nested too deep");
    x->p++;
    x->in_bracket = open == '[';
    inner = parse_or (x);
    x->in_bracket = false;
    x->depth--;
    if (inner < 0)
        return -1;
    if (*x->p != close)
        return fail (x, open == '(' ? "')' expected" : "']' expected");
    x->p++;
    if (open == '(')
        return inner;
    return add (x, (struct featspec_node){
                       .kind = FEAT_MATCH, .left = inner, .right = -1 });
}

/* One level of binary operator 'op' over 'sub'. */
static int parse_binary (struct parser *x, char op, enum featspec_kind kind,
                         int (*sub) (struct parser *))
{
    int left = sub (x);

    while (left >= 0 && *x->p == op) {
        int right;
        x->p++;
        if ((right = sub (x)) < 0)
            return -1;
        left = add (x, (struct featspec_node){
                           .kind = kind, .left = left, .right = right });
    }
    return left;
}

static int parse_and (struct parser *x)
{
    return parse_binary (x, '&', FEAT_AND, parse_factor);
}

static int parse_or (struct parser *x)
{
    return parse_binary (x, '|', FEAT_OR, parse_and);
}

/* What a bracket may hold: names joined by '|' without counts (matching
 * OR), or names joined by '&' each with a count (multiple counts). */
static bool bracket_ok (const struct featspec *f, int i, enum featspec_kind op)
{
    const struct featspec_node *n = &f->v[i];

    if (n->kind == FEAT_NAME)
        return op == FEAT_OR ? n->count == 0 : n->count > 0;
    return n->kind == op && bracket_ok (f, n->left, op)
           && bracket_ok (f, n->right, op);
}

static int check_brackets (struct parser *x)
{
    for (size_t i = 0; i < x->f->n; i++) {
        const struct featspec_node *n = &x->f->v[i];
        if (n->kind != FEAT_MATCH)
            continue;
        if (!bracket_ok (x->f, n->left, FEAT_OR)
            && !bracket_ok (x->f, n->left, FEAT_AND))
            return fail (x, "brackets hold a matching OR (a|b) or node "
                            "counts (a*2&b*1)");
    }
    return 0;
}

int featspec_parse (const char *s, struct featspec *out, arbor_error_t *err)
{
    struct parser x = {
        .s = s ? s : "", .p = s ? s : "", .f = out, .err = err
    };

    memset (out, 0, sizeof (*out));
    out->root = -1;
    if (strlen (x.s) > FEATSPEC_LEN_MAX) {
        errno = EINVAL;
        return errprintf (err, "invalid constraint: longer than %d bytes",
                          FEATSPEC_LEN_MAX);
    }
    if (!*x.s)
        return 0;
    if ((out->root = parse_or (&x)) < 0
        || (*x.p
            && fail (&x, "'&' or '|' "
                         "expected")
                   < 0)
        || check_brackets (&x) < 0) {
        int e = errno;
        featspec_clear (out);
        errno = e;
        return -1;
    }
    return 0;
}

void featspec_clear (struct featspec *f)
{
    for (size_t i = 0; f && i < f->n; i++)
        free (f->v[i].name);
    if (f) {
        free (f->v);
        f->v = NULL;
        f->n = 0;
        f->root = -1;
    }
}

int featspec_copy (struct featspec *dst, const struct featspec *src)
{
    memset (dst, 0, sizeof (*dst));
    dst->root = -1;
    if (!src->n)
        return 0;
    if (!(dst->v = calloc (src->n, sizeof (*dst->v)))) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < src->n; i++, dst->n++) {
        dst->v[i] = src->v[i];
        if (src->v[i].name && !(dst->v[i].name = strdup (src->v[i].name))) {
            featspec_clear (dst);
            errno = ENOMEM;
            return -1;
        }
    }
    dst->root = src->root;
    return 0;
}

int featspec_list_check (const char *list, size_t *count, arbor_error_t *err)
{
    size_t len = 0, n = 0;

    errno = EINVAL;
    for (const char *c = list;; c++) {
        if (*c != ',' && *c) {
            if (!name_char (*c))
                return errprintf (
                    err, "'%.60s': '%c' cannot be in a feature name", list, *c);
            len++;
            continue;
        }
        if (!len)
            return errprintf (err, "'%.60s': an empty feature name", list);
        if (len > FEATSPEC_NAME_MAX)
            return errprintf (err, "'%.60s': a name longer than %d bytes", list,
                              FEATSPEC_NAME_MAX);
        if (++n > FEATSPEC_NODE_MAX)
            return errprintf (err, "more than %d features", FEATSPEC_NODE_MAX);
        if (!*c)
            break;
        len = 0;
    }
    if (count)
        *count = n;
    return 0;
}

static bool has (const char *name, const char *const *feats, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (feats[i] && !strcmp (feats[i], name))
            return true;
    return false;
}

/* Node i's expression over one node's features; inside a bracket, any
 * feature it names will do. */
static bool eval (const struct featspec *f, int i, bool bracket,
                  const char *const *feats, size_t n)
{
    const struct featspec_node *v = &f->v[i];

    switch (v->kind) {
    case FEAT_NAME:
        if (v->count && !bracket)
            return true; /* the job's other nodes may have anything */
        return has (v->name, feats, n);
    case FEAT_AND:
        if (bracket)
            return eval (f, v->left, true, feats, n)
                   || eval (f, v->right, true, feats, n);
        return eval (f, v->left, false, feats, n)
               && eval (f, v->right, false, feats, n);
    case FEAT_OR:
        return eval (f, v->left, bracket, feats, n)
               || eval (f, v->right, bracket, feats, n);
    case FEAT_MATCH: return eval (f, v->left, true, feats, n);
    }
    return false;
}

bool featspec_node_ok (const struct featspec *f, const char *const *feats,
                       size_t n)
{
    return f->root < 0 || eval (f, f->root, false, feats, n);
}

/* Append node i's text to *out (an open_memstream). An operand of '&'
 * that is an '|' gets parentheses. */
static void text (const struct featspec *f, int i, FILE *out)
{
    const struct featspec_node *v = &f->v[i];

    switch (v->kind) {
    case FEAT_NAME:
        fputs (v->name, out);
        if (v->count)
            fprintf (out, "*%u", v->count);
        return;
    case FEAT_MATCH:
        fputc ('[', out);
        text (f, v->left, out);
        fputc (']', out);
        return;
    case FEAT_AND:
    case FEAT_OR:
        for (int side = 0; side < 2; side++) {
            int k = side ? v->right : v->left;
            bool paren = v->kind == FEAT_AND && f->v[k].kind == FEAT_OR;
            if (side)
                fputc (v->kind == FEAT_AND ? '&' : '|', out);
            if (paren)
                fputc ('(', out);
            text (f, k, out);
            if (paren)
                fputc (')', out);
        }
        return;
    }
}

char *featspec_text (const struct featspec *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);

    if (!out)
        return NULL;
    if (f->root >= 0)
        text (f, f->root, out);
    if (fclose (out) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}
