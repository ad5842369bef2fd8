/* acct_group.h - group names for accounting output (acct_group.c).
 *
 * sacct's Group, seff's User/Group and scontrol show job's GroupId name
 * a job's group. A listing is mostly one user's jobs, so the last name
 * looked up is kept: each getgrgid reads /etc/group again.
 */
#ifndef ARBOR_CLI_ACCT_GROUP_H
#define ARBOR_CLI_ACCT_GROUP_H

#include <stddef.h>
#include <stdint.h>

/* The name of group gid, or the number, into buf. Returns buf. */
const char *acct_group_name (uint32_t gid, char *buf, size_t len);

#endif
