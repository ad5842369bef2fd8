/* local_conf.c - the directory and arbor.conf of an "arbor local" cluster.
 *
 * The directory holds everything the emulated cluster writes: arbor.conf,
 * log/ (daemon logs and their stdout/stderr), spool/%n, state/ and, when
 * we start our own munged, munge/. It is 0755 and the config 0644 so that
 * a command dropped to another user can still read them.
 *
 * Nodes are node1..nodeK at 127.0.1.1..127.0.1.254, then 127.0.2.1... (the
 * whole 127/8 is loopback on Linux, so every node gets its own address and
 * all noded share one port). Ports are picked free by binding port 0.
 * With --netns, nodeK is at NET.K and the ctld at NET.253 (local_netns.c),
 * each alone in its namespace, on the default ports 6817 and 6818, and
 * NodesShareHost=YES keeps the nodes' cgroups apart.
 * --set lines replace a default line with the same key (so that the value
 * does not depend on whether the parser lets the last duplicate win), or
 * are appended; the whole text is validated with conf_parse() before it is
 * written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "conf.h"
#include "local_base.h"
#include "local_conf.h"
#include "local_gres.h"
#include "local_netns.h"

#define LOCAL_HOSTS_PER_NET 254

/* A growing list of config lines. */
struct lines {
    char **v;
    size_t n;
};

static int lines_add (struct lines *ls, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int lines_add (struct lines *ls, const char *fmt, ...)
{
    va_list ap;
    char *s;
    char **nv = realloc (ls->v, (ls->n + 1) * sizeof (*nv));

    if (!nv)
        return -1;
    ls->v = nv;
    va_start (ap, fmt);
    int rc = vasprintf (&s, fmt, ap);
    va_end (ap);
    if (rc < 0)
        return -1;
    ls->v[ls->n++] = s;
    return 0;
}

static void lines_free (struct lines *ls)
{
    for (size_t i = 0; i < ls->n; i++)
        free (ls->v[i]);
    free (ls->v);
    ls->v = NULL;
    ls->n = 0;
}

static int mkdir_mode (const char *path, mode_t mode)
{
    if (mkdir (path, mode) < 0 && errno != EEXIST) {
        local_say ("mkdir %s: %s", path, strerror (errno));
        return -1;
    }
    if (chmod (path, mode) < 0) {
        local_say ("chmod %s: %s", path, strerror (errno));
        return -1;
    }
    return 0;
}

/* mkdir -p for --dir; the leaf gets 'mode'. */
static int mkdir_parents (const char *path, mode_t mode)
{
    char buf[PATH_MAX];

    if (local_path (buf, sizeof (buf), "%s", path) < 0) {
        local_say ("%s: path too long", path);
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir (buf, 0755) < 0 && errno != EEXIST) {
            local_say ("mkdir %s: %s", buf, strerror (errno));
            return -1;
        }
        *p = '/';
    }
    return mkdir_mode (buf, mode);
}

/* The spool holds what every step makes and removes on every node (its
 * stepd's socket and record), so on an emulated cluster it goes on tmpfs
 * when /dev/shm is one, rather than through a filesystem journal a
 * thousand times a launch: DIR/spool is then a symlink to a fresh
 * /dev/shm/arbor-spool.XXXXXX, removed at teardown with the link (kept
 * or not, DIR holds no live process then). A real DIR/spool left by an
 * earlier run with --dir is used as it is. */
static int spool_setup (struct local *l, const char *link)
{
    char tmpl[PATH_MAX];
    struct statfs sf;
    struct stat st;

    if (lstat (link, &st) == 0 && !S_ISLNK (st.st_mode))
        return mkdir_mode (link, 0755);
    if (statfs ("/dev/shm", &sf) < 0 || sf.f_type != TMPFS_MAGIC
        || access ("/dev/shm", W_OK | X_OK) < 0)
        return mkdir_mode (link, 0755);
    local_path (tmpl, sizeof (tmpl), "/dev/shm/arbor-spool.XXXXXX");
    if (!mkdtemp (tmpl))
        return mkdir_mode (link, 0755);
    (void)unlink (link); /* a symlink left by an earlier run */
    if (chmod (tmpl, 0755) < 0 || symlink (tmpl, link) < 0) {
        (void)rmdir (tmpl);
        return mkdir_mode (link, 0755);
    }
    local_path (l->spool_tmp, sizeof (l->spool_tmp), "%s", tmpl);
    return 0;
}

