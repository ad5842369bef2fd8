/* ident.h - who a uid is, for its credentials: name, home and groups,
 * cached.
 *
 * A step credential names the user and lists the user's groups, as
 * Slurm's does by default (its send_gids): every node then sets the
 * tasks' supplementary groups from the sealed credential instead of
 * asking its own name service (initgroups), which costs every task on
 * every node a walk through NSS (files, systemd, LDAP...); the home
 * directory (the tasks' HOME) comes the same way. The controller
 * asks once per user and keeps the answer IDENT_TTL seconds (at most
 * IDENT_MAX users, the oldest dropped first), so a change of group
 * membership reaches new steps within that time.
 */
#ifndef ARBOR_CTLD_IDENT_H
#define ARBOR_CTLD_IDENT_H

#include <stdint.h>
#include <sys/types.h>

#define IDENT_TTL 300.0
#define IDENT_MAX 4096
#define IDENT_GROUPS_MAX 1024 /* groups listed per user at most */

struct ident_cache;

struct ident {
    uid_t uid;
    gid_t gid;      /* the primary group asked with */
    char *user;     /* name, or the uid's number when it has no entry */
    char *home;     /* home directory, "" when it has no entry */
    uint32_t *gids; /* supplementary groups, 'gid' first; none (ngids 0)
                     * when there were too many to list */
    uint32_t ngids;
    double fetched; /* 'now' of the lookup */
};

struct ident_cache *ident_cache_create (void);
void ident_cache_destroy (struct ident_cache *ic);

/* The identity of (uid, gid) at time 'now' (seconds, any clock):
 * cached, or looked up (getpwuid_r, getgrouplist): name, home and groups. A uid
 * without a passwd entry is named by its number and has 'gid' as its one group.
 * Borrowed until the next call. NULL with errno ENOMEM. */
const struct ident *ident_get (struct ident_cache *ic, uid_t uid, gid_t gid,
                               double now);

#endif
