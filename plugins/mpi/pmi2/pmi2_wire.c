/* pmi2_wire.c - framing, parsing and formatting of PMI-1 and PMI-2
 * commands (see pmi2_wire.h). Nothing here allocates or does I/O: every
 * length is checked against the fixed buffers of struct pmi_cmd and
 * struct pmi_resp.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi2_wire.h"

#define MCMD_PREFIX "mcmd="
#define MCMD_END "endcmd"

/* ---- framing ------------------------------------------------------------- */

/* A PMI-1 spawn: lines up to one that is exactly "endcmd". */
static ssize_t wire_frame_mcmd (const char *data, size_t len)
{
    size_t pos = 0, max = len < PMI_WIRE_MAX_CMD ? len : PMI_WIRE_MAX_CMD;

    while (pos < max) {
        const char *nl = memchr (data + pos, '\n', max - pos);
        size_t line;

        if (!nl)
            break;
        line = (size_t)(nl - (data + pos));
        pos += line + 1;
        if (line == strlen (MCMD_END) && !memcmp (nl - line, MCMD_END, line))
            return (ssize_t)pos;
    }
    if (len >= PMI_WIRE_MAX_CMD) {
        errno = EMSGSIZE;
        return -1;
    }
    return 0;
}

static ssize_t wire_frame_line (const char *data, size_t len)
{
    size_t max = len < PMI_WIRE_MAX_CMD ? len : PMI_WIRE_MAX_CMD;
    size_t pfx = len < strlen (MCMD_PREFIX) ? len : strlen (MCMD_PREFIX);
    const char *nl;

    if (!memcmp (data, MCMD_PREFIX, pfx)) {
        if (pfx < strlen (MCMD_PREFIX))
            return 0; /* "mcm": a spawn or a line, cannot tell yet */
        return wire_frame_mcmd (data, len);
    }
    if ((nl = memchr (data, '\n', max)))
        return nl - data + 1;
    if (len >= PMI_WIRE_MAX_CMD) {
        errno = EMSGSIZE;
        return -1;
    }
    return 0;
}

/* The PMI-2 length prefix: digits, padded with spaces on either side.
 * The payload length, or -1 if it is not that. */
static long wire_hdr_len (const char *hdr)
{
    long n = 0;
    int i = 0, digits = 0;

    while (i < PMI_WIRE_HDR && hdr[i] == ' ')
        i++;
    for (; i < PMI_WIRE_HDR && hdr[i] >= '0' && hdr[i] <= '9'; i++, digits++)
        n = n * 10 + (hdr[i] - '0');
    while (i < PMI_WIRE_HDR && hdr[i] == ' ')
        i++;
    return i == PMI_WIRE_HDR && digits > 0 ? n : -1;
}

static ssize_t wire_frame_pmi2 (const char *data, size_t len)
{
    long n;

    if (len < PMI_WIRE_HDR)
        return 0;
    if ((n = wire_hdr_len (data)) <= 0) {
        errno = EPROTO;
        return -1;
    }
    if ((size_t)n > PMI_WIRE_MAX_CMD - PMI_WIRE_HDR) {
        errno = EMSGSIZE;
        return -1;
    }
    return len >= PMI_WIRE_HDR + (size_t)n ? PMI_WIRE_HDR + n : 0;
}

ssize_t pmi_wire_frame (enum pmi_proto proto, const char *data, size_t len)
{
    if (len == 0)
        return 0;
    if (proto == PMI_PROTO_2)
        return wire_frame_pmi2 (data, len);
    return wire_frame_line (data, len);
}

/* ---- parsing ------------------------------------------------------------- */

