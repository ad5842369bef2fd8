/* pmi2_fuzz.c - libFuzzer target: mpi/pmi2's wire commands and fence data.
 *
 * The bytes are what a task may write on its PMI_FD, fed the way the
 * plugin reads them (plugins/mpi/pmi2/pmi2_plugin.c): framed by the
 * connection's protocol, which an init asking for version 2 switches to
 * PMI-2. The first byte picks the protocol to start in. Framing and
 * parsing must never crash or read past the input; what parses must
 * format back (pmi_resp_*) and parse to the same pairs; the pairs must go
 * through a fence batch and merge back; and the bytes themselves, taken
 * as a gathered round, must merge or be refused whole.
 *
 *     build-fuzz/test-bin/pmi2_fuzz -max_total_time=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmi2_kvs.h"
#include "pmi2_wire.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static struct pmi_cmd cmd, back;
static struct pmi_resp resp;

static void check_parsed (const struct pmi_cmd *c)
{
    if (!c->name || !*c->name || c->npairs > PMI_WIRE_MAX_PAIRS)
        abort ();
    for (size_t i = 0; i < c->npairs; i++)
        if (!c->pairs[i].key[0]
            || strlen (c->pairs[i].key) + strlen (c->pairs[i].val)
                   > PMI_WIRE_MAX_CMD)
            abort ();
}

/* Format c as an answer of proto and parse it again: same pairs. */
static void check_round_trip (enum pmi_proto proto, const struct pmi_cmd *c)
{
    arbor_error_t err;

    if (c->mcmd)
        return; /* answers are cmd=, never mcmd= */
    pmi_resp_init (&resp, proto, c->name);
    for (size_t i = 0; i < c->npairs; i++)
        pmi_resp_add (&resp, c->pairs[i].key, c->pairs[i].val);
    if (pmi_resp_end (&resp) < 0)
        return; /* too long once escaped: refused, fine */
    if (pmi_wire_frame (proto, resp.buf, resp.len) != (ssize_t)resp.len
        || pmi_wire_parse (proto, resp.buf, resp.len, &back, &err) < 0
        || strcmp (back.name, c->name) != 0 || back.npairs != c->npairs)
        abort ();
    for (size_t i = 0; i < c->npairs; i++)
        if (strcmp (back.pairs[i].key, c->pairs[i].key) != 0
            || strcmp (back.pairs[i].val, c->pairs[i].val) != 0)
            abort ();
}

/* The pairs through a batch, sealed and merged as a one-node round:
 * what the batch took, the KVS has. */
static void check_batch (const struct pmi_cmd *c)
{
    struct pmi_batch b;
    struct pmi_kvs *k = pmi_kvs_create (1 << 20);
    const void *blob;
    size_t len, nodes;
    bool took[PMI_WIRE_MAX_PAIRS];

    if (!k)
        return;
    pmi_batch_init (&b, 1 << 20);
    for (size_t i = 0; i < c->npairs; i++)
        took[i] = pmi_batch_add (&b, c->pairs[i].key, c->pairs[i].val) == 0;
    if ((blob = pmi_batch_seal (&b, &len))) {
        if (pmi_kvs_merge (k, blob, len, &nodes) < 0 || nodes != 1)
            abort ();
        for (size_t i = 0; i < c->npairs; i++)
            if (took[i] && !pmi_kvs_get (k, c->pairs[i].key))
                abort ();
    }
    pmi_batch_free (&b);
    pmi_kvs_destroy (k);
}

/* Take the bytes as a connection's stream. */
static void feed (enum pmi_proto proto, const char *p, size_t len)
{
    arbor_error_t err;
    ssize_t n;

    while ((n = pmi_wire_frame (proto, p, len)) > 0) {
        if ((size_t)n > len || (size_t)n > PMI_WIRE_MAX_CMD)
            abort ();
        if (pmi_wire_parse (proto, p, (size_t)n, &cmd, &err) == 0) {
            const char *v = pmi_cmd_get (&cmd, "pmi_version");
            check_parsed (&cmd);
            check_round_trip (proto == PMI_PROTO_2 ? PMI_PROTO_2 : PMI_PROTO_1,
                              &cmd);
            check_batch (&cmd);
            if (proto != PMI_PROTO_2 && !strcmp (cmd.name, "init") && v)
                proto = !strcmp (v, "2") ? PMI_PROTO_2 : PMI_PROTO_1;
        } else if (!err.text[0])
            abort (); /* a refusal always says why */
        p += n;
        len -= (size_t)n;
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct pmi_kvs *k;
    char text[64];

    if (size == 0)
        return 0;
    feed ((enum pmi_proto) (data[0] % 3), (const char *)data + 1, size - 1);
    /* the bytes as a gathered round */
    if ((k = pmi_kvs_create (1 << 20))) {
        pmi_kvs_merge (k, data, size, NULL);
        pmi_kvs_destroy (k);
    }
    /* and as an error message: always fits */
    memcpy (text, data, size < sizeof (text) ? size : sizeof (text) - 1);
    text[size < sizeof (text) ? size : sizeof (text) - 1] = '\0';
    pmi_resp_init (&resp, (enum pmi_proto) (data[0] % 3), "error");
    pmi_resp_addtext (&resp, "msg", text);
    if (pmi_resp_end (&resp) < 0)
        abort ();
    return 0;
}
