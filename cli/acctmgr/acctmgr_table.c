/* acctmgr_table.c - sacctmgr show's table (acctmgr_table.h): the columns
 * chosen (format= or the entity's defaults) are resolved against the
 * reply's once, with their headers and widths, before anything is
 * printed, so that a bad format= prints nothing but its error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acctmgr_table.h"

#define ACCTMGR_WIDTH_DEFAULT 10
#define ACCTMGR_WIDTH_MAX 1024 /* %N beyond this is a typo, not a layout */

struct acctmgr_col {
    uint32_t index;     /* in the reply's columns */
    const char *header; /* borrowed: a const table's or the reply's */
    int width;
    bool left; /* %-N */
};

struct acctmgr_cols {
    struct acctmgr_col *v;
    size_t n;
};

static const struct acctmgr_known {
    const char *name, *header;
    int width;
} acctmgr_known[] = {
    { "Account", "Account", 10 },
    { "Descr", "Descr", 20 },
    { "Org", "Org", 20 },
    { "ParentName", "Par Name", 10 },
    { "Coordinators", "Coordinators", 20 },
    { "User", "User", 10 },
    { "DefaultAccount", "Def Acct", 10 },
    { "AdminLevel", "Admin", 9 },
    { "Cluster", "Cluster", 10 },
    { "ControlHost", "ControlHost", 15 },
    { "ControlPort", "ControlPort", 12 },
    { "RPC", "RPC", 5 },
    { "Partition", "Partition", 10 },
    { "Share", "Share", 9 },
    /* user and account rows (2.14) */
    { "QOS", "QOS", 20 },
    { "DefaultQOS", "Def QOS", 9 },
    /* qos rows (2.14) */
    { "Name", "Name", 10 },
    { "Priority", "Priority", 10 },
    { "GraceTime", "GraceTime", 10 },
    { "Preempt", "Preempt", 10 },
    { "PreemptMode", "PreemptMode", 11 },
    { "Flags", "Flags", 10 },
    { "UsageFactor", "UsageFactor", 11 },
    { "MaxWall", "MaxWall", 11 },
    { NULL, NULL, 0 },
};

static const struct acctmgr_default {
    const char *entity, *format;
} acctmgr_defaults[] = {
    { "account", "Account,Descr,Org" },
    { "user", "User,DefaultAccount,AdminLevel" },
    { "cluster", "Cluster,ControlHost,ControlPort,RPC" },
    { "association", "Cluster,Account,User,Partition,Share" },
    { "qos", "Name,Priority,GraceTime,Preempt,PreemptMode,Flags,UsageFactor,"
             "MaxWall" },
    { NULL, NULL },
};

/* The reply's column named name[0..len) in any case, or -1. */
static int acctmgr_find (const struct msg_assoc_reply *r, const char *name,
                         size_t len)
{
    for (uint32_t i = 0; i < r->columns_count; i++) {
        const char *c = r->columns[i] ? r->columns[i] : "";
        if (strlen (c) == len && !strncasecmp (c, name, len))
            return (int)i;
    }
    return -1;
}

/* Column 'index' of the reply with its header and default width. */
static struct acctmgr_col acctmgr_col_make (const struct msg_assoc_reply *r,
                                            uint32_t index)
{
    const char *name = r->columns[index] ? r->columns[index] : "";
    struct acctmgr_col col = { .index = index,
                               .header = name,
                               .width = ACCTMGR_WIDTH_DEFAULT };

    for (const struct acctmgr_known *k = acctmgr_known; k->name; k++) {
        if (!strcasecmp (k->name, name)) {
            col.header = k->header;
            col.width = k->width;
        }
    }
    return col;
}

/* "Unknown field 'xyz' (valid: A, B, ...)", the list cut to fit. */
static int acctmgr_unknown (const struct msg_assoc_reply *r, const char *name,
                            size_t len, arbor_error_t *err)
{
    char valid[sizeof (err->text)] = "";
    size_t room = sizeof (valid) - 48 - (len < 40 ? len : 40);
    size_t used = 0;

    for (uint32_t i = 0; i < r->columns_count; i++) {
        const char *c = r->columns[i] ? r->columns[i] : "";
        const char *sep = i ? ", " : "";
        if (used + strlen (sep) + strlen (c) + 5 > room) {
            used += (size_t)snprintf (valid + used, sizeof (valid) - used,
                                      "%s...", sep);
            break;
        }
        used += (size_t)snprintf (valid + used, sizeof (valid) - used, "%s%s",
                                  sep, c);
    }
    errno = EINVAL;
    return errprintf (err, "Unknown field '%.*s' (valid: %s)",
                      (int)(len < 40 ? len : 40), name, valid);
}

/* "%N" or "%-N" after a field name: its width. */
static int acctmgr_width (const char *item, size_t len, const char *pct,
                          struct acctmgr_col *col, arbor_error_t *err)
{
    const char *s = pct + 1, *end = item + len;
    long w = 0;

    col->left = s < end && *s == '-';
    if (col->left)
        s++;
    if (s == end)
        goto bad;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            goto bad;
        w = w * 10 + (*s - '0');
        if (w > ACCTMGR_WIDTH_MAX)
            goto bad;
    }
    if (w < 1)
        goto bad;
    col->width = (int)w;
    return 0;
bad:
    errno = EINVAL;
    return errprintf (err,
                      "Bad width in '%.*s' (NAME%%N or NAME%%-N, N from 1 "
                      "to %d)",
                      (int)(len < 60 ? len : 60), item, ACCTMGR_WIDTH_MAX);
}

