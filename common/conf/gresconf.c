/* gresconf.c - gres.conf, in Slurm's format; see gresconf.h.
 *
 * Line by line: blanks separate KEY=VALUE words, '#' ends the line's
 * text. File= is expanded as a host list is ("/dev/nvidia[0-3]"), so
 * that a line names each device file it gives.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gresconf.h"
#include "hostlist.h"

static const char *const autodetect_ok[] = { "nvml", "rsmi",   "oneapi",
                                             "nrt",  "nvidia", "off" };

static int line_fail (arbor_error_t *err, unsigned lineno, const char *what,
                      const char *arg)
{
    errno = EINVAL;
    return errprintf (err, "gres.conf line %u: %s%s%s%s", lineno, what,
                      arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
}

static bool word_ok (const char *s, bool is_type)
{
    if (!*s || strlen (s) > (is_type ? 63 : 31))
        return false;
    for (; *s; s++)
        if (!isalnum ((unsigned char)*s) && *s != '_'
            && !(is_type && (*s == '-' || *s == '.')))
            return false;
    return true;
}

/* Count=: digits, then k, m or g (x1024 each). 0 if not one. */
static uint64_t count_of (const char *s)
{
    char *end;
    unsigned long long v;

    if (!isdigit ((unsigned char)*s))
        return 0;
    errno = 0;
    v = strtoull (s, &end, 10);
    if (errno || v > (1ull << 40))
        return 0;
    if (*end && end[1] == '\0' && strchr ("kKmMgG", *end))
        v <<= (*end == 'k' || *end == 'K')   ? 10
              : (*end == 'm' || *end == 'M') ? 20
                                             : 30;
    else if (*end)
        return 0;
    return v > (1ull << 40) ? 0 : v;
}

