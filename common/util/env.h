/* env.h - an environment under construction: an ordered list of
 * "KEY=VALUE" strings with set, set-if-absent and unset, that ends as a
 * NULL-terminated array for execve or a message. The one environment
 * builder of the tree: the task environment (stepd/task_env.c), the
 * exported launcher environment (cli/export.c) and the Epilog's (ctld and
 * noded) are all built with it.
 */
#ifndef ARBOR_ENV_H
#define ARBOR_ENV_H

#include <stddef.h>

struct env;

/* Copy 'n' "KEY=VALUE" strings (entries without '=' are skipped; a later
 * duplicate key replaces an earlier one). NULL with errno ENOMEM. */
struct env *env_create (char *const *vars, size_t n);
void env_destroy (struct env *e);

/* Set (replace or append) / remove KEY. 0 or -1 with errno. */
int env_set (struct env *e, const char *key, const char *value);
int env_setf (struct env *e, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
int env_unset (struct env *e, const char *key);
/* Value of KEY, or NULL. Borrowed until the env changes. */
const char *env_get (const struct env *e, const char *key);
/* NULL-terminated array for execve. Borrowed until the env changes. */
char **env_vars (const struct env *e);
size_t env_count (const struct env *e);

/* Set from "KEY=VALUE" (copied). 0, or -1 with errno (EINVAL: no key). */
int env_put (struct env *e, const char *kv);
/* Set KEY only if it is not set yet. 0 or -1 with errno. */
int env_set_default (struct env *e, const char *key, const char *value);
/* Destroy 'e' and return its NULL-terminated array, now the caller's
 * (free with env_strv_free). */
char **env_take (struct env *e);
void env_strv_free (char **vars);

#endif