/* Record key=val (both in c->buf); the first pair must be cmd or mcmd. */
static int wire_add_pair (struct pmi_cmd *c, char *key, char *val,
                          arbor_error_t *err)
{
    if (!*key)
        return errprintf (err, "empty key");
    if (!c->name) {
        if (strcmp (key, "cmd") != 0 && strcmp (key, "mcmd") != 0)
            return errprintf (err, "'%.20s' where cmd= was expected", key);
        if (!*val)
            return errprintf (err, "empty command name");
        c->name = val;
        c->mcmd = key[0] == 'm';
        return 0;
    }
    if (c->npairs >= PMI_WIRE_MAX_PAIRS)
        return errprintf (err, "more than %d pairs", PMI_WIRE_MAX_PAIRS);
    c->pairs[c->npairs++] = (struct pmi_pair){ key, val };
    return 0;
}

/* PMI-1: tokens separated by spaces (and newlines in a spawn). */
static int wire_parse_line (struct pmi_cmd *c, arbor_error_t *err)
{
    char *p = c->buf;

    for (;;) {
        char *tok, *eq;

        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        tok = p;
        while (*p && *p != ' ' && *p != '\n')
            p++;
        if (*p)
            *p++ = '\0';
        if (c->mcmd && !strcmp (tok, MCMD_END))
            break;
        if (!(eq = strchr (tok, '=')))
            return errprintf (err, "'%.20s' is not key=value", tok);
        *eq = '\0';
        if (wire_add_pair (c, tok, eq + 1, err) < 0)
            return -1;
    }
    return 0;
}

/* PMI-2: key=value; pairs, ";;" in a value standing for ';'. Values are
 * unescaped in place (never longer than what they are read from). */
static int wire_parse_pmi2 (struct pmi_cmd *c, arbor_error_t *err)
{
    char *p = c->buf;

    while (*p) {
        char *key = p, *val, *w;

        while (*p && *p != '=' && *p != ';')
            p++;
        if (*p != '=')
            return errprintf (err, "'%.20s' is not key=value", key);
        *p++ = '\0';
        val = w = p;
        while (*p) {
            if (*p == ';' && p[1] == ';') {
                *w++ = ';';
                p += 2;
            } else if (*p == ';') {
                p++;
                break;
            } else
                *w++ = *p++;
        }
        *w = '\0';
        if (wire_add_pair (c, key, val, err) < 0)
            return -1;
    }
    return 0;
}

int pmi_wire_parse (enum pmi_proto proto, const char *data, size_t len,
                    struct pmi_cmd *c, arbor_error_t *err)
{
    size_t off = 0, n = len;
    int rc;

    memset (c, 0, offsetof (struct pmi_cmd, buf));
    c->buf[0] = '\0';
    if (proto == PMI_PROTO_2) {
        if (len < PMI_WIRE_HDR
            || wire_hdr_len (data) != (long)(len - PMI_WIRE_HDR)) {
            errno = EPROTO;
            return errprintf (err, "length prefix does not match");
        }
        off = PMI_WIRE_HDR;
        n = len - PMI_WIRE_HDR;
    } else if (len > 0 && data[len - 1] == '\n')
        n = len - 1;
    if (n > PMI_WIRE_MAX_CMD) {
        errno = EMSGSIZE;
        return errprintf (err, "command of %zu bytes", n);
    }
    if (memchr (data + off, '\0', n)) {
        errno = EPROTO;
        return errprintf (err, "NUL byte in command");
    }
    memcpy (c->buf, data + off, n);
    c->buf[n] = '\0';
    rc = proto == PMI_PROTO_2 ? wire_parse_pmi2 (c, err)
                              : wire_parse_line (c, err);
    if (rc == 0 && !c->name)
        rc = errprintf (err, "no cmd=");
    if (rc < 0)
        errno = EPROTO;
    return rc;
}

const char *pmi_cmd_get (const struct pmi_cmd *c, const char *key)
{
    for (size_t i = 0; i < c->npairs; i++)
        if (!strcmp (c->pairs[i].key, key))
            return c->pairs[i].val;
    return NULL;
}

/* ---- formatting ---------------------------------------------------------- */