/* One format= item, item[0..len): NAME[%[-]N]. */
static int acctmgr_item (struct acctmgr_cols *cols,
                         const struct msg_assoc_reply *r, const char *item,
                         size_t len, arbor_error_t *err)
{
    const char *pct = memchr (item, '%', len);
    size_t namelen = pct ? (size_t)(pct - item) : len;
    int index = acctmgr_find (r, item, namelen);
    struct acctmgr_col col;

    if (index < 0)
        return acctmgr_unknown (r, item, namelen, err);
    col = acctmgr_col_make (r, (uint32_t)index);
    if (pct && acctmgr_width (item, len, pct, &col, err) < 0)
        return -1;
    cols->v[cols->n++] = col;
    return 0;
}

/* The columns of format=A,B%20,... (empty items skipped). */
static int acctmgr_cols_format (struct acctmgr_cols *cols,
                                const struct msg_assoc_reply *r,
                                const char *format, arbor_error_t *err)
{
    size_t items = 1;

    for (const char *s = format; *s; s++)
        items += *s == ',';
    if (!(cols->v = calloc (items, sizeof (*cols->v)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    while (*format) {
        size_t len = strcspn (format, ",");
        if (len > 0 && acctmgr_item (cols, r, format, len, err) < 0)
            return -1;
        format += len;
        if (*format == ',')
            format++;
    }
    if (cols->n == 0) {
        errno = EINVAL;
        return errprintf (err, "format= names no field");
    }
    return 0;
}

/* The entity's default columns the reply has, else all of the reply's. */
static int acctmgr_cols_default (struct acctmgr_cols *cols,
                                 const struct msg_assoc_reply *r,
                                 const char *entity, arbor_error_t *err)
{
    const char *format = NULL;

    if (!(cols->v = calloc (r->columns_count + 1, sizeof (*cols->v)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (const struct acctmgr_default *d = acctmgr_defaults; d->entity; d++)
        if (entity && !strcmp (d->entity, entity))
            format = d->format;
    while (format && *format) {
        size_t len = strcspn (format, ",");
        int index = acctmgr_find (r, format, len);
        if (index >= 0)
            cols->v[cols->n++] = acctmgr_col_make (r, (uint32_t)index);
        format += len + (format[len] == ',');
    }
    if (cols->n == 0)
        for (uint32_t i = 0; i < r->columns_count; i++)
            cols->v[cols->n++] = acctmgr_col_make (r, i);
    return 0;
}

/* One fixed-layout cell and its space: cut to the width with a '+' for
 * cells (mark), without for headers. */
static void acctmgr_fixed (FILE *f, const struct acctmgr_col *col,
                           const char *s, bool mark)
{
    if (mark && strlen (s) > (size_t)col->width) {
        fprintf (f, "%.*s+ ", col->width - 1, s);
        return;
    }
    fprintf (f, col->left ? "%-*.*s " : "%*.*s ", col->width, col->width, s);
}

/* One line: cells[i] for column i (mark: cut with '+'). */
static void acctmgr_line (FILE *f, const struct acctmgr_cols *cols,
                          const char *const *cells, bool mark,
                          enum acctmgr_layout layout)
{
    for (size_t i = 0; i < cols->n; i++) {
        const char *s = cells[i] ? cells[i] : "";
        if (layout == ACCTMGR_FIXED)
            acctmgr_fixed (f, &cols->v[i], s, mark);
        else if (layout == ACCTMGR_PARSABLE || i + 1 < cols->n)
            fprintf (f, "%s|", s);
        else
            fputs (s, f);
    }
    fputc ('\n', f);
}

static void acctmgr_dashes (FILE *f, const struct acctmgr_cols *cols)
{
    for (size_t i = 0; i < cols->n; i++) {
        for (int w = 0; w < cols->v[i].width; w++)
            fputc ('-', f);
        fputc (' ', f);
    }
    fputc ('\n', f);
}

/* The header (and dashes), then every row, picked out by cols. */
static int acctmgr_print_rows (FILE *f, const struct msg_assoc_reply *r,
                               const struct acctmgr_view *v,
                               const struct acctmgr_cols *cols)
{
    const char **line = calloc (cols->n + 1, sizeof (*line));
    uint32_t ncol = r->columns_count;

    if (!line)
        return -1;
    if (!v->noheader) {
        for (size_t i = 0; i < cols->n; i++)
            line[i] = cols->v[i].header;
        acctmgr_line (f, cols, line, false, v->layout);
        if (v->layout == ACCTMGR_FIXED)
            acctmgr_dashes (f, cols);
    }
    for (uint32_t row = 0; ncol && row < r->cells_count / ncol; row++) {
        for (size_t i = 0; i < cols->n; i++)
            line[i] = r->cells[row * ncol + cols->v[i].index];
        acctmgr_line (f, cols, line, true, v->layout);
    }
    free (line);
    return 0;
}

int acctmgr_table_print (FILE *f, const struct msg_assoc_reply *r,
                         const struct acctmgr_view *v, arbor_error_t *err)
{
    struct acctmgr_cols cols = { NULL, 0 };
    int rc = -1;

    if (r->columns_count ? r->cells_count % r->columns_count : r->cells_count) {
        errno = EPROTO;
        errprintf (err, "The controller's answer has %u cells for %u columns",
                   r->cells_count, r->columns_count);
        return -1;
    }
    if (v->format ? acctmgr_cols_format (&cols, r, v->format, err)
                  : acctmgr_cols_default (&cols, r, v->entity, err))
        goto out;
    if (cols.n > 0 && acctmgr_print_rows (f, r, v, &cols) < 0) {
        errno = ENOMEM;
        errprintf (err, "out of memory");
        goto out;
    }
    rc = 0;
out:
    free (cols.v);
    return rc;
}