static int set_files (struct gresconf_line *l, const char *v,
                      arbor_error_t *err)
{
    arbor_error_t herr = { "" };
    struct hostlist *hl = hostlist_create (v, &herr);
    size_t n;

    if (!hl)
        return line_fail (err, l->lineno, "File= is not a file list:", v);
    if ((n = hostlist_count (hl)) == 0 || n > GRESCONF_FILES_MAX) {
        hostlist_destroy (hl);
        return line_fail (
            err, l->lineno,
            n ? "File= names too many files:" : "File= names no file:", v);
    }
    if (!(l->files = calloc (n + 1, sizeof (char *)))) {
        hostlist_destroy (hl);
        return errprintf (err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (!(l->files[l->nfiles++] = strdup (hostlist_nth (hl, i)))) {
            hostlist_destroy (hl);
            return errprintf (err, "out of memory");
        }
    hostlist_destroy (hl);
    return 0;
}

static int set_str (char **slot, const char *v, struct gresconf_line *l,
                    const char *key, arbor_error_t *err)
{
    if (*slot)
        return line_fail (err, l->lineno, "key given twice:", key);
    if (!(*slot = strdup (v)))
        return errprintf (err, "out of memory");
    return 0;
}

static bool autodetect_valid (const char *v)
{
    for (size_t i = 0; i < sizeof (autodetect_ok) / sizeof (*autodetect_ok);
         i++)
        if (!strcasecmp (v, autodetect_ok[i]))
            return true;
    return false;
}

/* One KEY=VALUE word of line l. */
static int set_key (struct gresconf_line *l, const char *key, const char *v,
                    bool *counted, arbor_error_t *err)
{
    if (!strcasecmp (key, "Name"))
        return word_ok (v, false)
                   ? set_str (&l->name, v, l, key, err)
                   : line_fail (err, l->lineno, "Name= is not a name:", v);
    if (!strcasecmp (key, "Type"))
        return word_ok (v, true)
                   ? set_str (&l->type, v, l, key, err)
                   : line_fail (err, l->lineno, "Type= is not a type:", v);
    if (!strcasecmp (key, "NodeName"))
        return set_str (&l->nodes, v, l, key, err);
    if (!strcasecmp (key, "Cores"))
        return set_str (&l->cores, v, l, key, err);
    if (!strcasecmp (key, "Flags"))
        return set_str (&l->flags, v, l, key, err);
    if (!strcasecmp (key, "AutoDetect"))
        return autodetect_valid (v) ? set_str (&l->autodetect, v, l, key, err)
                                    : line_fail (err, l->lineno,
                                                 "AutoDetect= is not one of "
                                                 "nvml, rsmi, oneapi, nrt, "
                                                 "nvidia, off:",
                                                 v);
    if (!strcasecmp (key, "File")) {
        if (l->files)
            return line_fail (err, l->lineno, "key given twice:", key);
        return set_files (l, v, err);
    }
    if (!strcasecmp (key, "Count")) {
        if (!(l->count = count_of (v)))
            return line_fail (err, l->lineno, "Count= is not a count:", v);
        *counted = true;
        return 0;
    }
    return line_fail (err, l->lineno, "unknown key", key);
}

/* What a line must hold once read. */
static int line_check (struct gresconf_line *l, bool counted,
                       arbor_error_t *err)
{
    if (!l->name && (l->type || l->files || counted || l->cores))
        return line_fail (err, l->lineno, "Name= missing", NULL);
    if (!l->name && !l->autodetect)
        return line_fail (err, l->lineno, "Name= or AutoDetect= expected",
                          NULL);
    if (counted && l->files && l->count != l->nfiles)
        return line_fail (err, l->lineno,
                          "Count= is not the number of File= files", NULL);
    if (!counted)
        l->count = l->nfiles ? l->nfiles : 1;
    return 0;
}

static void line_clear (struct gresconf_line *l)
{
    for (size_t i = 0; i < l->nfiles; i++)
        free (l->files[i]);
    free (l->files);
    free (l->nodes);
    free (l->name);
    free (l->type);
    free (l->cores);
    free (l->flags);
    free (l->autodetect);
}

/* Parse one line's text (a copy the words are cut in) into l. */
static int line_parse (char *text, struct gresconf_line *l, arbor_error_t *err)
{
    bool counted = false;
    char *save = NULL;

    for (char *w = strtok_r (text, " \t\r", &save); w;
         w = strtok_r (NULL, " \t\r", &save)) {
        char *eq = strchr (w, '=');
        if (!eq || eq == w || !eq[1])
            return line_fail (err, l->lineno, "KEY=VALUE expected:", w);
        *eq = '\0';
        if (set_key (l, w, eq + 1, &counted, err) < 0)
            return -1;
    }
    return line_check (l, counted, err);
}

/* Is the line's text (before '#') blank? */
static bool blank (const char *s)
{
    for (; *s && *s != '#'; s++)
        if (!isspace ((unsigned char)*s))
            return false;
    return true;
}

static int add_line (struct gresconf *out, const char *s, size_t len,
                     unsigned lineno, arbor_error_t *err)
{
    char *text = strndup (s, len), *hash;
    struct gresconf_line l = { .lineno = lineno };
    struct gresconf_line *v;
    int rc;

    if (!text)
        return errprintf (err, "out of memory");
    if ((hash = strchr (text, '#')))
        *hash = '\0';
    if (out->n >= GRESCONF_LINES_MAX)
        rc = line_fail (err, lineno, "too many lines", NULL);
    else
        rc = line_parse (text, &l, err);
    free (text);
    if (rc == 0 && !(v = realloc (out->v, (out->n + 1) * sizeof (*v))))
        rc = errprintf (err, "out of memory");
    if (rc < 0) {
        line_clear (&l);
        return -1;
    }
    out->v = v;
    out->v[out->n++] = l;
    return 0;
}

int gresconf_parse (const char *text, struct gresconf *out, arbor_error_t *err)
{
    unsigned lineno = 0;

    memset (out, 0, sizeof (*out));
    for (const char *p = text ? text : ""; *p;) {
        size_t len = strcspn (p, "\n");
        lineno++;
        char *line = strndup (p, len);
        bool skip = line && blank (line);
        free (line);
        if (!skip && add_line (out, p, len, lineno, err) < 0) {
            int e = errno == ENOMEM ? ENOMEM : EINVAL;
            gresconf_clear (out);
            errno = e;
            return -1;
        }
        p += len + (p[len] == '\n');
    }
    return 0;
}

void gresconf_clear (struct gresconf *g)
{
    for (size_t i = 0; i < g->n; i++)
        line_clear (&g->v[i]);
    free (g->v);
    g->v = NULL;
    g->n = 0;
}
