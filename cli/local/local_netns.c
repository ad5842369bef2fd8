/* local_netns.c - "arbor local --netns": separate hosts on one machine.
 *
 * Each node, and the ctld, runs in its own network namespace and its own
 * UTS namespace (its hostname is its node name, "ctld" for the
 * controller), with one address on a private bridge, so that the daemons
 * reach each other only over real interfaces, as separate hosts do:
 *
 *   host namespace   bridge arbnPbr   NET.254/24   (arbor local, CMD,
 *                                                  arbor run, ...)
 *   netns arbnP-ctld  eth0            NET.253      arbor-ctld
 *   netns arbnP-nodeK eth0            NET.K        arbor-noded of nodeK
 *
 * P is arbor local's pid (the tag, unique while it runs), NET a /24 that
 * no route of the host namespace overlaps (10.211.x, else 172.31.x, else
 * 192.168.x). Each namespace's eth0 is one end of a veth pair whose other
 * end (arbnPvK, arbnPv0 for the ctld) is a port of the bridge; its lo is
 * up but reaches only itself. Clients run in the host namespace and reach
 * the ctld and the nodes through the bridge, so arbor run listens for its
 * stepds on NET.254, the address its connection to the ctld came from.
 *
 * The namespaces, veths and bridge are made by iproute2 ("ip -batch",
 * one process for all of them; the file is kept as DIR/log/netns.ip),
 * the addresses inside each namespace by ioctls after setns() (no process
 * per node), and everything is removed again at teardown. A cluster that
 * died without its teardown (arbor local killed by SIGKILL) leaves its
 * names behind: each --netns start first removes every arbnP* whose P is
 * not a running "arbor local ... --netns" (and its own pid's, which can
 * only be a leftover), under a lock that also serialises the choice of
 * NET between clusters starting side by side.
 *
 * What the namespaces still share: the file system (one munged socket
 * serves every node, as one munge key does on a real cluster), the
 * process table, the kernel's cgroup tree and /dev/shm. So arbor.conf says
 * NodesShareHost=YES: each node's step containers nest under
 * node_<NAME> and MPI's host-named files stay apart, as for loopback
 * nodes. See docs/netns.md.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "local_base.h"
#include "local_netns.h"
#include "local_proc.h"

#define NETNS_DIR "/run/netns"
#define NETNS_LOCK "/run/arbor-netns.lock"
#define NETNS_PREFIX "arbn"
#define NETNS_BRIDGE_HOST 254

/* The /24s we may take, in order of preference. */
static const unsigned char netns_bases[][2] = {
    { 10, 211 },
    { 172, 31 },
    { 192, 168 },
};

/* ---- names and addresses ------------------------------------------------ */

int local_netns_addr (const struct local *l, unsigned host, char *buf,
                      size_t len)
{
    return local_path (buf, len, "%s.%u", l->ns_net, host);
}

/* The namespace of node index 'node' (0-based), or of the ctld (< 0). */
static void ns_name (const struct local *l, ssize_t node, char *buf, size_t len)
{
    if (node < 0)
        local_path (buf, len, "%s-ctld", l->ns_tag);
    else
        local_path (buf, len, "%s-node%zd", l->ns_tag, node + 1);
}

/* The host end of its veth pair: arbnPv0 (ctld), arbnPvK (nodeK). */
static void veth_name (const struct local *l, ssize_t node, char *buf,
                       size_t len)
{
    local_path (buf, len, "%sv%zd", l->ns_tag, node + 1);
}

/* "arbnP..." -> P (and the rest in *rest), or 0 if not one of ours. */
static long tag_pid (const char *name, const char **rest)
{
    size_t plen = strlen (NETNS_PREFIX);
    char *end;
    long pid;

    if (strncmp (name, NETNS_PREFIX, plen) != 0
        || !isdigit ((unsigned char)name[plen]))
        return 0;
    pid = strtol (name + plen, &end, 10);
    *rest = end;
    return pid > 0 ? pid : 0;
}

/* ---- running iproute2 --------------------------------------------------- */

static const char *find_ip (void)
{
    static const char *const cands[] = { "/usr/sbin/ip", "/sbin/ip",
                                         "/usr/bin/ip", "/bin/ip" };

    for (size_t i = 0; i < sizeof (cands) / sizeof (cands[0]); i++)
        if (access (cands[i], X_OK) == 0)
            return cands[i];
    return "ip"; /* let execvp search PATH */
}

/* Run "ip [-force] -batch FILE" with its output appended to 'out'.
 * 0 if it exited 0. */