/* Room left: an answer, its framing included, is at most
 * PMI_WIRE_MAX_CMD bytes (what pmi_wire_frame accepts), keeping one for
 * PMI-1's newline. */
static size_t resp_room (const struct pmi_resp *r)
{
    size_t max = PMI_WIRE_MAX_CMD - (r->proto == PMI_PROTO_2 ? 0 : 1);

    return r->len < max ? max - r->len : 0;
}

static void resp_put (struct pmi_resp *r, const char *s, size_t n)
{
    if (r->error)
        return;
    if (n > resp_room (r)) {
        r->error = EMSGSIZE;
        return;
    }
    memcpy (r->buf + r->len, s, n);
    r->len += n;
}

void pmi_resp_init (struct pmi_resp *r, enum pmi_proto proto, const char *cmd)
{
    r->proto = proto;
    r->error = 0;
    r->len = proto == PMI_PROTO_2 ? PMI_WIRE_HDR : 0;
    pmi_resp_add (r, "cmd", cmd);
}

static bool resp_key_ok (const struct pmi_resp *r, const char *key)
{
    const char *bad = r->proto == PMI_PROTO_2 ? "=;" : "= \n";

    return *key && !key[strcspn (key, bad)];
}

void pmi_resp_add (struct pmi_resp *r, const char *key, const char *val)
{
    bool first = r->len == (r->proto == PMI_PROTO_2 ? PMI_WIRE_HDR : 0);

    if (r->error)
        return;
    if (!resp_key_ok (r, key)
        || (r->proto != PMI_PROTO_2 && val[strcspn (val, " \n")])) {
        r->error = EINVAL;
        return;
    }
    if (r->proto != PMI_PROTO_2) {
        if (!first)
            resp_put (r, " ", 1);
        resp_put (r, key, strlen (key));
        resp_put (r, "=", 1);
        resp_put (r, val, strlen (val));
        return;
    }
    resp_put (r, key, strlen (key));
    resp_put (r, "=", 1);
    for (const char *p = val; *p; p++) {
        resp_put (r, p, 1);
        if (*p == ';')
            resp_put (r, ";", 1); /* escaped by doubling */
    }
    resp_put (r, ";", 1);
}

void pmi_resp_addint (struct pmi_resp *r, const char *key, long long val)
{
    char num[24];

    snprintf (num, sizeof (num), "%lld", val);
    pmi_resp_add (r, key, num);
}

void pmi_resp_addtext (struct pmi_resp *r, const char *key, const char *text)
{
    char clean[256];
    size_t n = 0, max = sizeof (clean) - 1;

    if (r->error)
        return;
    /* PMI-2 doubles ';': keep room for that */
    if (resp_room (r) < strlen (key) + 3)
        max = 0;
    else if (resp_room (r) - strlen (key) - 3 < max)
        max = (resp_room (r) - strlen (key) - 3) / 2;
    for (; text[n] && n < max; n++) {
        unsigned char ch = (unsigned char)text[n];
        bool bad =
            ch < 0x20 || ch == 0x7f || (r->proto != PMI_PROTO_2 && ch == ' ');
        clean[n] = bad ? '_' : (char)ch;
    }
    clean[n] = '\0';
    pmi_resp_add (r, key, clean);
}

int pmi_resp_end (struct pmi_resp *r)
{
    char hdr[PMI_WIRE_HDR + 1];

    if (!r->error && r->proto == PMI_PROTO_2) {
        snprintf (hdr, sizeof (hdr), "%-6zu", r->len - PMI_WIRE_HDR);
        memcpy (r->buf, hdr, PMI_WIRE_HDR);
    } else if (!r->error)
        r->buf[r->len++] = '\n';
    if (r->error) {
        errno = r->error;
        return -1;
    }
    r->buf[r->len] = '\0';
    return 0;
}

/* ---- PMI_process_mapping ------------------------------------------------- */

/* One "(first node, nodes, tasks per node)" of a mapping. */
struct pmi_tuple {
    uint32_t first, nodes, depth;
};

