/* acct_group.c - group names for accounting output; see acct_group.h.
 */
#include <grp.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "acct_group.h"

static void put_str (char *buf, size_t len, const char *s)
{
    snprintf (buf, len, "%s", s);
}

static void put_u64 (char *buf, size_t len, uint64_t v)
{
    snprintf (buf, len, "%" PRIu64, v);
}

/* The last group looked up: a listing is mostly one user's jobs, and
 * each getgrgid reads /etc/group again (a quarter of a --json listing's
 * time before this). */
static struct {
    bool valid;
    uint32_t gid;
    char name[64];
} last_group;

const char *acct_group_name (uint32_t gid, char *buf, size_t len)
{
    struct group *gr;

    if (last_group.valid && last_group.gid == gid) {
        put_str (buf, len, last_group.name);
        return buf;
    }
    if ((gr = getgrgid ((gid_t)gid)))
        put_str (buf, len, gr->gr_name);
    else
        put_u64 (buf, len, gid);
    /* a name too long for the cache is only not cached */
    last_group.valid = !gr || strlen (gr->gr_name) < sizeof (last_group.name);
    if (!last_group.valid)
        return buf;
    if (gr)
        strcpy (last_group.name, gr->gr_name);
    else
        put_u64 (last_group.name, sizeof (last_group.name), gid);
    last_group.gid = gid;
    return buf;
}