static int ip_batch (const char *file, const char *out, bool force)
{
    const char *ip = find_ip ();
    int status, fd;
    pid_t pid = fork ();

    if (pid < 0)
        return -1;
    if (pid == 0) {
        sigset_t none;
        sigemptyset (&none);
        sigprocmask (SIG_SETMASK, &none, NULL);
        if ((fd = open ("/dev/null", O_RDONLY)) >= 0)
            dup2 (fd, 0);
        if ((fd = open (out, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
            dup2 (fd, 1);
            dup2 (fd, 2);
        }
        if (force)
            execlp (ip, ip, "-force", "-batch", file, (char *)NULL);
        else
            execlp (ip, ip, "-batch", file, (char *)NULL);
        fprintf (stderr, "exec %s: %s (iproute2 is needed for --netns)\n", ip,
                 strerror (errno));
        _exit (127);
    }
    while (waitpid (pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

/* Write 'text' to DIR/log/NAME.ip and run it; the output goes to
 * DIR/log/netns.out. */
static int ip_run (struct local *l, const char *name, const char *text,
                   bool force)
{
    char file[PATH_MAX], out[PATH_MAX];
    FILE *f;

    if (local_path (file, sizeof (file), "%s/log/%s.ip", l->dir, name) < 0
        || local_path (out, sizeof (out), "%s/log/netns.out", l->dir) < 0)
        return -1;
    if (!(f = fopen (file, "we"))) {
        local_say ("%s: %s", file, strerror (errno));
        return -1;
    }
    bool bad = fputs (text, f) == EOF;
    if (fclose (f) == EOF || bad) {
        local_say ("%s: %s", file, strerror (errno));
        return -1;
    }
    if (ip_batch (file, out, force) < 0) {
        if (!force) {
            local_say ("ip -batch %s failed", file);
            local_print_tail (out, 10);
        }
        return -1;
    }
    return 0;
}

/* A growing text of ip commands. */
struct cmds {
    char *text;
    size_t len;
    bool oom;
};

static void cmds_add (struct cmds *c, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void cmds_add (struct cmds *c, const char *fmt, ...)
{
    va_list ap;
    char *line;
    int n;

    va_start (ap, fmt);
    n = vasprintf (&line, fmt, ap);
    va_end (ap);
    if (n < 0 || c->oom) {
        c->oom = true;
        if (n >= 0)
            free (line);
        return;
    }
    char *t = realloc (c->text, c->len + (size_t)n + 2);
    if (!t) {
        c->oom = true;
        free (line);
        return;
    }
    c->text = t;
    memcpy (c->text + c->len, line, (size_t)n);
    c->len += (size_t)n;
    c->text[c->len++] = '\n';
    c->text[c->len] = '\0';
    free (line);
}

/* ---- leftovers of clusters that died ------------------------------------ */

/* Does 'pid' run arbor local with --netns (not us: ours are leftovers)? */
static bool tag_alive (long pid)
{
    char path[64], *arg = NULL;
    size_t cap = 0;
    FILE *f;
    bool netns = false;

    if (pid == (long)getpid ())
        return false;
    local_path (path, sizeof (path), "/proc/%ld/cmdline", pid);
    if (!(f = fopen (path, "re")))
        return false;
    /* Every argument, however long the command line (--set ...). */
    while (!netns && getdelim (&arg, &cap, '\0', f) > 0)
        netns = strcmp (arg, "--netns") == 0;
    free (arg);
    fclose (f);
    return netns;
}

/* Add "netns del" / "link del" for every name in 'dir' that is ours and
 * stale; count them in *n. */
static void stale_scan (struct cmds *c, const char *dir, bool links, size_t *n)
{
    DIR *d = opendir (dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir (d))) {
        const char *rest;
        long pid = tag_pid (e->d_name, &rest);

        if (pid == 0 || tag_alive (pid))
            continue;
        if (!links && *rest == '-')
            cmds_add (c, "netns del %s", e->d_name);
        else if (links && (!strcmp (rest, "br") || *rest == 'v'))
            cmds_add (c, "link del %s", e->d_name);
        else
            continue;
        (*n)++;
    }
    closedir (d);
}

static void stale_remove (struct local *l)
{
    struct cmds c = { 0 };
    size_t n = 0;

    stale_scan (&c, NETNS_DIR, false, &n);
    stale_scan (&c, "/sys/class/net", true, &n);
    if (n > 0 && !c.oom) {
        local_say ("removing %zu namespaces and links left by clusters "
                   "that died (" NETNS_PREFIX "<pid>*)",
                   n);
        (void)ip_run (l, "netns-stale", c.text, true);
    }
    free (c.text);
}

/* ---- the subnet --------------------------------------------------------- */

/* Does a.b.c.0/24 overlap a route of this (the host's) namespace? The
 * default route (mask 0) overlaps everything and is not counted. */
static bool net_in_use (unsigned a, unsigned b, unsigned c)
{
    char line[256];
    uint32_t net = htonl ((a << 24) | (b << 16) | (c << 8));
    uint32_t mask24 = htonl (0xffffff00u);
    FILE *f = fopen ("/proc/net/route", "re");
    bool used = false;

    if (!f)
        return false;
    while (!used && fgets (line, sizeof (line), f)) {
        char ifname[64];
        unsigned dst, gw, flags, refcnt, use, metric, mask;

        /* Numbers as the kernel keeps them, network byte order. */
        if (sscanf (line, "%63s %x %x %x %u %u %u %x", ifname, &dst, &gw,
                    &flags, &refcnt, &use, &metric, &mask)
                != 8
            || mask == 0)
            continue;
        uint32_t m = mask & mask24;
        used = (dst & m) == (net & m);
    }
    fclose (f);
    return used;
}

static int pick_net (struct local *l)
{
    unsigned start = (unsigned)getpid () % 256;

    for (size_t i = 0; i < sizeof (netns_bases) / sizeof (netns_bases[0]);
         i++) {
        for (unsigned k = 0; k < 256; k++) {
            unsigned c = (start + k) % 256;
            if (net_in_use (netns_bases[i][0], netns_bases[i][1], c))
                continue;
            return local_path (l->ns_net, sizeof (l->ns_net), "%u.%u.%u",
                               netns_bases[i][0], netns_bases[i][1], c);
        }
    }
    local_say ("--netns: no free /24 in 10.211/16, 172.31/16 or "
               "192.168/16 on this host");
    return -1;
}

/* ---- making them -------------------------------------------------------- */

/* The bridge, then each namespace with its veth pair on the bridge. */
static int create_links (struct local *l)
{
    struct cmds c = { 0 };
    char ns[64], veth[32];
    int rc;

    cmds_add (&c, "link add %sbr type bridge", l->ns_tag);
    cmds_add (&c, "addr add %s.%u/24 dev %sbr", l->ns_net, NETNS_BRIDGE_HOST,
              l->ns_tag);
    cmds_add (&c, "link set %sbr up", l->ns_tag);
    for (ssize_t i = -1; i < (ssize_t)l->opt.nnodes; i++) {
        ns_name (l, i, ns, sizeof (ns));
        veth_name (l, i, veth, sizeof (veth));
        cmds_add (&c, "netns add %s", ns);
        cmds_add (&c, "link add %s type veth peer name eth0 netns %s", veth,
                  ns);
        cmds_add (&c, "link set %s master %sbr up", veth, l->ns_tag);
    }
    if (c.oom) {
        free (c.text);
        local_say ("out of memory");
        return -1;
    }
    rc = ip_run (l, "netns", c.text, false);
    free (c.text);
    return rc;
}

/* Bring interface 'name' up, with addr/24 first if addr is not NULL. */
static int if_up (int s, const char *name, const char *addr)
{
    struct ifreq ifr;
    struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

    memset (&ifr, 0, sizeof (ifr));
    local_path (ifr.ifr_name, sizeof (ifr.ifr_name), "%s", name);
    if (addr) {
        sin->sin_family = AF_INET;
        if (inet_pton (AF_INET, addr, &sin->sin_addr) != 1
            || ioctl (s, SIOCSIFADDR, &ifr) < 0)
            return -1;
        sin->sin_addr.s_addr = htonl (0xffffff00u);
        if (ioctl (s, SIOCSIFNETMASK, &ifr) < 0)
            return -1;
    }
    if (ioctl (s, SIOCGIFFLAGS, &ifr) < 0)
        return -1;
    ifr.ifr_flags |= IFF_UP;
    return ioctl (s, SIOCSIFFLAGS, &ifr);
}

/* Inside namespace 'ns': lo up, eth0 up with 'addr'. We enter it
 * ourselves (single-threaded, so setns moves the whole process) and the
 * caller brings us back. */
static int ns_configure (const char *ns, const char *addr)
{
    char path[PATH_MAX];
    int fd, s, rc = -1;

    local_path (path, sizeof (path), "%s/%s", NETNS_DIR, ns);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    if (setns (fd, CLONE_NEWNET) == 0
        && (s = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) >= 0) {
        rc = if_up (s, "lo", NULL) < 0 || if_up (s, "eth0", addr) < 0 ? -1 : 0;
        int e = errno;
        close (s);
        errno = e;
    }
    int e = errno;
    close (fd);
    errno = e;
    return rc;
}

static int configure_all (struct local *l)
{
    int self = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    char ns[64], addr[32];
    int rc = 0;

    if (self < 0) {
        local_say ("/proc/self/ns/net: %s", strerror (errno));
        return -1;
    }
    for (ssize_t i = -1; rc == 0 && i < (ssize_t)l->opt.nnodes; i++) {
        ns_name (l, i, ns, sizeof (ns));
        local_netns_addr (l, i < 0 ? LOCAL_NETNS_CTLD_HOST : (unsigned)i + 1,
                          addr, sizeof (addr));
        if ((rc = ns_configure (ns, addr)) < 0)
            local_say ("--netns: %s: eth0 %s: %s", ns, addr, strerror (errno));
        if (setns (self, CLONE_NEWNET) < 0) {
            /* We would go on in a node's namespace: give up at once. */
            local_say ("setns back to the host namespace: %s",
                       strerror (errno));
            _exit (1);
        }
    }
    close (self);
    return rc;
}

int local_netns_setup (struct local *l)
{
    int lock;

    if (geteuid () != 0) {
        local_say ("--netns needs root (network namespaces, a bridge)");
        return -1;
    }
    if (l->opt.nnodes > LOCAL_NETNS_MAX_NODES) {
        local_say ("--netns: at most %d nodes (one /24)",
                   LOCAL_NETNS_MAX_NODES);
        return -1;
    }
    local_path (l->ns_tag, sizeof (l->ns_tag), "%s%ld", NETNS_PREFIX,
                (long)getpid ());
    if ((lock = open (NETNS_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0
        || flock (lock, LOCK_EX) < 0) {
        local_say ("%s: %s", NETNS_LOCK, strerror (errno));
        if (lock >= 0)
            close (lock);
        return -1;
    }
    stale_remove (l);
    if (pick_net (l) < 0) {
        close (lock);
        return -1;
    }
    l->ns_made = true; /* from here on, teardown removes what exists */
    int rc = create_links (l);
    close (lock); /* NET is now on our bridge: others see it in use */
    if (rc == 0)
        rc = configure_all (l);
    if (rc < 0)
        local_say ("--netns: cannot set up the namespaces (root in a "
                   "container needs CAP_SYS_ADMIN and CAP_NET_ADMIN)");
    return rc;
}

/* ---- entering one ------------------------------------------------------- */

int local_netns_enter (const struct local *l, ssize_t node)
{
    char ns[64], path[PATH_MAX];
    const char *host = node < 0 ? "ctld" : l->conf->nodes[node].name;
    int fd;

    if (node >= (ssize_t)l->opt.nnodes) {
        fprintf (stderr,
                 "arbor local: node %s has no namespace (--netns makes "
                 "node1..node%u)\n",
                 host, l->opt.nnodes);
        return -1;
    }
    ns_name (l, node, ns, sizeof (ns));
    local_path (path, sizeof (path), "%s/%s", NETNS_DIR, ns);
    if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0
        || setns (fd, CLONE_NEWNET) < 0 || unshare (CLONE_NEWUTS) < 0
        || sethostname (host, strlen (host)) < 0) {
        fprintf (stderr, "arbor local: entering %s as %s: %s\n", path, host,
                 strerror (errno));
        if (fd >= 0)
            close (fd);
        return -1;
    }
    close (fd);
    return 0;
}

/* ---- removing them ------------------------------------------------------ */

void local_netns_destroy (struct local *l)
{
    struct cmds c = { 0 };
    char ns[64], veth[32];

    if (!l->ns_made)
        return;
    for (ssize_t i = -1; i < (ssize_t)l->opt.nnodes; i++) {
        ns_name (l, i, ns, sizeof (ns));
        veth_name (l, i, veth, sizeof (veth));
        cmds_add (&c, "link del %s", veth);
        cmds_add (&c, "netns del %s", ns);
    }
    cmds_add (&c, "link del %sbr", l->ns_tag);
    if (!c.oom)
        (void)ip_run (l, "netns-down", c.text, true);
    free (c.text);
    l->ns_made = false;
}
