/* arbor-bench-policy - what the site's policy costs a submission.
 *
 *   arbor-bench-policy [-u USERS] [-a ACCOUNTS] [-q QOS] [-n CALLS]
 *
 * Builds the controller's state in memory (the unit tests' fixture) with
 * AccountingStorageEnforce=associations,qos and a policy of ACCOUNTS
 * accounts (a tenth under root, the rest under them), USERS users (each
 * in one or two accounts, half with a default QOS), QOS QOS (every
 * tenth account with a QOS list), then times CALLS checks of a new job's
 * request (policy_request: its account and QOS, defaults filled in, as
 * every submission runs it), for random users with and without -A and
 * --qos, and one "sacctmgr show association" answer. Issue 36's target:
 * under 0.2 ms of controller CPU a submission at 1,000 users, 200
 * accounts, 20 QOS. Not part of ctest.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assoc/assoc_req.h"
#include "assoc/assoc_show.h"
#include "assoc/policy.h"
#include "ctld.h"
#include "fixture.h"

static struct outbox outbox;
static const struct assoc_actor admin = { "root", ASSOC_ADMIN_ADMINISTRATOR };

static double now_s (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* sacctmgr -i VERB ENTITY NAME SET... on the policy; exits on failure. */
static void apply (struct assoc *a, const char *verb, const char *entity,
                   const char *name, char *set0, char *set1)
{
    char *names[] = { (char *)name, NULL }, *set[] = { set0, set1, NULL };
    struct msg_assoc_req req = { .verb = (char *)verb,
                                 .entity = (char *)entity,
                                 .names = names,
                                 .names_count = 1,
                                 .set = set,
                                 .set_count = set0 ? (set1 ? 2 : 1) : 0 };
    struct assoc_touched t = { 0 };
    arbor_error_t err;
    char *said = NULL;
    size_t len = 0;
    FILE *fp = open_memstream (&said, &len);

    if (!fp || assoc_apply (a, &admin, &req, fp, &t, &err) < 0) {
        fprintf (stderr, "%s %s %s: %s\n", verb, entity, name, err.text);
        exit (1);
    }
    fclose (fp);
    free (said);
    assoc_touched_clear (&t);
}

static void build (struct assoc *a, unsigned users, unsigned accounts,
                   unsigned nqos)
{
    char name[64], s0[128], s1[128];

    for (unsigned q = 0; q < nqos; q++) {
        snprintf (name, sizeof (name), "q%u", q);
        snprintf (s0, sizeof (s0), "priority=%u", q * 10);
        apply (a, "add", "qos", name, s0, NULL);
    }
    for (unsigned i = 0; i < accounts; i++) {
        snprintf (name, sizeof (name), "a%u", i);
        snprintf (s0, sizeof (s0), "parent=%s",
                  i < accounts / 10 + 1 ? "root" : "");
        if (i >= accounts / 10 + 1)
            snprintf (s0, sizeof (s0), "parent=a%u", i % (accounts / 10 + 1));
        snprintf (s1, sizeof (s1), "qos=normal,q%u", i % nqos);
        apply (a, "add", "account", name, s0, i % 10 ? NULL : s1);
    }
    for (unsigned u = 0; u < users; u++) {
        snprintf (name, sizeof (name), "u%u", u);
        snprintf (s0, sizeof (s0), "account=a%u,a%u", u % accounts,
                  (u * 7 + 3) % accounts);
        snprintf (s1, sizeof (s1), "defaultqos=normal");
        apply (a, "add", "user", name, s0, u % 2 ? s1 : NULL);
    }
}

int main (int argc, char **argv)
{
    unsigned users = 1000, accounts = 200, nqos = 20, calls = 100000;
    unsigned ok = 0;
    struct ctld *ctx;
    double t0, per;
    int o;

    while ((o = getopt (argc, argv, "u:a:q:n:")) != -1)
        switch (o) {
        case 'u': users = (unsigned)atoi (optarg); break;
        case 'a': accounts = (unsigned)atoi (optarg); break;
        case 'q': nqos = (unsigned)atoi (optarg); break;
        case 'n': calls = (unsigned)atoi (optarg); break;
        default:
            fprintf (stderr,
                     "usage: %s [-u USERS] [-a ACCOUNTS] [-q QOS] "
                     "[-n CALLS]\n",
                     argv[0]);
            return 2;
        }
    if (!users || accounts < 2 || !nqos || !calls)
        return 2;
    ctx = fixture_ctld (
        FIXTURE_CONF_N4 "AccountingStorageEnforce=associations,qos\n", &outbox);
    if (!ctx)
        return 1;
    build (&ctx->policy->assoc, users, accounts, nqos);
    srand (7);
    t0 = now_s ();
    for (unsigned i = 0; i < calls; i++) {
        unsigned u = (unsigned)rand () % users;
        char user[32], acct[32];
        arbor_error_t err;
        snprintf (user, sizeof (user), "u%u", u);
        snprintf (acct, sizeof (acct), "a%u", u % accounts);
        struct msg_job_alloc r = {
            .account = rand () % 2 ? strdup (acct) : NULL,
            .qos = rand () % 4 ? NULL : strdup ("normal"),
        };
        ok += policy_request (ctx, user, &r, &err) == 0;
        free (r.account);
        free (r.qos);
    }
    per = (now_s () - t0) / calls * 1e6;
    printf ("%u users, %u accounts, %u QOS: a submission's policy check "
            "%.2f us (%u of %u accepted)\n",
            users, accounts, nqos, per, ok, calls);
    {
        struct msg_assoc_req req = { .verb = "show", .entity = "association" };
        struct assoc_here here = { "h", "1", "2.14" };
        struct msg_assoc_reply r;
        arbor_error_t err;
        t0 = now_s ();
        if (assoc_show (&ctx->policy->assoc, &here, &req, &r, &err) < 0)
            return 1;
        printf ("sacctmgr show association: %u rows in %.2f ms\n",
                r.cells_count / (r.columns_count ? r.columns_count : 1),
                (now_s () - t0) * 1e3);
        proto_clear (MSG_ASSOC_REPLY, &r);
    }
    fixture_free (ctx);
    return 0;
}
