/* info_json.c - the --json document of arbor info; see info_json.h and
 * docs/json/info.md (keep the two, and the schema, in step).
 *
 * Numbers the controller has not had reported yet (a node's free memory
 * and load before its first registration) are null, not a sentinel; so
 * are limits that are unlimited. Partitions come from arbor.conf, in its
 * order; a partition's node list and totals count the nodes shown.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "info_json.h"
#include "json/json_doc.h"
#include "states.h"
#include "timestr.h"

#define SET JSON_SET
#define NOT_REPORTED UINT32_MAX

/* "debug,batch" as ["debug", "batch"]. */
static json_t *info_json_names (const char *list)
{
    json_t *a = json_array ();
    char *copy = strdup (list), *save = NULL;

    for (char *p = copy ? strtok_r (copy, ",", &save) : NULL; a && p;
         p = strtok_r (NULL, ",", &save))
        if (json_array_append_new (a, json_doc_text (p)) < 0) {
            json_decref (a);
            a = NULL;
        }
    if (!copy) {
        json_decref (a);
        a = NULL;
    }
    free (copy);
    return a;
}

static json_t *info_json_u32 (uint32_t v)
{
    return v == NOT_REPORTED ? json_null () : json_integer (v);
}

/* Who set node i's reason, and when: null without one. */
static int info_json_reason_by (json_t *o, const struct info_data *d,
                                uint32_t i)
{
    const char *user = NULL;
    char num[16];
    uint32_t uid = 0;
    bool by = info_reason_by (d, i, &uid, &user, num, sizeof (num));
    int bad = 0;

    bad |= SET (o, "reason_user", by ? json_doc_text (user) : json_null ());
    bad |= SET (o, "reason_uid", by ? json_integer (uid) : json_null ());
    bad |= SET (o, "reason_time",
                json_doc_time (by ? info_reason_time (d->r, i) : 0));
    return bad;
}

static json_t *info_json_node (const struct info_data *d, uint32_t i)
{
    const struct msg_node_info_reply *r = d->r;
    json_t *o = json_object ();
    uint32_t load = i < r->cpu_loads_count ? r->cpu_loads[i] : NOT_REPORTED;
    uint32_t free_mb = i < r->free_mems_count ? r->free_mems[i] : NOT_REPORTED;
    const char *why = PROTO_STR (r, reasons, i);
    char buf[64];
    int bad = 0;

    if (!o)
        return NULL;
    bad |= SET (o, "name", json_doc_text (PROTO_STR (r, names, i)));
    bad |= SET (o, "address", json_doc_text (PROTO_STR (r, addrs, i)));
    bad |= SET (o, "state", json_doc_text (PROTO_STR (r, states, i)));
    bad |=
        SET (o, "state_code",
             json_doc_text (info_state_name (r, i, false, buf, sizeof (buf))));
    bad |= SET (o, "responding", json_boolean (info_node_responding (r, i)));
    bad |=
        SET (o, "partitions", info_json_names (PROTO_STR (r, partitions, i)));
    bad |= SET (o, "cpus", json_integer (PROTO_NUM (r, cpus, i)));
    bad |= SET (o, "alloc_cpus", json_integer (PROTO_NUM (r, alloc_cpus, i)));
    bad |=
        SET (o, "real_memory_mb", json_integer (PROTO_NUM (r, real_memory, i)));
    bad |= SET (o, "alloc_memory_mb",
                json_integer (PROTO_NUM (r, alloc_memory, i)));
    bad |= SET (o, "free_memory_mb", info_json_u32 (free_mb));
    bad |= SET (o, "cpu_load",
                load == NOT_REPORTED ? json_null () : json_real (load / 100.0));
    bad |= SET (o, "cpu_speed", json_integer (PROTO_NUM (r, cpu_speeds, i)));
    bad |= SET (o, "features", info_json_names (PROTO_STR (r, features, i)));
    bad |= SET (o, "active_features",
                info_json_names (PROTO_STR (r, features_active, i)));
    bad |= SET (o, "gres", json_doc_text (PROTO_STR (r, gres, i)));
    bad |= SET (o, "gres_used", json_doc_text (PROTO_STR (r, gres_used, i)));
    bad |= SET (o, "reason", *why ? json_doc_text (why) : json_null ());
    bad |= info_json_reason_by (o, d, i);
    if (bad) {
        json_decref (o);
        return NULL;
    }
    return o;
}

/* Is node i shown: the node filters, and -p? */
static bool info_json_shown (const struct info_data *d, uint32_t i,
                             const struct info_filter *flt)
{
    if (!info_node_wanted (d->r, i, flt))
        return false;
    for (size_t p = 0; flt->partitions && d->conf && p < d->conf->nparts; p++)
        if (info_part_wanted (flt, d->conf->parts[p].name)
            && info_node_in (d->r, i, d->conf->parts[p].name))
            return true;
    return !flt->partitions;
}

static json_t *info_json_minutes (uint32_t m)
{
    return m == TIME_INFINITE ? json_null () : json_integer (m);
}

static json_t *info_json_part (const struct info_data *d,
                               const struct conf_part *p,
                               const struct info_filter *flt)
{
    json_t *o = json_object (), *nodes = json_array ();
    json_int_t cpus = 0;
    int bad = !nodes;

    for (uint32_t i = 0; !bad && i < d->r->names_count; i++) {
        if (!info_node_in (d->r, i, p->name) || !info_json_shown (d, i, flt))
            continue;
        bad |= json_array_append_new (
            nodes, json_doc_text (PROTO_STR (d->r, names, i)));
        cpus += PROTO_NUM (d->r, cpus, i);
    }
    if (!o || bad) {
        json_decref (nodes);
        json_decref (o);
        return NULL;
    }
    bad |= SET (o, "name", json_doc_text (p->name));
    bad |= SET (o, "default", json_boolean (p->is_default));
    bad |= SET (o, "state", json_string ("UP"));
    bad |= SET (o, "max_time_minutes", info_json_minutes (p->max_time));
    bad |= SET (o, "default_time_minutes", info_json_minutes (p->default_time));
    bad |= SET (o, "priority_tier", json_integer (p->priority_tier));
    bad |=
        SET (o, "priority_job_factor", json_integer (p->priority_job_factor));
    bad |= SET (o, "nodes", nodes); /* borrowed from o from here */
    bad |= SET (o, "total_nodes",
                json_integer ((json_int_t)json_array_size (nodes)));
    bad |= SET (o, "total_cpus", json_integer (cpus));
    if (bad) {
        json_decref (o);
        return NULL;
    }
    return o;
}

json_t *info_json_build (const struct info_data *d,
                         const struct info_filter *flt)
{
    json_t *nodes, *parts = json_array ();
    json_t *doc =
        json_doc_create (INFO_JSON_SCHEMA, INFO_JSON_VERSION, "nodes", &nodes);
    int bad = !doc || !parts;

    for (uint32_t i = 0; !bad && i < d->r->names_count; i++)
        if (info_json_shown (d, i, flt))
            bad |= json_array_append_new (nodes, info_json_node (d, i));
    for (size_t p = 0; !bad && d->conf && p < d->conf->nparts; p++)
        if (info_part_wanted (flt, d->conf->parts[p].name))
            bad |= json_array_append_new (
                parts, info_json_part (d, &d->conf->parts[p], flt));
    if (!bad) {
        bad = SET (doc, "partitions", parts);
        parts = NULL; /* consumed even on failure */
    }
    if (bad) {
        json_decref (parts);
        json_decref (doc);
        errno = ENOMEM;
        return NULL;
    }
    return doc;
}
