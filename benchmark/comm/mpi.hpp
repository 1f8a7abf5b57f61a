// Small MPI helpers shared by every part: session setup, typed datatypes, collective error
// agreement, private communicators and scans. The sparse exchange is sparse_exchange.hpp.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "core/bytes.hpp"
#include "core/types.hpp"

namespace lbbench {

// The thread level a process asks MPI for. Zoltan's PT-Scotch needs MPI_THREAD_MULTIPLE;
// nothing else here calls MPI from more than one thread, and Open MPI's multiple-thread
// mode locks every call, which slows a bare exchange of small messages. So it is asked for
// only where Zoltan may run, as Task Bench, the yardstick of `calibrate --overhead`, asks
// for none.
enum class MpiThreads { funneled, multiple };

// MPI_Init_thread at that level and MPI_Finalize on scope exit.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv, MpiThreads threads = MpiThreads::multiple);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  [[nodiscard]] int thread_level() const { return provided_; }
  [[nodiscard]] bool thread_multiple() const { return provided_ >= MPI_THREAD_MULTIPLE; }

 private:
  int provided_ = MPI_THREAD_SINGLE;
};

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// A communicator with comm's ranks and its own matching context, as MPI_Comm_dup makes,
// but built with MPI_Comm_create from comm's group. Same semantics for lbbench (which
// attaches no attributes), and under SimGrid SMPI the new communicator shares comm's
// group where MPI_Comm_dup copies it on every rank: 12 bytes times P per rank and
// communicator, 200 MB per communicator at 4,096 simulated ranks, 3.2 GB at 16,384.
MPI_Comm duplicate_comm(MPI_Comm comm);

// The MPI_COMM_WORLD rank of each rank of comm (local, no communication).
std::vector<int> world_ranks_of(MPI_Comm comm);

// MPI_Exscan with MPI_SUM of integer vectors (rank 0 gets zeros), by recursive doubling
// over point-to-point messages: log2(P) rounds of one message per rank. SimGrid's
// MPI_Exscan sends O(P^2) messages, which bounds simulated runs long before the network.
// It sends on comm, so comm must carry no other point-to-point traffic meanwhile.
std::vector<long long> exclusive_sum(const std::vector<long long>& mine, MPI_Comm comm);

// "Open MPI v4.1.4, ..." first line of MPI_Get_library_version.
std::string mpi_library_version();

// The branches name distinct types, some with the same datatype.
// NOLINTBEGIN(bugprone-branch-clone)
template <class T>
MPI_Datatype mpi_type() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<U, int>)
    return MPI_INT;
  else if constexpr (std::is_same_v<U, std::int64_t>)
    return MPI_INT64_T;
  else if constexpr (std::is_same_v<U, std::uint64_t>)
    return MPI_UINT64_T;
  else if constexpr (std::is_same_v<U, char>)
    return MPI_CHAR;
  else if constexpr (std::is_same_v<U, std::byte>)
    return MPI_BYTE;
  else if constexpr (std::is_same_v<U, VertexId>)
    return MPI_INT64_T;
  else if constexpr (std::is_same_v<U, Rank>)
    return MPI_INT;
  else if constexpr (std::is_same_v<U, Load>)
    return MPI_DOUBLE;
  else
    static_assert(sizeof(U) == 0, "no MPI datatype for this type");
}
// NOLINTEND(bugprone-branch-clone)

template <class T>
T allreduce(T value, MPI_Op op, MPI_Comm comm) {
  T out{};
  MPI_Allreduce(&value, &out, 1, mpi_type<T>(), op, comm);
  return out;
}

// One trivially copyable value combined over all ranks by `Combine(into, from)` (which
// must commute), in one allreduce: a struct of sums and maxima that would otherwise take a
// collective each, and each collective costs the wide-area latency several times over on
// a machine of two sites.
template <class T, void (*Combine)(T& into, const T& from)>
T allreduce_combined(T value, MPI_Comm comm) {
  static_assert(std::is_trivially_copyable_v<T>);
  MPI_User_function* combine_all = [](void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
    const auto* from = static_cast<const T*>(in);
    auto* into = static_cast<T*>(inout);
    for (int i = 0; i < *len; ++i) Combine(into[i], from[i]);
  };
  MPI_Datatype whole = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &whole);
  MPI_Type_commit(&whole);
  MPI_Op op = MPI_OP_NULL;
  MPI_Op_create(combine_all, 1, &op);
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, whole, op, comm);
  MPI_Op_free(&op);
  MPI_Type_free(&whole);
  return value;
}

// Every rank passes the error it hit (or none). If any rank failed, every rank throws the
// error of the lowest failing rank, as AgreedInputError, AgreedRunError or AgreedError.
// This turns an error found on one rank into a clean collective stop instead of a hang.
void agree_on_errors(const std::exception_ptr& local, MPI_Comm comm);

// Runs fn on every rank, then agrees on errors as above. fn must not communicate in a way
// that could hang if another rank throws before reaching the same call.
template <class F>
void collectively(MPI_Comm comm, F&& fn) {
  std::exception_ptr error;
  try {
    fn();
  } catch (...) {
    error = std::current_exception();
  }
  agree_on_errors(error, comm);
}

}  // namespace lbbench