int local_dir_setup (struct local *l)
{
    static const char *const subdirs[] = { "log", "state" };
    char path[PATH_MAX];

    if (l->opt.dir) {
        if (mkdir_parents (l->opt.dir, 0755) < 0)
            return -1;
        if (!realpath (l->opt.dir, l->dir)) {
            local_say ("%s: %s", l->opt.dir, strerror (errno));
            return -1;
        }
    } else {
        const char *tmp = getenv ("TMPDIR");
        if (!tmp || !*tmp)
            tmp = "/tmp";
        local_path (path, sizeof (path), "%s/arbor-local.XXXXXX", tmp);
        if (!mkdtemp (path) || !realpath (path, l->dir)) {
            local_say ("mkdtemp %s: %s", path, strerror (errno));
            return -1;
        }
        l->remove_dir = !l->opt.keep;
        if (chmod (l->dir, 0755) < 0) {
            local_say ("chmod %s: %s", l->dir, strerror (errno));
            return -1;
        }
    }
    /* Room for the longest file name we put below DIR. */
    if (strlen (l->dir) > PATH_MAX - 128) {
        local_say ("%s: path too long", l->dir);
        return -1;
    }
    /* state/ holds every user's batch scripts and their environment
     * (secrets exported to a job among them): the controller's alone,
     * which it checks at start (store.h). */
    for (size_t i = 0; i < sizeof (subdirs) / sizeof (subdirs[0]); i++) {
        local_path (path, sizeof (path), "%s/%s", l->dir, subdirs[i]);
        if (mkdir_mode (path, strcmp (subdirs[i], "state") ? 0755 : 0700) < 0)
            return -1;
    }
    local_path (path, sizeof (path), "%s/spool", l->dir);
    if (spool_setup (l, path) < 0)
        return -1;
    local_path (l->conf_path, sizeof (l->conf_path), "%s/arbor.conf", l->dir);
    return 0;
}

