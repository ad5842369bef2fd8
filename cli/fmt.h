/* fmt.h - squeue's and sinfo's output formats: "%.18i %9P" and
 * "JobID:.10,Name".
 *
 * A command describes its fields in a table (struct fmt_def: the -o
 * letter, the -O name, the header) and renders a field's value itself;
 * this module parses a format into items and lays rows out:
 *
 *   -o "%[.][size]letter"  each field where it stands, the text between
 *                          fields kept as written ("%%" is a '%'); with
 *                          a size the value is padded to it, and cut to
 *                          it when longer; '.' right-justifies; without
 *                          a size it takes the room it needs
 *   -O "name[:[.][size]]"  comma-separated names, any case; each field is
 *                          padded (or cut) to its size, 20 by default,
 *                          and followed by nothing: the size is the
 *                          column's room, separator included
 *
 * An unknown letter or name is an error naming it. Pure functions: the
 * unit test is cli/test/fmt_test.c.
 */
#ifndef ARBOR_CLI_FMT_H
#define ARBOR_CLI_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

#define FMT_LONG_WIDTH 20 /* -O's size when none is given */

struct fmt_def {
    int id;             /* the command's field id, >= 0 */
    char letter;        /* -o's letter; 0: none */
    const char *name;   /* -O's name; NULL: none */
    const char *header; /* the column's title */
};

struct fmt_item {
    int id;     /* a field's id, or -1 for literal text */
    char *text; /* the literal text, or the field's header */
    int width;  /* -1: as wide as the value */
    bool right; /* '.': right-justified */
};

struct fmt {
    struct fmt_item *v;
    size_t n;
};

/* Parse a -o format / a -O list over the 'defs' table. 0, or -1 with
 * errno EINVAL ("invalid field '%Z' in format" style message in err) or
 * ENOMEM; 'out' is empty then. */
int fmt_parse (const char *spec, const struct fmt_def *defs, size_t ndefs,
               struct fmt *out, arbor_error_t *err);
int fmt_parse_long (const char *spec, const struct fmt_def *defs, size_t ndefs,
                    struct fmt *out, arbor_error_t *err);
void fmt_free (struct fmt *f);
/* Is field 'id' in the format? (what to ask the controller for) */
bool fmt_has (const struct fmt *f, int id);

/* A field's value for one row, into buf (or a constant string). */
typedef const char *(*fmt_value_fn) (int id, const void *row, char *buf,
                                     size_t len);

/* The header line, or one row's line, with its newline. */
void fmt_print_header (FILE *out, const struct fmt *f);
void fmt_print_row (FILE *out, const struct fmt *f, fmt_value_fn value,
                    const void *row);

#endif
