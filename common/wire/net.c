/* net.c - sockets: TCP and unix listeners and connects, peer identity,
 * fd flags and full reads/writes on blocking fds.
 *
 * Every fd made here is close-on-exec (daemons fork stepds and tasks).
 * TCP connections get TCP_NODELAY: frames are small and latency-bound.
 * Name resolution uses getaddrinfo (AF_INET first, as NodeAddr values are
 * IPv4 loopback or cluster addresses); each address is tried in turn.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "net.h"

int fd_set_nonblock (int fd, int on)
{
    int fl = fcntl (fd, F_GETFL);
    if (fl < 0)
        return -1;
    fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
    return fcntl (fd, F_SETFL, fl);
}

int fd_set_cloexec (int fd)
{
    int fl = fcntl (fd, F_GETFD);
    if (fl < 0)
        return -1;
    return fcntl (fd, F_SETFD, fl | FD_CLOEXEC);
}

static void close_keep_errno (int fd)
{
    int saved = errno;
    close (fd);
    errno = saved;
}

static int resolve (const char *host, uint16_t port, int passive,
                    struct addrinfo **res, arbor_error_t *err)
{
    struct addrinfo hints = { .ai_family = AF_INET,
                              .ai_socktype = SOCK_STREAM,
                              .ai_flags = passive ? AI_PASSIVE : 0 };
    char portstr[8];
    int e;

    snprintf (portstr, sizeof (portstr), "%u", port);
    if (host && !*host)
        host = NULL;
    e = getaddrinfo (host, portstr, &hints, res);
    if (e == EAI_FAMILY || e == EAI_NONAME || e == EAI_ADDRFAMILY) {
        hints.ai_family = AF_UNSPEC; /* an IPv6-only name */
        e = getaddrinfo (host, portstr, &hints, res);
    }
    if (e != 0) {
        errno = e == EAI_SYSTEM   ? errno
                : e == EAI_MEMORY ? ENOMEM
                                  : EHOSTUNREACH;
        return errprintf (err, "resolve %s: %s", host ? host : "*",
                          e == EAI_SYSTEM ? strerror (errno)
                                          : gai_strerror (e));
    }
    return 0;
}

int net_listen_tcp (const char *addr, uint16_t port, uint16_t *bound,
                    arbor_error_t *err)
{
    struct addrinfo *res;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof (ss);
    int one = 1, fd;

    if (resolve (addr, port, 1, &res, err) < 0)
        return -1;
    fd = socket (res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        freeaddrinfo (res);
        return errprintf (err, "socket: %s", strerror (errno));
    }
    setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one));
    if (bind (fd, res->ai_addr, res->ai_addrlen) < 0 || listen (fd, 1024) < 0) {
        int e = errno;
        freeaddrinfo (res);
        close (fd);
        errno = e;
        return errprintf (err, "listen %s:%u: %s", addr && *addr ? addr : "*",
                          port, strerror (e));
    }
    freeaddrinfo (res);
    if (bound) {
        if (getsockname (fd, (struct sockaddr *)&ss, &sl) < 0) {
            close_keep_errno (fd);
            return errprintf (err, "getsockname: %s", strerror (errno));
        }
        *bound = ntohs (ss.ss_family == AF_INET6
                            ? ((struct sockaddr_in6 *)&ss)->sin6_port
                            : ((struct sockaddr_in *)&ss)->sin_port);
    }
    return fd;
}

static void set_nodelay (int fd)
{
    int one = 1;
    setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof (one));
}

/* Start a non-blocking connect to one address: fd, or -1 with errno. */
static int connect_one (const struct addrinfo *ai, const struct addrinfo *src)
{
    int fd =
        socket (ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    set_nodelay (fd);
    if (src && bind (fd, src->ai_addr, src->ai_addrlen) < 0) {
        close_keep_errno (fd);
        return -1;
    }
    if (connect (fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
        close_keep_errno (fd);
        return -1;
    }
    return fd;
}

static int64_t now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t net_deadline (int timeout_ms)
{
    return timeout_ms > 0 ? now_ms () + timeout_ms : 0;
}

/* Wait for a started connect to complete before 'deadline' (0: none). */
static int connect_wait (int fd, int64_t deadline)
{
    struct pollfd p = { .fd = fd, .events = POLLOUT };

    for (;;) {
        int t = -1;
        if (deadline) {
            int64_t left = deadline - now_ms ();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            t = (int)left;
        }
        int n = poll (&p, 1, t);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n > 0)
            return net_connect_finish (fd);
    }
}

int net_connect_tcp (const char *host, uint16_t port, int timeout_ms,
                     arbor_error_t *err)
{
    struct addrinfo *res;
    int64_t deadline = net_deadline (timeout_ms);
    int fd = -1;

    if (resolve (host, port, 0, &res, err) < 0)
        return -1;
    errno = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        if ((fd = connect_one (ai, NULL)) < 0)
            continue;
        if (connect_wait (fd, deadline) == 0 && fd_set_nonblock (fd, 0) == 0)
            break;
        close_keep_errno (fd);
        fd = -1;
        if (errno == ETIMEDOUT)
            break;
    }
    freeaddrinfo (res);
    if (fd < 0)
        return errprintf (err, "connect %s:%u: %s", host, port,
                          strerror (errno));
    return fd;
}

