/* bcast_libs.c - the shared libraries of an executable (bcast_libs.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bcast_libs.h"

#define LDD_OUTPUT_MAX (1u << 20)

static int libs_add (struct bcast_libs *out, const char *name, size_t nlen,
                     const char *path, size_t plen)
{
    struct bcast_lib *v = realloc (out->v, (out->n + 1) * sizeof (*v));

    if (!v)
        return -1;
    out->v = v;
    v[out->n].name = strndup (name, nlen);
    v[out->n].path = strndup (path, plen);
    if (!v[out->n].name || !v[out->n].path) {
        free (v[out->n].name);
        free (v[out->n].path);
        errno = ENOMEM;
        return -1;
    }
    out->n++;
    return 0;
}

/* One line: "\tNAME => /PATH (0xADDR)". */
static int libs_parse_line (const char *line, size_t len,
                            struct bcast_libs *out)
{
    const char *end = line + len, *arrow, *name, *path, *p;

    for (name = line; name < end && (*name == ' ' || *name == '\t'); name++)
        ;
    arrow = memmem (name, (size_t)(end - name), " => ", 4);
    if (!arrow || arrow == name)
        return 0;
    path = arrow + 4;
    if (path >= end || *path != '/')
        return 0; /* "not found", or nothing */
    for (p = path; p < end && *p != ' ' && *p != '\t'; p++)
        ;
    if (memchr (name, '/', (size_t)(arrow - name)))
        return 0; /* a name with a slash is a path, not a soname */
    return libs_add (out, name, (size_t)(arrow - name), path,
                     (size_t)(p - path));
}

int bcast_libs_parse (const char *text, struct bcast_libs *out)
{
    const char *p = text;

    while (*p) {
        const char *nl = strchr (p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen (p);
        if (libs_parse_line (p, len, out) < 0)
            return -1;
        p += len + (nl ? 1 : 0);
    }
    return 0;
}

bool bcast_libs_excluded (const char *path, const char *exclude)
{
    const char *p = exclude ? exclude : BCAST_EXCLUDE_DEFAULT;

    if (!strcasecmp (p, "NONE"))
        return false;
    while (*p) {
        size_t n = strcspn (p, ",");
        while (n > 1 && p[n - 1] == '/')
            n--; /* "/usr/lib/" is "/usr/lib" */
        if (n > 0 && !strncmp (path, p, n) && path[n] == '/')
            return true;
        p += strcspn (p, ",");
        if (*p == ',')
            p++;
    }
    return false;
}

void bcast_libs_filter (struct bcast_libs *libs, const char *exclude)
{
    size_t k = 0;

    for (size_t i = 0; i < libs->n; i++) {
        if (bcast_libs_excluded (libs->v[i].path, exclude)) {
            free (libs->v[i].name);
            free (libs->v[i].path);
        } else
            libs->v[k++] = libs->v[i];
    }
    libs->n = k;
}

/* ldd's whole output, at most LDD_OUTPUT_MAX bytes. */
static char *libs_run_ldd (const char *exe, int *status)
{
    int fds[2];
    pid_t pid;
    char *buf = malloc (LDD_OUTPUT_MAX + 1);
    size_t got = 0;
    ssize_t n;

    if (!buf || pipe2 (fds, O_CLOEXEC) < 0 || (pid = fork ()) < 0) {
        free (buf);
        return NULL;
    }
    if (pid == 0) {
        dup2 (fds[1], 1);
        execlp ("ldd", "ldd", "--", exe, (char *)NULL);
        _exit (127);
    }
    close (fds[1]);
    while (got < LDD_OUTPUT_MAX
           && ((n = read (fds[0], buf + got, LDD_OUTPUT_MAX - got)) > 0
               || (n < 0 && errno == EINTR)))
        got += n > 0 ? (size_t)n : 0;
    close (fds[0]);
    buf[got] = '\0';
    while (waitpid (pid, status, 0) < 0 && errno == EINTR)
        ;
    return buf;
}

int bcast_libs_find (const char *exe, struct bcast_libs *out, char *why,
                     size_t len)
{
    int status = 0;
    char *text = libs_run_ldd (exe, &status);
    int rc;

    if (!text) {
        snprintf (why, len, "cannot run ldd: %s", strerror (errno));
        return -1;
    }
    if (WIFEXITED (status) && WEXITSTATUS (status) == 127) {
        free (text);
        errno = ENOENT;
        snprintf (why, len, "cannot run ldd (is libc-bin installed?)");
        return -1;
    }
    /* ldd fails on a static or non-ELF file: nothing to send then, as
     * Slurm sends nothing for it. */
    rc = bcast_libs_parse (text, out);
    if (rc < 0)
        snprintf (why, len, "out of memory");
    free (text);
    return rc;
}

void bcast_libs_clear (struct bcast_libs *libs)
{
    for (size_t i = 0; i < libs->n; i++) {
        free (libs->v[i].name);
        free (libs->v[i].path);
    }
    free (libs->v);
    libs->v = NULL;
    libs->n = 0;
}
