/* arbor-bench-floor - the least one launched node can cost on this machine.
 *
 * Whatever a launch stack does, each node of a step in Arbor's design (and
 * Slurm's) runs at least: a step process forked from a daemon, the step's
 * containment (a job and a step cgroup, made and removed), and one task
 * that joins the step's cgroup and execs the program. This program does
 * exactly that, with no messages, no daemons and no event loop, and prints
 * the CPU time of each part per iteration, so that bench/launch.py can set
 * the measured CPU per launched node against it:
 *
 *     arbor-bench-floor [ITERATIONS]       (as root: it makes cgroups)
 *
 *     fork+exit            a step process that does nothing
 *     task                 clone(CLONE_VM|CLONE_VFORK), exec /bin/true, wait
 *     fork+task            a step process that runs the task
 *     fork+cgroups+task    ... in a job and a step cgroup it makes and removes
 *     task without libc    the task's exec of a program with no C library
 *                          (a bare ELF that only exits): /bin/true's exec
 *                          less this is the C library's start-up
 *     cpuid                one CPUID instruction (x86-64): glibc's start-up
 *                          in every exec'd program runs dozens to learn the
 *                          CPU and its caches, and in a virtual machine each
 *                          one is a trap to the hypervisor
 *
 * The cgroups go under the freezer hierarchy (cgroup v1) or the unified one
 * (v2), in a directory of our own that is removed at the end. Exit status 2
 * when the cgroup part cannot run (not root, no hierarchy): the other lines
 * are still printed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

enum part { FORK_EXIT, TASK, FORK_TASK, FORK_CGROUPS_TASK, TASK_BARE, NPARTS };

static const char *const part_names[NPARTS] = {
    "fork+exit",         "task (exec /bin/true)", "fork+task",
    "fork+cgroups+task", "task without libc",
};

static char base[PATH_MAX + 32]; /* our directory in the hierarchy */
static const char *join_file;    /* "tasks" (v1) or "cgroup.procs" (v2) */
static bool join_cgroup;         /* the task joins the step's cgroup */
static int bare_fd = -1;         /* memfd of the bare program, or -1 */
static char task_stack[64 << 10];

/* The hierarchy a step's cgroups go in: v1's freezer (what
 * proctrack/cgroup uses on a hybrid host), else the unified one. Fills
 * base with our own directory there, not yet made. */
static bool find_hierarchy (void)
{
    char line[1024], mnt[PATH_MAX], type[64], opts[512], v2[PATH_MAX] = "";
    const char *use = NULL;
    FILE *f = fopen ("/proc/self/mounts", "re");

    if (!f)
        return false;
    while (!use && fgets (line, sizeof (line), f)) {
        if (sscanf (line, "%*s %4095s %63s %511s", mnt, type, opts) != 3)
            continue;
        if (!strcmp (type, "cgroup") && strstr (opts, "freezer"))
            use = mnt;
        else if (!strcmp (type, "cgroup2") && !v2[0])
            snprintf (v2, sizeof (v2), "%s", mnt);
    }
    fclose (f);
    if (!use && !v2[0])
        return false;
    join_file = use ? "tasks" : "cgroup.procs";
    snprintf (base, sizeof (base), "%s/arbor-bench-floor-%d", use ? use : v2,
              (int)getpid ());
    return true;
}

static int task_main (void *arg)
{
    char path[sizeof (base) + 32];
    char *argv[] = { "true", NULL };

    (void)arg;
    if (join_cgroup) {
        snprintf (path, sizeof (path), "%s/job_1/step_0/%s", base, join_file);
        int fd = open (path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write (fd, "0", 1) != 1)
            _exit (126);
        close (fd);
    }
    if (arg)
        fexecve (bare_fd, argv, (char *[]){ NULL });
    else
        execv ("/bin/true", argv);
    _exit (127);
}

static bool run_task (bool bare)
{
    int status;
    pid_t t = clone (task_main, task_stack + sizeof (task_stack),
                     CLONE_VM | CLONE_VFORK | SIGCHLD, bare ? &bare_fd : NULL);

    return t > 0 && waitpid (t, &status, 0) == t && WIFEXITED (status)
           && WEXITSTATUS (status) == 0;
}

/* The step process: its cgroups, its task, their removal. */
static void step_main (enum part p)
{
    char job[sizeof (base) + 16], step[sizeof (base) + 16];
    bool ok = true;

    if (p == FORK_EXIT)
        _exit (0);
    snprintf (job, sizeof (job), "%s/job_1", base);
    snprintf (step, sizeof (step), "%s/job_1/step_0", base);
    if (p == FORK_CGROUPS_TASK && (mkdir (job, 0755) || mkdir (step, 0755)))
        _exit (3);
    ok = run_task (false);
    if (p == FORK_CGROUPS_TASK && (rmdir (step) || rmdir (job)))
        ok = false;
    _exit (ok ? 0 : 4);
}

