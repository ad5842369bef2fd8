/* bcast_opt.h - what sbcast and sgather are asked to do: their options,
 * from the command line and Slurm's SBCAST_* variables, and their paths.
 * Pure functions, unit-tested (test/bcast_test.c).
 */
#ifndef ARBOR_CLI_BCAST_OPT_H
#define ARBOR_CLI_BCAST_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BCAST_SIZE_DEFAULT (8u << 20) /* Slurm's: the file, at most 8 MB */
#define BCAST_SIZE_MAX (8u << 20)     /* what one frame carries well */
#define BCAST_SIZE_MIN 1024u
#define BCAST_FANOUT_MAX 8 /* sbcast -F: "at most eight" */

struct bcast_opts {
    const char *prog;
    const char *source, *dest; /* as given */
    uint32_t job, step;        /* step STEP_ID_ALL: the whole job */
    bool have_job;
    bool force, preserve, keep, recursive;
    bool send_libs;
    const char *compress; /* "lz4", "zlib", "none" (accepted, not used) */
    const char *exclude;  /* --exclude: "NONE" or dir,dir */
    uint32_t fanout;      /* 0: TreeWidth */
    uint32_t size;        /* block bytes; 0: the default */
    uint32_t timeout;     /* seconds; 0: the default */
    int verbose;
};

/* "4096", "512k", "8m" (k, m: 1024 multiples; case ignored) into
 * *bytes, clamped to [BCAST_SIZE_MIN, BCAST_SIZE_MAX] as Slurm rounds
 * and bounds it. -1 with errno EINVAL. */
int bcast_parse_size (const char *s, uint32_t *bytes);

/* -C's argument (NULL: lz4). -1 with errno EINVAL for others. */
int bcast_parse_compress (const char *s, const char **out);

/* --send-libs[=yes|no] (NULL: yes). -1 with errno EINVAL. */
int bcast_parse_yes_no (const char *s, bool *out);

/* A positive count of at most 'max' (0: no bound). -1 with EINVAL. */
int bcast_parse_count (const char *s, uint32_t max, uint32_t *out);

/* Apply SBCAST_COMPRESS, _EXCLUDE, _FANOUT, _FORCE, _PRESERVE,
 * _SEND_LIBS, _SIZE, _TIMEOUT from getenv (before the command line,
 * which wins). -1 with err text in why (len bytes) for a bad value. */
int bcast_opts_from_env (struct bcast_opts *o, char *why, size_t len);

/* The long options sbcast and sgather share, for their getopt_long
 * tables: -C -f -F -j -p -t -v (bcast_opt_common handles them). */
/* clang-format off */
#define BCAST_LONGOPTS_COMMON                        \
    { "compress", optional_argument, NULL, 'C' },    \
    { "force", no_argument, NULL, 'f' },             \
    { "fanout", required_argument, NULL, 'F' },      \
    { "jobid", required_argument, NULL, 'j' },       \
    { "preserve", no_argument, NULL, 'p' },          \
    { "timeout", required_argument, NULL, 't' },     \
    { "verbose", no_argument, NULL, 'v' }
/* clang-format on */

/* Apply option 'c' (its argument 'arg') if it is one both commands take:
 * -C, -f, -F, -j (*jobarg = arg), -p, -t, -v. 1 when it was (the command
 * dies on a bad value), 0 when it is the command's own. */
int bcast_opt_common (struct bcast_opts *o, int c, const char *arg,
                      const char **jobarg);

/* SOURCE DEST: the two operands left after the options (argv[optind..]);
 * else 'usage' (a format taking o->prog) on stderr and exit 1. */
void bcast_parse_operands (struct bcast_opts *o, int argc, char **argv,
                           const char *usage);

/* The job: 'arg' (-j JOB[.STEP]) or else SLURM_JOB_ID (the whole job:
 * a step's environment still means its job, as Slurm reads it). Sets
 * o->job, o->step (STEP_ID_ALL without .STEP). -1 with errno EINVAL and
 * a sentence in why. */
int bcast_parse_job (struct bcast_opts *o, const char *arg, char *why,
                     size_t len);

/* DEST as each node writes it: absolute as given; relative, under 'cwd'
 * (Slurm's default, with no BcastParameters DestDir); ending in '/', the
 * directory to put SOURCE's base name in. malloc'd; NULL with errno
 * (EINVAL: empty, or a source with no base name). */
char *bcast_dest_path (const char *source, const char *dest, const char *cwd);

#endif
