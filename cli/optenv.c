/* optenv.c - input environment variables as options; see optenv.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "optenv.h"

/* A flag variable's value that turns the option on. */
static bool optenv_on (const char *v)
{
    char *end;
    long n;

    if (!*v || !strcasecmp (v, "yes"))
        return true;
    n = strtol (v, &end, 10);
    return *end == '\0' && n != 0;
}

void optenv_free (char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free (argv[i]);
    free (argv);
}

char **optenv_argv (const char *prog, const struct optenv *tab, int *argc)
{
    size_t n = 0, k = 1;
    char **v;

    while (tab[n].var)
        n++;
    if (!(v = calloc (n + 2, sizeof (char *))) || !(v[0] = strdup (prog)))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        const char *val = getenv (tab[i].var);
        int rc;
        if (!val || (tab[i].flag && !optenv_on (val)))
            continue;
        rc = tab[i].flag ? asprintf (&v[k], "--%s", tab[i].opt)
                         : asprintf (&v[k], "--%s=%s", tab[i].opt, val);
        if (rc < 0) {
            v[k] = NULL;
            goto fail;
        }
        k++;
    }
    *argc = (int)k;
    return v;
fail:
    optenv_free (v);
    errno = ENOMEM;
    return NULL;
}
