/* ident.c - see ident.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ident.h"

struct ident_cache {
    struct ident *ids;
    size_t n;
};

struct ident_cache *ident_cache_create (void)
{
    return calloc (1, sizeof (struct ident_cache));
}

static void ident_clear (struct ident *id)
{
    free (id->user);
    free (id->home);
    free (id->gids);
    memset (id, 0, sizeof (*id));
}

void ident_cache_destroy (struct ident_cache *ic)
{
    if (!ic)
        return;
    for (size_t i = 0; i < ic->n; i++)
        ident_clear (&ic->ids[i]);
    free (ic->ids);
    free (ic);
}

/* The groups of 'user' with primary 'gid' first; just 'gid' for a user
 * the name service does not know. A user in more than IDENT_GROUPS_MAX
 * groups (or whose groups cannot be listed) gets no list at all: the
 * credential then carries none and each node asks its own name service
 * (initgroups), as before credentials carried groups. */
static int ident_groups (struct ident *id, const char *user)
{
    int n = 32;
    gid_t *g = NULL;
    bool listed = true;

    for (;;) {
        gid_t *bigger = realloc (g, (size_t)n * sizeof (*g));
        if (!bigger) {
            free (g);
            return -1;
        }
        g = bigger;
        int want = n;
        if (!user || getgrouplist (user, id->gid, g, &want) >= 0) {
            n = user ? want : 0;
            break;
        }
        if (want <= n || want > IDENT_GROUPS_MAX) {
            listed = false;
            n = 0;
            break;
        }
        n = want;
    }
    if (!(id->gids = calloc ((size_t)n + 1, sizeof (uint32_t)))) {
        free (g);
        return -1;
    }
    if (listed)
        id->gids[id->ngids++] = id->gid;
    for (int i = 0; i < n; i++)
        if (g[i] != id->gid)
            id->gids[id->ngids++] = g[i];
    free (g);
    return 0;
}

static int ident_lookup (struct ident *id, uid_t uid, gid_t gid, double now)
{
    struct passwd pw, *res = NULL;
    char buf[4096], num[32];
    bool known = getpwuid_r (uid, &pw, buf, sizeof (buf), &res) == 0 && res;

    id->uid = uid;
    id->gid = gid;
    id->fetched = now;
    snprintf (num, sizeof (num), "%lu", (unsigned long)uid);
    if (!(id->user = strdup (known ? pw.pw_name : num))
        || !(id->home = strdup (known && pw.pw_dir ? pw.pw_dir : ""))
        || ident_groups (id, known ? pw.pw_name : NULL) < 0) {
        ident_clear (id);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* The slot for a new entry: a free one, else the oldest. */
static struct ident *ident_slot (struct ident_cache *ic)
{
    struct ident *oldest = NULL;

    if (ic->n < IDENT_MAX) {
        struct ident *more = realloc (ic->ids, (ic->n + 1) * sizeof (*more));
        if (!more)
            return NULL;
        ic->ids = more;
        memset (&ic->ids[ic->n], 0, sizeof (*more));
        return &ic->ids[ic->n++];
    }
    for (size_t i = 0; i < ic->n; i++)
        if (!oldest || ic->ids[i].fetched < oldest->fetched)
            oldest = &ic->ids[i];
    ident_clear (oldest);
    return oldest;
}

const struct ident *ident_get (struct ident_cache *ic, uid_t uid, gid_t gid,
                               double now)
{
    struct ident *id = NULL;

    for (size_t i = 0; i < ic->n && !id; i++)
        if (ic->ids[i].uid == uid && ic->ids[i].gid == gid && ic->ids[i].user)
            id = &ic->ids[i];
    if (id && now - id->fetched < IDENT_TTL && now >= id->fetched)
        return id;
    if (id)
        ident_clear (id);
    else if (!(id = ident_slot (ic))) {
        errno = ENOMEM;
        return NULL;
    }
    return ident_lookup (id, uid, gid, now) < 0 ? NULL : id;
}
