/* noded.h - assembly of arbor-noded (noded.c): create, run, destroy.
 *
 * The context, struct noded, is in noded_base.h; each module of noded/
 * has its own header.
 */
#ifndef ARBOR_NODED_H
#define ARBOR_NODED_H

#include <stdbool.h>

#include "error.h"
#include "noded_base.h"

/* noded.c: assembly. noded_create loads CONF_PATH (NULL: the default),
 * becomes NODE, opens the log (NodedDebugLevel + verbose), creates the
 * spool, connects munge, listens, serves requests and re-finds running
 * stepds; EMULATE reports the configured CPUs and RealMemory. Returns the
 * daemon, or NULL with errno and err (nothing left behind but the log).
 * noded_run registers with the controller and runs the loop until
 * SIGTERM/SIGINT: 0, or -1 with errno if registration cannot start.
 * noded_destroy frees everything, stepds keep running (NULL accepted,
 * errno kept); the log stays open for the caller to close. */
struct noded *noded_create (const char *conf_path, const char *node,
                            int verbose, bool emulate, arbor_error_t *err);
int noded_run (struct noded *nd);
void noded_destroy (struct noded *nd);

#endif
