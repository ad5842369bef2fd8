/* gresnode.h - the generic resources one node has: what its noded learns
 * from arbor.conf (the node's Gres=), gres.conf and detection
 * (AutoDetect=nvml, noded/gres/nvml.h), and registers with the
 * controller (issue 35).
 *
 * A node's resources are a list of items, each like one gres.conf line
 * after expansion: a name (gpu), a type (a100, or none), a count and,
 * for devices, one file per unit (/dev/nvidia0) and the CPUs local to
 * them. The units of one name are numbered across its items in list
 * order, from 0: that number is the device index Slurm prints as
 * "gpu:a100:2(IDX:0-1)" and the one CUDA_VISIBLE_DEVICES is built from.
 */
#ifndef ARBOR_GRESNODE_H
#define ARBOR_GRESNODE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct conf;
struct gresconf;

#define GRESNODE_ITEMS_MAX 256

struct gres_item {
    char *name;     /* "gpu" */
    char *type;     /* "a100"; NULL: none */
    uint64_t count; /* units; == nfiles when there are files */
    char **files;   /* device files, one per unit; NULL: count only */
    size_t nfiles;
    char *cores; /* CPUs local to these units ("0-15", a cpu list as
                    Cores= writes it); NULL: any */
    char *flags; /* gres.conf Flags= as written; NULL none */
};

struct gresnode {
    struct gres_item *v;
    size_t n;
};

/* Free the items and empty g. Accepts NULL; keeps errno. */
void gresnode_clear (struct gresnode *g);

/* Append a deep copy of 'it' (its strings may be borrowed). 0, or -1
 * with errno ENOMEM, or E2BIG past GRESNODE_ITEMS_MAX items; g is then
 * as it was. */
int gresnode_add (struct gresnode *g, const struct gres_item *it);

/* The AutoDetect= mechanism gres.conf sets for 'node': a line with
 * NodeName= naming it wins over a line without NodeName= (global);
 * "off" and none give NULL. *mech is borrowed from gc ("nvml", "rsmi"...,
 * as written). 0, or -1 with errno EINVAL and err when a NodeName= is
 * not a host list or two lines of one scope disagree ("gres.conf line 4:
 * AutoDetect=off disagrees with line 2 (AutoDetect=nvml)"). */
int gresnode_autodetect (const struct gresconf *gc, const char *node,
                         const char **mech, arbor_error_t *err);

/* What node 'node' of 'c' has (the rules are in gresnode.c and
 * docs/gres.md):
 *   - each gres.conf line for the node (NodeName= names it, or none is
 *     given) with a Name= is an item, in file order;
 *   - when AutoDetect=nvml is set for the node and 'detected' is not
 *     NULL (the library was found), the detected GPUs replace the node's
 *     Name=gpu lines; a replaced line whose File= holds a device's file
 *     and whose Type= (if any) is part of the detected type lends that
 *     device its Type= and Flags=; else a gpu type of the node's Gres=
 *     that is part of the detected type names it ("a100" for
 *     "nvidia_a100-sxm4-40gb", as Slurm matches types);
 *   - each resource name of the node's Gres= that no item has becomes a
 *     count-only item per Gres= entry, with its type and count.
 * gc NULL: no gres.conf. 0 with *out the caller's (gresnode_clear), or -1
 * with errno (EINVAL: a line names a resource not in GresTypes, "gres.conf
 * line 3: Name=nic is not in GresTypes"; the node is not in c; E2BIG,
 * ENOMEM) and err; *out is then empty. */
int gresnode_build (const struct conf *c, const char *node,
                    const struct gresconf *gc, const struct gresnode *detected,
                    struct gresnode *out, arbor_error_t *err);

/* "gpu:a100:2(/dev/nvidia[0-1]),nic:1": each item as name[:type]:count,
 * its files ranged in parentheses; neighbouring items of one name and
 * type, all with files, are written as one. "" for none. For logs. The
 * caller frees; NULL with errno ENOMEM. */
char *gresnode_text (const struct gresnode *g);

#endif