int net_connect_tcp_start (const char *host, uint16_t port, arbor_error_t *err)
{
    return net_connect_tcp_from (host, port, NULL, err);
}

int net_connect_tcp_from (const char *host, uint16_t port, const char *source,
                          arbor_error_t *err)
{
    struct addrinfo *res, *src = NULL;
    int fd;

    if (resolve (host, port, 0, &res, err) < 0)
        return -1;
    if (source && *source && resolve (source, 0, 0, &src, err) < 0) {
        freeaddrinfo (res);
        return -1;
    }
    fd = connect_one (res, src);
    freeaddrinfo (res);
    if (src)
        freeaddrinfo (src);
    if (fd < 0)
        return errprintf (err, "connect %s:%u%s%s: %s", host, port,
                          src ? " from " : "", src ? source : "",
                          strerror (errno));
    return fd;
}

int net_connect_finish (int fd)
{
    int e = 0;
    socklen_t sl = sizeof (e);

    if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &e, &sl) < 0)
        return -1;
    if (e != 0) {
        errno = e;
        return -1;
    }
    return 0;
}

static int unix_addr (const char *path, struct sockaddr_un *sa,
                      arbor_error_t *err)
{
    memset (sa, 0, sizeof (*sa));
    sa->sun_family = AF_UNIX;
    if (!path || strlen (path) >= sizeof (sa->sun_path)) {
        errno = ENAMETOOLONG;
        return errprintf (err, "unix socket path too long: %s",
                          path ? path : "(null)");
    }
    strcpy (sa->sun_path, path);
    return 0;
}

int net_listen_unix (const char *path, mode_t mode, arbor_error_t *err)
{
    struct sockaddr_un sa;
    int fd;

    if (unix_addr (path, &sa, err) < 0)
        return -1;
    fd = socket (AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    if (unlink (path) < 0 && errno != ENOENT) {
        close_keep_errno (fd);
        return errprintf (err, "unlink %s: %s", path, strerror (errno));
    }
    if (bind (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0
        || chmod (path, mode) < 0 || listen (fd, 1024) < 0) {
        close_keep_errno (fd);
        return errprintf (err, "listen %s: %s", path, strerror (errno));
    }
    return fd;
}

int net_connect_unix (const char *path, arbor_error_t *err)
{
    struct sockaddr_un sa;
    int fd;

    if (unix_addr (path, &sa, err) < 0)
        return -1;
    fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errprintf (err, "socket: %s", strerror (errno));
    while (connect (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0) {
        if (errno == EINTR)
            continue;
        close_keep_errno (fd);
        return errprintf (err, "connect %s: %s", path, strerror (errno));
    }
    return fd;
}

int net_peer_cred (int fd, uid_t *uid, gid_t *gid, pid_t *pid)
{
    struct ucred cr;
    socklen_t sl = sizeof (cr);

    if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &cr, &sl) < 0)
        return -1;
    if (uid)
        *uid = cr.uid;
    if (gid)
        *gid = cr.gid;
    if (pid)
        *pid = cr.pid;
    return 0;
}

static const char *sockaddr_name (const struct sockaddr_storage *ss, char *buf,
                                  size_t len)
{
    char ip[INET6_ADDRSTRLEN];

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
        inet_ntop (AF_INET, &in->sin_addr, ip, sizeof (ip));
        snprintf (buf, len, "%s:%u", ip, ntohs (in->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
        inet_ntop (AF_INET6, &in6->sin6_addr, ip, sizeof (ip));
        snprintf (buf, len, "[%s]:%u", ip, ntohs (in6->sin6_port));
    } else if (ss->ss_family == AF_UNIX) {
        snprintf (buf, len, "unix");
    } else {
        snprintf (buf, len, "?");
    }
    return buf;
}

const char *net_peer_name (int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof (ss);

    if (!buf || len == 0)
        return "";
    if (getpeername (fd, (struct sockaddr *)&ss, &sl) < 0) {
        snprintf (buf, len, "?");
        return buf;
    }
    return sockaddr_name (&ss, buf, len);
}

const char *net_local_name (int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof (ss);

    if (!buf || len == 0)
        return "";
    if (getsockname (fd, (struct sockaddr *)&ss, &sl) < 0) {
        snprintf (buf, len, "?");
        return buf;
    }
    return sockaddr_name (&ss, buf, len);
}

/* Polls only when there is a deadline: without one the fd is blocking
 * and read() itself waits. */
int fd_read_deadline (int fd, void *buf, size_t len, int64_t deadline)
{
    char *p = buf;

    while (len > 0) {
        if (deadline) {
            struct pollfd pf = { .fd = fd, .events = POLLIN };
            int64_t left = deadline - now_ms ();
            if (left <= 0) {
                errno = ETIMEDOUT;
                return -1;
            }
            int n = poll (&pf, 1, (int)left);
            if (n < 0 && errno != EINTR)
                return -1;
            if (n <= 0)
                continue;
        }
        ssize_t n = read (fd, p, len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ECONNRESET;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int fd_read_full (int fd, void *buf, size_t len)
{
    return fd_read_deadline (fd, buf, len, 0);
}

int fd_write_full (int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        /* send() with MSG_NOSIGNAL turns SIGPIPE into EPIPE on sockets. */
        ssize_t n = send (fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write (fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

void net_raise_nofile (void)
{
    struct rlimit rl;

    if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit (RLIMIT_NOFILE, &rl);
    }
}
