/* pmix_kv.c - a PMIx client for test_mpi.py: each rank puts a key,
 * commits, fences (with data collection unless argv[1] is "direct", in
 * which case the Get below is served by direct modex) and gets the key of
 * the rank half the job away (on another node when tasks are spread
 * evenly). Prints "rank R got V from rank Q" or "rank R FAILED ...".
 */
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int main (int argc, char **argv)
{
    bool direct = argc > 1 && !strcmp (argv[1], "direct");
    pmix_proc_t me, wild, peer;
    pmix_value_t val, *got = NULL, *sz = NULL;
    pmix_info_t info;
    uint32_t size;
    pmix_status_t rc;

    if ((rc = PMIx_Init (&me, NULL, 0)) != PMIX_SUCCESS) {
        printf ("rank ? FAILED PMIx_Init: %s\n", PMIx_Error_string (rc));
        return 1;
    }
    PMIX_PROC_LOAD (&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Get (&wild, PMIX_JOB_SIZE, NULL, 0, &sz)) != PMIX_SUCCESS) {
        printf ("rank %u FAILED job size: %s\n", me.rank,
                PMIx_Error_string (rc));
        return 1;
    }
    size = sz->data.uint32;
    val.type = PMIX_UINT32;
    val.data.uint32 = 1000 + me.rank;
    if ((rc = PMIx_Put (PMIX_GLOBAL, "arbor.test.key", &val)) != PMIX_SUCCESS
        || (rc = PMIx_Commit ()) != PMIX_SUCCESS) {
        printf ("rank %u FAILED put: %s\n", me.rank, PMIx_Error_string (rc));
        return 1;
    }
    PMIX_INFO_LOAD (&info, PMIX_COLLECT_DATA, &(bool){ !direct }, PMIX_BOOL);
    if ((rc = PMIx_Fence (&wild, 1, &info, 1)) != PMIX_SUCCESS) {
        printf ("rank %u FAILED fence: %s\n", me.rank, PMIx_Error_string (rc));
        return 1;
    }
    PMIX_PROC_LOAD (&peer, me.nspace, (me.rank + size / 2) % size);
    if ((rc = PMIx_Get (&peer, "arbor.test.key", NULL, 0, &got))
        != PMIX_SUCCESS) {
        printf ("rank %u FAILED get: %s\n", me.rank, PMIx_Error_string (rc));
        return 1;
    }
    printf ("rank %u got %u from rank %u\n", me.rank, got->data.uint32,
            peer.rank);
    fflush (stdout);
    PMIx_Fence (&wild, 1, NULL, 0);
    PMIx_Finalize (NULL, 0);
    return 0;
}
