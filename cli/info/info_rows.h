/* info_rows.h - sinfo's lines: which nodes are shown, how they share
 * lines, in what order, and how wide the '#' columns are.
 *
 * Nodes are chosen by -p (partitions), -t (states), -R (down, drained
 * and draining nodes), -d / -r (not responding / responding). Lines
 * follow sinfo: when the format shows a partition's field (%P, %a,
 * %l...), each partition of the configuration has its own lines, in
 * arbor.conf's order, and its nodes share a line when every per-node
 * field of the format prints the same for them (state, reason...; with
 * -e also CPUs, memory, load...); without such a field a node is
 * counted once whatever its partitions ("sinfo -h -o %D" is the node
 * count). With -N (node_view) every node (and partition, if shown) has
 * its own line. Pure functions: cli/test/info_fields_test.c.
 */
#ifndef ARBOR_CLI_INFO_ROWS_H
#define ARBOR_CLI_INFO_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fmt.h"
#include "info_fields.h"

/* -t: terms separated by ',' (any may match) or '&' (all must), each
 * a state name or abbreviation sinfo knows, any case. Names of states
 * Arbor's nodes are never in (MAINT, CLOUD, POWERED_DOWN...) match no
 * node. */
#define INFO_STATES_MAX 32
struct info_states {
    uint32_t masks[INFO_STATES_MAX];
    size_t n;
    bool all; /* '&' */
};
/* 0, or -1 with errno EINVAL and err naming the unknown state. */
int info_states_parse (const char *list, struct info_states *out,
                       arbor_error_t *err);

struct info_filter {
    const char *partitions;           /* -p: comma-separated; NULL: all */
    const struct info_states *states; /* -t; NULL: any */
    bool reasons;                     /* -R */
    int responding; /* -1: any; 0: only those not responding (-d);
                       1: only those responding (-r) */
};

/* Does node i pass the node filters (-t, -R, -d, -r)? Does partition
 * 'name' pass -p? */
bool info_node_wanted (const struct msg_node_info_reply *r, uint32_t i,
                       const struct info_filter *flt);
bool info_part_wanted (const struct info_filter *flt, const char *name);
/* Is node i in partition 'name' (the reply's list)? */
bool info_node_in (const struct msg_node_info_reply *r, uint32_t i,
                   const char *name);

struct info_rows {
    struct info_row *v;
    size_t n;
};

/* The lines of format 'f' (parsed over info_fields). 0, or -1 with
 * errno ENOMEM ('out' empty). Free with info_rows_free. */
int info_rows_build (const struct info_data *d, const struct fmt *f,
                     const struct info_filter *flt, bool node_view,
                     struct info_rows *out);
void info_rows_free (struct info_rows *rows);

/* -S: "#P,-t" style: -o letters, '+' ascending (the default) or '-'
 * descending; "#P" is arbor.conf's order of partitions. sinfo's
 * default is INFO_SORT, with -N INFO_SORT_NODE (node names, numbers in
 * them compared as numbers). */
#define INFO_SORT "#P,-t"
#define INFO_SORT_NODE "N"
#define INFO_SORT_MAX 16
struct info_sort {
    int ids[INFO_SORT_MAX];
    bool desc[INFO_SORT_MAX];
    bool conf_order[INFO_SORT_MAX];
    size_t n;
};
/* 0, or -1 with errno EINVAL and err naming a bad letter. */
int info_sort_parse (const char *spec, struct info_sort *out,
                     arbor_error_t *err);
void info_rows_sort (struct info_rows *rows, const struct info_sort *s);

/* A -o format (fmt_parse) that may also hold sinfo's '#' size, "%#P":
 * such a field's width is INFO_WIDTH_AUTO until info_format_widths sets
 * it to its widest value over 'rows' (at least 9, and its header). 0,
 * or -1 with errno and err as fmt_parse. */
#define INFO_WIDTH_AUTO (-2)
#define INFO_WIDTH_MIN 9
int info_format_parse (const char *spec, struct fmt *out, arbor_error_t *err);
void info_format_widths (struct fmt *f, const struct info_rows *rows);

#endif
