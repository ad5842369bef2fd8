/* control_lic.h - arbor control show licenses [NAME] (scontrol show
 * licenses; also "lic", "license"): the cluster's licenses as the
 * controller counts them (LIC_INFO), in scontrol's layout:
 *
 *     LicenseName=fluent
 *         Total=30 Used=2 Free=28 Reserved=0 Remote=no
 *
 * -o prints each on one line. Arbor has no license reservations nor
 * remote (database-served) licenses: Reserved is 0 and Remote "no".
 */
#ifndef ARBOR_CLI_CONTROL_LIC_H
#define ARBOR_CLI_CONTROL_LIC_H

#include <stdbool.h>
#include <stdint.h>

#include "control_show.h"

/* Is 'word' (after "show") the licenses entity? Any case, "lic" to
 * "licenses". */
bool control_lic_entity (const char *word);
/* "show licenses [NAME]": argv[0] is the entity word. Returns the exit
 * status: 1 for an unknown NAME ("License NAME not found"); dies when
 * the controller cannot be asked. */
int control_lic_show (const struct control_show_opts *o, int argc, char **argv);
/* One license's record as text (with its newline), for the tests.
 * Caller frees; NULL ENOMEM. */
char *control_lic_text (const char *name, uint32_t total, uint32_t used,
                        bool oneliner);

#endif
