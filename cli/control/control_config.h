/* control_config.h - arbor control show config: every global key of
 * arbor.conf with its effective value, as scontrol show config lays
 * them out:
 *
 *     Configuration data as of 2026-01-02T10:00:00
 *     AccountingStorageLoc    = /var/lib/arbor/arbor_acct.db
 *     ...
 *     UnkillableStepTimeout   = 60 sec
 *
 * Keys are named as Slurm names them where arbor.conf accepts a Slurm
 * alias (SlurmctldPort, not CtldPort), so that scripts written for
 * scontrol find them; keys are padded to 23 columns, then " = ", and
 * sorted alphabetically (any case). Unset text is "(null)", unset
 * numbers their default. Pure functions, unit tested.
 */
#ifndef ARBOR_CLI_CONTROL_CONFIG_H
#define ARBOR_CLI_CONTROL_CONFIG_H

#include <stddef.h>

#include "conf.h"

#define CONTROL_CONFIG_KEY_WIDTH 23

/* The sorted "Key = value" lines of c (no newlines), *n of them. Free
 * with control_config_free. NULL with errno ENOMEM. */
char **control_config_lines (const struct conf *c, size_t *n);
void control_config_free (char **lines, size_t n);

#endif