/* The tuples of the rank walk: runs of consecutive ranks on one node,
 * merged while each next run is on the next node and as long. */
static size_t pmi_tuples (const uint32_t *node_of, uint32_t ntasks,
                          struct pmi_tuple *t)
{
    size_t n = 0;

    for (uint32_t r = 0, end; r < ntasks; r = end) {
        for (end = r + 1; end < ntasks && node_of[end] == node_of[r]; end++)
            ;
        if (n > 0 && t[n - 1].depth == end - r
            && t[n - 1].first + t[n - 1].nodes == node_of[r])
            t[n - 1].nodes++;
        else
            t[n++] = (struct pmi_tuple){ node_of[r], 1, end - r };
    }
    return n;
}

/* The shortest prefix of t[0..n) that t repeats exactly. */
static size_t pmi_period (const struct pmi_tuple *t, size_t n)
{
    for (size_t p = 1; p < n; p++) {
        size_t i;
        if (n % p)
            continue;
        for (i = p; i < n; i++)
            if (memcmp (&t[i], &t[i % p], sizeof (*t)))
                break;
        if (i == n)
            return p;
    }
    return n;
}

static int pmi_tuples_format (char *buf, size_t size, const struct pmi_tuple *t,
                              size_t n)
{
    size_t len;
    int k;

    if ((k = snprintf (buf, size, "(vector")) < 0 || (size_t)k >= size)
        goto full;
    len = (size_t)k;
    for (size_t i = 0; i < n; i++) {
        k = snprintf (buf + len, size - len, ",(%u,%u,%u)", t[i].first,
                      t[i].nodes, t[i].depth);
        if (k < 0 || (size_t)k >= size - len)
            goto full;
        len += (size_t)k;
    }
    if (len + 1 >= size)
        goto full;
    buf[len++] = ')';
    buf[len] = '\0';
    return 0;
full:
    if (size > 0)
        buf[0] = '\0';
    errno = EMSGSIZE;
    return -1;
}

int pmi_wire_mapping (char *buf, size_t size, const uint32_t *tasks,
                      uint32_t nnodes)
{
    struct pmi_tuple *t;
    size_t n = 0;
    int rc;

    if (nnodes == 0 || !(t = calloc (nnodes, sizeof (*t)))) {
        errno = nnodes ? ENOMEM : EINVAL;
        return -1;
    }
    for (uint32_t i = 0, j; i < nnodes; i = j) { /* runs of equal counts */
        for (j = i + 1; j < nnodes && tasks[j] == tasks[i]; j++)
            ;
        t[n++] = (struct pmi_tuple){ i, j - i, tasks[i] };
    }
    rc = pmi_tuples_format (buf, size, t, n);
    free (t);
    return rc;
}

int pmi_wire_mapping_ranks (char *buf, size_t size, const uint32_t *tasks,
                            uint32_t nnodes, const uint32_t *ranks)
{
    uint64_t total = 0;
    uint32_t *node_of, at = 0;
    struct pmi_tuple *t;
    int rc;

    if (!ranks || nnodes == 0)
        return pmi_wire_mapping (buf, size, tasks, nnodes);
    for (uint32_t i = 0; i < nnodes; i++)
        total += tasks[i];
    if (total == 0 || total > UINT32_MAX) {
        errno = EINVAL;
        return -1;
    }
    node_of = malloc (total * sizeof (*node_of));
    t = malloc (total * sizeof (*t));
    if (!node_of || !t) {
        free (node_of);
        free (t);
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t i = 0; i < nnodes; i++)
        for (uint32_t k = 0; k < tasks[i]; k++, at++)
            node_of[ranks[at] < total ? ranks[at] : 0] = i;
    size_t n = pmi_tuples (node_of, (uint32_t)total, t);
    rc = pmi_tuples_format (buf, size, t, pmi_period (t, n));
    free (node_of);
    free (t);
    return rc;
}
