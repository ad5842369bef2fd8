/* gresspec.h - generic resources a job asks for: --gres and --gpus*, in
 * Slurm's syntax (issue 35); also what arbor.conf's Gres= writes.
 *
 *   --gres=gpu:2,nic:1     name[:type][:count], count 1 when left out;
 *   --gres=gpu:a100:2      a count may end in k, m or g (x1024, as
 *   --gres=mps:100k        Slurm's); "none": no resources
 *   --gpus=2, --gpus-per-node=a100:1, --gpus-per-task=1
 *                          [type:]count, the name being gpu
 *
 * Names are letters, digits and '_' (at most GRESSPEC_NAME_MAX bytes);
 * types also '-' and '.'. A name and type given twice is refused.
 */
#ifndef ARBOR_GRESSPEC_H
#define ARBOR_GRESSPEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define GRESSPEC_MAX 16      /* resources in one request */
#define GRESSPEC_NAME_MAX 31 /* bytes of a name */
#define GRESSPEC_TYPE_MAX 63 /* bytes of a type */
#define GRESSPEC_COUNT_MAX (1ull << 40)

struct gres_req {
    char name[GRESSPEC_NAME_MAX + 1];
    char type[GRESSPEC_TYPE_MAX + 1]; /* "" any type */
    uint64_t count;                   /* >= 1 */
};

struct gresspec {
    struct gres_req v[GRESSPEC_MAX];
    size_t n;
};

/* --gres. 0, or -1 with errno EINVAL and err ("invalid --gres \"gpu:0\":
 * ..."); *out is then empty. */
int gresspec_parse (const char *s, struct gresspec *out, arbor_error_t *err);
/* The same, the error naming 'what' instead ("invalid Gres \"gpu:0\"..."
 * for arbor.conf's Gres=). */
int gresspec_parse_as (const char *what, const char *s, struct gresspec *out,
                       arbor_error_t *err);
/* --gpus, --gpus-per-node, --gpus-per-task ('opt' names the option in
 * the error): [type:]count items, the name gpu. */
int gresspec_parse_gpus (const char *opt, const char *s, struct gresspec *out,
                         arbor_error_t *err);
/* One [type:]count of the GPU options that take one (--gpus,
 * --gpus-per-node, --gpus-per-task) into *out: as gresspec_parse_gpus,
 * and a list of more than one is refused ("one [type:]count"). */
int gresspec_parse_gpu (const char *opt, const char *s, struct gres_req *out,
                        arbor_error_t *err);
/* Do a and b ask the same (name, type, count; not bytes)? */
bool gres_req_same (const struct gres_req *a, const struct gres_req *b);
/* "gpu:a100:2,nic:1" (a count of 1 is written too); "" for none. Writes
 * at most len bytes, NUL included; returns buf. */
const char *gresspec_text (const struct gresspec *g, char *buf, size_t len);

#endif
