/* gres_step.c - the step's generic resources; see gres_step.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gres_step.h"
#include "gresalloc.h"

int gres_step_deny (const struct msg_stepd_init *in, char ***files, size_t *n,
                    arbor_error_t *err)
{
    uint32_t ndev = in->dev_names_count < in->dev_files_count
                        ? in->dev_names_count
                        : in->dev_files_count;
    struct gresalloc held;
    char **v;

    *files = NULL;
    *n = 0;
    if (gresalloc_parse (in->gres, &held, err) < 0)
        return -1;
    if (!(v = calloc (ndev + 1, sizeof (*v)))) {
        errno = ENOMEM;
        return errprintf (err, "out of memory");
    }
    for (uint32_t i = 0; i < ndev; i++) {
        const char *name = PROTO_STR (in, dev_names, i);
        const struct gresalloc_item *it = gresalloc_find (&held, name);
        uint32_t index = 0;
        for (uint32_t k = 0; k < i; k++) /* its index among its name's */
            index += !strcmp (PROTO_STR (in, dev_names, k), name);
        if (!it || !gresalloc_has (it, index))
            v[(*n)++] = in->dev_files[i];
    }
    *files = v;
    return 0;
}
