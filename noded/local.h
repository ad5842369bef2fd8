/* local.h - the noded's local socket (local.c). */
#ifndef ARBOR_NODED_LOCAL_H
#define ARBOR_NODED_LOCAL_H

#include "error.h"

struct noded;

/* local.c: the local socket <spool>/noded.sock, where local programs
 * (pam_arbor_adopt) ask which of a user's jobs run here. local_start
 * returns 0, or -1 with err; local_stop removes it (NULL-safe). */
int local_start (struct noded *nd, arbor_error_t *err);
void local_stop (struct noded *nd);

#endif
