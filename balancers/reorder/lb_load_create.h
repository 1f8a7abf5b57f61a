/* Rank reorder for oversubscribed cores (Keller, Majeed & Kessler, ParCo 2011), callable
 * from C and C++.
 *
 * Start n MPI processes on p < n cores, pinned, and call one of these right after
 * MPI_Init, before the processes hold any state. The new communicator has the same
 * processes with permuted ranks: the process that becomes rank j runs the work of rank
 * j, and the permutation spreads the loads so each core's processes carry a fair share.
 * No data moves.
 *
 * Which core a process runs on comes from sched_getcpu() and a hash of the host name,
 * so pin the processes first (mpirun --bind-to core, srun --cpu-bind=cores). Cores may
 * hold unequal numbers of processes (§1.2 of the paper).
 *
 * Every function is collective over comm and returns MPI_SUCCESS, or an MPI error class
 * with a message from LB_Reorder_error(); a failure is the same on every process. */
#ifndef LBBENCH_LB_LOAD_CREATE_H
#define LBBENCH_LB_LOAD_CREATE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NOLINTBEGIN(readability-identifier-naming): the names follow MPI's, as in the paper */

typedef enum {
  LB_REORDER_IDENTITY = 0, /* keep the ranks (a baseline) */
  LB_REORDER_PAPER = 1,    /* the paper's sorted round-robin */
  LB_REORDER_OURS = 2,     /* LPT under the cardinality constraint, then swaps */
  LB_REORDER_EXACT = 3,    /* branch and bound: optimal, for small n */
  LB_REORDER_RANDOM = 5,   /* pseudo-random permutation (a baseline) */
  LB_REORDER_WORST = 6     /* the heaviest loads on one core (a baseline) */
} LB_Reorder_method;

/* MPI_Load_create: every process passes the same array of n = size(comm) loads, loads[j]
 * being the load of rank j. Uses the paper's heuristic. */
int LB_Load_create(MPI_Comm comm, const double* loads, MPI_Comm* newcomm);

/* MPI_Dist_load_create: each process passes only its own load; t is the number of
 * histogram levels (the paper suggests 16; doubled at run time when too coarse). */
int LB_Dist_load_create(MPI_Comm comm, double my_load, int t, MPI_Comm* newcomm);

/* The same, with a choice of method, and the core as an opaque key: processes with
 * equal keys share a core. A negative core_key means "detect it" (LB_Core_key). */
int LB_Load_create_with(MPI_Comm comm, const double* loads, LB_Reorder_method method, long long core_key,
                        MPI_Comm* newcomm);
int LB_Dist_load_create_with(MPI_Comm comm, double my_load, int t, long long core_key, MPI_Comm* newcomm);

/* A non-negative key for the core this process runs on now: host name hash and CPU. */
long long LB_Core_key(void);

/* The message of the last failed call on this thread ("" if none). */
const char* LB_Reorder_error(void);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
}
#endif

#endif