#if defined(__x86_64__)
/* A program with no C library: an x86-64 ELF executable of one loadable
 * segment whose code is exit(0) (mov $60,%eax; xor %edi,%edi; syscall),
 * in a memfd for fexecve. -1 where it cannot be made. */
static int bare_program (void)
{
    static const unsigned char code[] = { 0xb8, 0x3c, 0,    0,   0,
                                          0x31, 0xff, 0x0f, 0x05 };
    const Elf64_Addr at = 0x400000;
    const size_t off = sizeof (Elf64_Ehdr) + sizeof (Elf64_Phdr);
    struct {
        Elf64_Ehdr eh;
        Elf64_Phdr ph;
        unsigned char code[sizeof (code)];
    } __attribute__ ((packed)) img = {
        .eh = {
            .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
                         ELFDATA2LSB, EV_CURRENT },
            .e_type = ET_EXEC,
            .e_machine = EM_X86_64,
            .e_version = EV_CURRENT,
            .e_entry = at + off,
            .e_phoff = sizeof (Elf64_Ehdr),
            .e_ehsize = sizeof (Elf64_Ehdr),
            .e_phentsize = sizeof (Elf64_Phdr),
            .e_phnum = 1,
        },
        .ph = {
            .p_type = PT_LOAD,
            .p_flags = PF_R | PF_X,
            .p_vaddr = at,
            .p_paddr = at,
            .p_filesz = sizeof (img),
            .p_memsz = sizeof (img),
            .p_align = 0x1000,
        },
    };
    int fd = memfd_create ("arbor-bench-bare", MFD_CLOEXEC);

    memcpy (img.code, code, sizeof (code));
    if (fd >= 0 && write (fd, &img, sizeof (img)) != (ssize_t)sizeof (img)) {
        close (fd);
        fd = -1;
    }
    return fd;
}

/* Seconds one CPUID instruction takes (leaf 4, as glibc's cache probing
 * asks), the mean of n. */
static double cpuid_seconds (int n)
{
    struct timespec t0, t1;
    unsigned a, b, c, d;

    clock_gettime (CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++)
        __cpuid_count (4, (unsigned)i & 3, a, b, c, d);
    clock_gettime (CLOCK_MONOTONIC, &t1);
    (void)a, (void)b, (void)c, (void)d;
    return ((double)(t1.tv_sec - t0.tv_sec)
            + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9)
           / n;
}
#else
static int bare_program (void)
{
    return -1;
}
#endif

/* CPU seconds used so far by this process and its reaped children. */
static double cpu_used (void)
{
    struct rusage self, kids;

    getrusage (RUSAGE_SELF, &self);
    getrusage (RUSAGE_CHILDREN, &kids);
    return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec
                    + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec)
           + (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec
                      + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec)
                 / 1e6;
}

/* CPU seconds per iteration of part p, the forking parent's included (a
 * spawner's fork is its own CPU), or -1 on a failure. */
static double measure (enum part p, int n)
{
    double before = cpu_used ();

    join_cgroup = p == FORK_CGROUPS_TASK;
    for (int i = 0; i < n; i++) {
        int status;
        if (p == TASK || p == TASK_BARE) {
            if (!run_task (p == TASK_BARE))
                return -1;
            continue;
        }
        pid_t pid = fork ();
        if (pid == 0)
            step_main (p);
        if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status)
            || WEXITSTATUS (status) != 0)
            return -1;
    }
    return (cpu_used () - before) / n;
}

int main (int argc, char **argv)
{
    int n = argc > 1 ? atoi (argv[1]) : 300;
    bool cgroups =
        geteuid () == 0 && find_hierarchy () && mkdir (base, 0755) == 0;
    int rc = 0;

    if (n <= 0) {
        fprintf (stderr, "usage: arbor-bench-floor [ITERATIONS]\n");
        return 1;
    }
    bare_fd = bare_program ();
    for (int p = 0; p < NPARTS; p++) {
        if (p == TASK_BARE && bare_fd < 0) {
            printf ("%-24s unavailable (x86-64 only)\n", part_names[p]);
            continue;
        }
        if (p == FORK_CGROUPS_TASK && !cgroups) {
            printf ("%-24s unavailable (needs root and a cgroup hierarchy)\n",
                    part_names[p]);
            rc = 2;
            continue;
        }
        double s = measure ((enum part)p, n);
        if (s < 0) {
            printf ("%-24s FAILED\n", part_names[p]);
            rc = 1;
        } else
            printf ("%-24s %.3f ms\n", part_names[p], s * 1e3);
    }
#if defined(__x86_64__)
    printf ("%-24s %.4f ms\n", "cpuid", cpuid_seconds (1000) * 1e3);
#endif
    if (cgroups)
        rmdir (base);
    return rc;
}
