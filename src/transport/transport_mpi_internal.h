/* Shared by the MPI transport's files (built with make MPI=1): the world
 * (transport_mpi.c: joining the job, waiting, failing, host transfers and
 * the communicator cache) and the per-run transport (transport_mpi_run.c:
 * the collectives). docs/distributed.md describes both. */
#ifndef SHARDC_TRANSPORT_MPI_INTERNAL_H
#define SHARDC_TRANSPORT_MPI_INTERNAL_H
#include <mpi.h>
#include <pthread.h>
#include "shardc/transport.h"

/* A communicator made on demand and kept for the rest of the job: the
 * processes of a run (`parent` 0: split from the world) or a collective
 * group of one (`parent`: that run's communicator id). `key` is what every
 * member derives alike: the processes of a run, or a group's members as
 * offsets from its first member (the same for every group of one split). */
typedef struct MpiCachedComm {
    struct MpiCachedComm *next;
    uint64_t id, parent;
    int64_t key_len;
    int64_t *key;
    MPI_Comm comm;
} MpiCachedComm;

typedef struct MpiWorld {
    TransportWorld base;
    MPI_Comm world;      /* collectives of full runs, sendrecv */
    MPI_Comm host;       /* the root's scatters, gathers and agreements */
    MPI_Comm ctrl;       /* failure notices */
    double timeout;      /* seconds one operation may wait */
    bool native;         /* SHARDC_MPI_REDUCE=native: MPI's float reductions */
    bool failing;        /* this process has sent its notices */
    bool *noticed;       /* by rank: sent us a failure notice */
    int origin;          /* the rank whose failure started the stop, or -1 */
    int notice;          /* the payload of the notices we send: the origin */
    MPI_Request *notice_requests;
    pthread_mutex_t lock;  /* the cache */
    MpiCachedComm *comms;
    uint64_t next_id;
} MpiWorld;

/* Wait for *req, watching for other processes' failure notices and the
 * timeout: a notice or a timeout prints why this process stops and ends
 * the job (it does not return). OK, or FAILED after an MPI error (printed). */
TransportStatus mpi_wait(MpiWorld *w, MPI_Request *req, const char *what);
/* The same, keeping the request's status (received counts). */
TransportStatus mpi_wait_status(MpiWorld *w, MPI_Request *req, const char *what, MPI_Status *st);
/* The status of an MPI call's return code (printing the error). */
TransportStatus mpi_check(MpiWorld *w, int rc, const char *what);
/* The cached communicator for (parent, key), made with
 * MPI_Comm_split(parent_comm, color, key_rank) on a miss (collective over
 * parent_comm, preceded by a barrier so it never blocks on a failed peer).
 * color may be MPI_UNDEFINED (the result is MPI_COMM_NULL). */
TransportStatus mpi_cached_comm(MpiWorld *w, uint64_t parent, MPI_Comm parent_comm, const int64_t *key,
                                int64_t key_len, int color, int key_rank, MpiCachedComm **out);
/* A Transport for one shard_map run (transport_mpi_run.c). */
Transport *mpi_run_open(TransportWorld *tw, const int64_t *owner, int64_t num_endpoints, const int64_t *active,
                        int64_t num_active);

enum { MPI_TAG_SENDRECV = 1, MPI_TAG_NOTICE = 2, MPI_TAG_ALLREDUCE_PAIR = 3 };

#endif