/* Bind addr:port (port 0: any); return the bound port or -1. */
static int port_bind (const char *addr, uint16_t port)
{
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_port = htons (port) };
    socklen_t len = sizeof (sin);
    int fd, rc = -1;

    if (inet_pton (AF_INET, addr, &sin.sin_addr) != 1)
        return -1;
    if ((fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return -1;
    if (bind (fd, (struct sockaddr *)&sin, sizeof (sin)) == 0
        && getsockname (fd, (struct sockaddr *)&sin, &len) == 0)
        rc = ntohs (sin.sin_port);
    close (fd);
    return rc;
}

static void node_addr (unsigned i, char *buf, size_t len)
{
    local_path (buf, len, "127.0.%u.%u", 1 + (i - 1) / LOCAL_HOSTS_PER_NET,
                1 + (i - 1) % LOCAL_HOSTS_PER_NET);
}

/* A port free on every node address (and not the ctld's). */
static int pick_noded_port (unsigned nnodes, int ctld_port)
{
    char addr[32];

    for (int attempt = 0; attempt < 50; attempt++) {
        int port = port_bind ("127.0.1.1", 0);
        unsigned i;

        if (port < 0 || port == ctld_port)
            continue;
        for (i = 2; i <= nnodes; i++) {
            node_addr (i, addr, sizeof (addr));
            if (port_bind (addr, (uint16_t)port) < 0)
                break;
        }
        if (i > nnodes)
            return port;
    }
    return -1;
}

/* Every emulated node's TmpDisk: the size of this host's /tmp in MB, as
 * a slurmd reports its TmpFS (srun --tmp is checked against it). */
static unsigned local_tmp_disk_mb (void)
{
    struct statvfs v;
    unsigned long long mb;

    if (statvfs ("/tmp", &v) < 0)
        return 0;
    mb = (unsigned long long)v.f_blocks * v.f_frsize / (1024 * 1024);
    return mb > UINT32_MAX - 1 ? UINT32_MAX - 1 : (unsigned)mb;
}

/* What every node line ends with: " Features=..." (--features), and
 * " Gres=gpu:N" (--gres). */
static int node_extras (const struct local *l, char *buf, size_t len)
{
    int n = 0;

    buf[0] = '\0';
    if (l->opt.features && *l->opt.features)
        n = snprintf (buf, len, " Features=%s", l->opt.features);
    if (n >= 0 && (size_t)n < len && l->opt.gpus)
        n += snprintf (buf + n, len - (size_t)n, " Gres=gpu:%u", l->opt.gpus);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* --netns: nodeK at NET.K on the cluster's bridge (local_netns.c), all
 * on one kernel. */
static int add_netns_node_line (struct local *l, struct lines *ls)
{
    unsigned k = l->opt.nnodes;
    char extras[1200];

    if (node_extras (l, extras, sizeof (extras)) < 0)
        return -1;
    if (k == 1)
        return lines_add (ls,
                          "NodeName=node1 NodeAddr=%s.1 CPUs=%u "
                          "RealMemory=%u TmpDisk=%u%s",
                          l->ns_net, l->opt.cpus, l->opt.mem_mb,
                          local_tmp_disk_mb (), extras);
    return lines_add (ls,
                      "NodeName=node[1-%u] NodeAddr=%s.[1-%u] CPUs=%u "
                      "RealMemory=%u TmpDisk=%u%s",
                      k, l->ns_net, k, l->opt.cpus, l->opt.mem_mb,
                      local_tmp_disk_mb (), extras);
}

/* "node[a-b]" or "nodeA", and the matching address expression. */
static int add_node_lines (struct local *l, struct lines *ls)
{
    unsigned k = l->opt.nnodes;

    if (l->opt.netns) {
        if (add_netns_node_line (l, ls) < 0)
            return -1;
        k = 0; /* no loopback lines */
    }
    for (unsigned first = 1; first <= k; first += LOCAL_HOSTS_PER_NET) {
        unsigned last = first + LOCAL_HOSTS_PER_NET - 1;
        unsigned net = 1 + (first - 1) / LOCAL_HOSTS_PER_NET;
        int rc;

        if (last > k)
            last = k;
        if (first == last)
            rc = lines_add (ls, "NodeName=node%u NodeAddr=127.0.%u.1", first,
                            net);
        else
            rc = lines_add (ls, "NodeName=node[%u-%u] NodeAddr=127.0.%u.[1-%u]",
                            first, last, net, last - first + 1);
        if (rc < 0)
            return -1;
        /* CPUs, memory and the extras go on the same line. */
        char *s, extras[1200];
        if (node_extras (l, extras, sizeof (extras)) < 0
            || asprintf (&s, "%s CPUs=%u RealMemory=%u TmpDisk=%u%s",
                         ls->v[ls->n - 1], l->opt.cpus, l->opt.mem_mb,
                         local_tmp_disk_mb (), extras)
                   < 0)
            return -1;
        free (ls->v[ls->n - 1]);
        ls->v[ls->n - 1] = s;
    }
    /* Nodes=ALL rather than node[1-K]: the same partition, and every
     * daemon and command that parses arbor.conf need not look each of K
     * names up among the K nodes. */
    return lines_add (ls, "PartitionName=debug Nodes=ALL Default=YES "
                          "MaxTime=INFINITE");
}

/* Steps are contained in cgroups when we are root, each cluster under its
 * own CgroupRoot so that clusters running side by side (whose job ids all
 * start at 1) never share a step's cgroup; local_cgroup_cleanup() removes
 * it at teardown. An ordinary user cannot create cgroups: process groups
 * then, and arbor local's own teardown catches what escapes them. */
static int add_proctrack_lines (struct lines *ls)
{
    if (geteuid () != 0)
        return lines_add (ls, "ProctrackType=proctrack/pgid");
    return lines_add (ls, "CgroupRoot=%s/local-%ld", LOCAL_CGROUP_PARENT,
                      (long)getpid ());
}

/* Every emulated node shares this host's cores, so a big cluster starts
 * its stepds one after another, not side by side: 10 s as on a real
 * cluster, plus a second for every 64 nodes beyond 640 (a 1,024-node
 * launch takes about 5 s of this host's time on two cores, and the
 * leaves of its tree get about a third of the budget). */
static unsigned local_launch_timeout (const struct local *l)
{
    unsigned n = l->opt.nnodes;

    return 10 + (n > 640 ? (n - 640) / 64 : 0);
}

static int add_default_lines (struct local *l, struct lines *ls, int ctld_port,
                              int noded_port)
{
    struct passwd *pw = getpwuid (getuid ());
    const char *lvl = l->opt.debug ? "debug" : "info";
    const char *d = l->dir;
    char ctld_addr[32] = "127.0.0.1";

    if (l->opt.netns)
        local_netns_addr (l, LOCAL_NETNS_CTLD_HOST, ctld_addr,
                          sizeof (ctld_addr));

    if (!pw) {
        local_say ("cannot find the name of uid %u", (unsigned)getuid ());
        return -1;
    }
    if (lines_add (ls,
                   "# Written by arbor local: an emulated cluster of %u "
                   "nodes on this host.",
                   l->opt.nnodes)
            < 0
        || lines_add (ls, "ClusterName=local") < 0
        || lines_add (ls, "ControlAddr=%s", ctld_addr) < 0
        || lines_add (ls, "CtldPort=%d", ctld_port) < 0
        || lines_add (ls, "NodedPort=%d", noded_port) < 0
        || lines_add (ls, "TreeWidth=%u", l->opt.tree_width) < 0
        || lines_add (ls, "KillWait=5") < 0
        || lines_add (ls, "LaunchTimeout=%u", local_launch_timeout (l)) < 0
        || lines_add (ls, "SpoolDir=%s/spool/%%n", d) < 0
        || lines_add (ls, "StateSaveLocation=%s/state", d) < 0
        || (l->munge_socket[0]
            && lines_add (ls, "MungeSocket=%s", l->munge_socket) < 0)
        || lines_add (ls, "ArborUser=%s", pw->pw_name) < 0
        || lines_add (ls, "NodedUser=%s", pw->pw_name) < 0
        || lines_add (ls, "CtldLogFile=%s/log/ctld.log", d) < 0
        || lines_add (ls, "NodedLogFile=%s/log/noded-%%n.log", d) < 0
        || lines_add (ls, "DebugLevel=%s", lvl) < 0
        || lines_add (ls, "NodedDebugLevel=%s", lvl) < 0
        || add_proctrack_lines (ls) < 0
        || (l->opt.netns && lines_add (ls, "NodesShareHost=YES") < 0)
        || ((l->opt.gpus || l->opt.nvml) && lines_add (ls, "GresTypes=gpu") < 0)
        || ((l->opt.gpus || l->opt.nvml) && geteuid () == 0
            && lines_add (ls, "ConstrainDevices=yes") < 0))
        return -1;
    return add_node_lines (l, ls);
}

static bool key_is (const char *line, const char *key, size_t keylen)
{
    return strncasecmp (line, key, keylen) == 0 && line[keylen] == '=';
}

/* Apply one --set: replace a scalar default of the same key, else append. */
static int apply_set (struct lines *ls, const char *set)
{
    const char *eq = strchr (set, '=');
    size_t keylen = eq ? (size_t)(eq - set) : 0;

    if (!eq || keylen == 0 || strchr (set, '\n')) {
        local_say ("--set %s: expected KEY=VALUE", set);
        return -1;
    }
    bool multi = key_is (set, "NodeName", keylen)
                 || key_is (set, "PartitionName", keylen);
    for (size_t i = 0; i < ls->n && !multi; i++) {
        if (ls->v[i][0] != '#' && key_is (ls->v[i], set, keylen)) {
            free (ls->v[i]);
            memmove (&ls->v[i], &ls->v[i + 1],
                     (ls->n - i - 1) * sizeof (char *));
            ls->n--;
            i--;
        }
    }
    return lines_add (ls, "%s", set);
}

static char *lines_join (const struct lines *ls)
{
    size_t len = 1;
    char *text, *p;

    for (size_t i = 0; i < ls->n; i++)
        len += strlen (ls->v[i]) + 1;
    if (!(text = malloc (len)))
        return NULL;
    p = text;
    for (size_t i = 0; i < ls->n; i++)
        p += sprintf (p, "%s\n", ls->v[i]);
    *p = '\0';
    return text;
}

int local_conf_write (struct local *l)
{
    struct lines ls = { 0 };
    arbor_error_t err = { { 0 } };
    char *text = NULL;
    int ctld_port, noded_port;
    int rc = -1;

    if (l->opt.netns) {
        /* Every daemon has its namespace, and its ports, to itself: the
         * usual ones, as on a real cluster. */
        ctld_port = CONF_DEFAULT_CTLD_PORT;
        noded_port = CONF_DEFAULT_NODED_PORT;
    } else {
        ctld_port = port_bind ("127.0.0.1", 0);
        noded_port = pick_noded_port (l->opt.nnodes, ctld_port);
    }
    if (ctld_port < 0 || noded_port < 0) {
        local_say ("cannot find free ports on 127.0.0.1 / 127.0.1.1");
        return -1;
    }
    if (add_default_lines (l, &ls, ctld_port, noded_port) < 0)
        goto out;
    for (size_t i = 0; i < l->opt.nsets; i++)
        if (apply_set (&ls, l->opt.sets[i]) < 0)
            goto out;
    if (!(text = lines_join (&ls)))
        goto out;
    if (!(l->conf = conf_parse (text, l->conf_path, &err))) {
        local_say ("invalid configuration: %s", err.text);
        goto out;
    }
    rc = local_write_file (l->conf_path, text, 0644);
    if (rc == 0)
        rc = local_gres_setup (l);
out:
    if (rc < 0 && errno == ENOMEM)
        local_say ("out of memory");
    free (text);
    lines_free (&ls);
    return rc;
}

static int rmtree_cb (const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    if (remove (path) < 0 && errno != ENOENT)
        local_say ("remove %s: %s", path, strerror (errno));
    return 0;
}

int local_rmtree (const char *dir)
{
    return nftw (dir, rmtree_cb, 32, FTW_DEPTH | FTW_PHYS);
}
