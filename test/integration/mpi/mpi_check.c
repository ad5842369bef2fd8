/* mpi_check.c - what the MPI integration tests run (test_mpi.py).
 *
 *   mpi_check all           rank and size, an MPI_Allreduce whose sum is
 *                           checked, a token around a ring of sends, and
 *                           MPI_Comm_split into even and odd ranks; one
 *                           line per rank: "rank R of N host H ok"
 *   mpi_check abort R C     rank R calls MPI_Abort (C); the others wait in
 *                           a barrier
 *   mpi_check early R C     rank R exits with C before MPI_Init; the
 *                           others wait in MPI_Init's fence
 *   mpi_check wireup        MPI_Init and one MPI_Barrier, then prints the
 *                           seconds from PMI_START (epoch, in the env)
 *   mpi_check together D N  "all", then rank 0 creates D/<SLURM_STEP_ID>
 *                           and every rank waits (at most 60 s) until D
 *                           holds N entries: N steps ran at once
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <dirent.h>
#include <unistd.h>

static int env_rank (void)
{
    const char *r = getenv ("PMIX_RANK");

    if (!r)
        r = getenv ("PMI_RANK");
    return r ? atoi (r) : -1;
}

static void fail (int rank, const char *what)
{
    printf ("rank %d FAILED %s\n", rank, what);
    fflush (stdout);
    MPI_Abort (MPI_COMM_WORLD, 99);
}

static void check_all (int rank, int size)
{
    int sum = 0, token = -1, sub_rank, sub_size, sub_sum = 0;
    MPI_Comm sub;
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;

    MPI_Allreduce (&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2)
        fail (rank, "allreduce");
    /* ring: rank 0 starts, each adds its rank */
    if (size > 1) {
        if (rank == 0) {
            token = 0;
            MPI_Send (&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
            MPI_Recv (&token, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
            if (token != size * (size - 1) / 2)
                fail (rank, "ring");
        } else {
            MPI_Recv (&token, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send (&token, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD);
        }
    }
    MPI_Comm_split (MPI_COMM_WORLD, rank % 2, rank, &sub);
    MPI_Comm_rank (sub, &sub_rank);
    MPI_Comm_size (sub, &sub_size);
    MPI_Allreduce (&rank, &sub_sum, 1, MPI_INT, MPI_SUM, sub);
    if (sub_rank != rank / 2 || sub_size != (size + 1 - rank % 2) / 2)
        fail (rank, "split");
    MPI_Comm_free (&sub);
    MPI_Get_processor_name (host, &len);
    printf ("rank %d of %d host %s ok\n", rank, size, host);
}

static int count_entries (const char *dir)
{
    DIR *d = opendir (dir);
    struct dirent *de;
    int n = 0;

    while (d && (de = readdir (d)))
        n += de->d_name[0] != '.';
    if (d)
        closedir (d);
    return n;
}

/* Rank 0 signs in; everyone waits for n steps to have signed in. */
static void together (int rank, const char *dir, int n)
{
    char path[4096];
    int ok = 0;

    if (rank == 0) {
        snprintf (path, sizeof (path), "%s/%s", dir,
                  getenv ("SLURM_STEP_ID") ? getenv ("SLURM_STEP_ID") : "x");
        fclose (fopen (path, "w"));
    }
    for (int i = 0; i < 600 && !ok; i++) {
        if (rank == 0)
            ok = count_entries (dir) >= n;
        MPI_Bcast (&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!ok)
            usleep (100000);
    }
    if (!ok)
        fail (rank, "together");
}

int main (int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    int rank, size;

    if (!strcmp (mode, "early") && argc > 3 && env_rank () == atoi (argv[2]))
        return atoi (argv[3]);
    MPI_Init (&argc, &argv);
    MPI_Comm_rank (MPI_COMM_WORLD, &rank);
    MPI_Comm_size (MPI_COMM_WORLD, &size);
    if (!strcmp (mode, "all"))
        check_all (rank, size);
    else if (!strcmp (mode, "together") && argc > 3) {
        check_all (rank, size);
        together (rank, argv[2], atoi (argv[3]));
    } else if (!strcmp (mode, "abort") && argc > 3) {
        if (rank == atoi (argv[2]))
            MPI_Abort (MPI_COMM_WORLD, atoi (argv[3]));
        MPI_Barrier (MPI_COMM_WORLD);
        sleep (600);
    } else if (!strcmp (mode, "early")) {
        MPI_Barrier (MPI_COMM_WORLD);
        sleep (600);
    } else if (!strcmp (mode, "wireup")) {
        struct timeval tv;
        const char *t0 = getenv ("PMI_START");
        MPI_Barrier (MPI_COMM_WORLD);
        gettimeofday (&tv, NULL);
        if (rank == 0 && t0)
            printf ("%.6f\n", tv.tv_sec + tv.tv_usec / 1e6 - atof (t0));
    }
    fflush (stdout);
    MPI_Finalize ();
    return 0;
}
