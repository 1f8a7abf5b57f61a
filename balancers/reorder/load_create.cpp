// LB_Load_create and LB_Dist_load_create on top of MPI (Keller et al., §1 and §2). Both
// end, as in the paper, with MPI_Comm_split(comm, 0, π(slot)).
#include "balancers/reorder/load_create.hpp"

#include <sched.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "balancers/reorder/lb_load_create.h"
#include "comm/mpi.hpp"
#include "core/hash.hpp"

namespace lbbench::reorder {

namespace {

// True on every process when the predicate holds on every process.
bool all_agree(bool mine, MPI_Comm comm) { return allreduce(mine ? 1 : 0, MPI_MIN, comm) == 1; }

std::uint64_t hash_of_loads(std::span<const double> loads) {
  std::uint64_t h = loads.size();
  for (double x : loads) {
    std::uint64_t bits = 0;
    static_assert(sizeof bits == sizeof x);
    std::memcpy(&bits, &x, sizeof bits);
    h = mix64(h ^ bits);
  }
  return h;
}

void check_same_everywhere(std::span<const double> loads, MPI_Comm comm) {
  const std::uint64_t mine = hash_of_loads(loads);
  std::uint64_t low = 0, high = 0;
  MPI_Allreduce(&mine, &low, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&mine, &high, 1, MPI_UINT64_T, MPI_MAX, comm);
  if (low != high)
    throw std::invalid_argument("the processes passed different load arrays; every process must pass the same n loads");
}

int slot_of_process(const SlotLayout& layout, int process) {
  const auto it = std::find(layout.process_of_slot.begin(), layout.process_of_slot.end(), process);
  return static_cast<int>(it - layout.process_of_slot.begin());
}

MPI_Comm split_with_key(MPI_Comm comm, int key) {
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Comm_split(comm, 0, key, &out);
  return out;
}

// One round of §2: the sure loads take the next slots, in rank order, then the
// contestors fill what is left of the round, in rank order (two scans).
struct RoundCounts {
  long long sure_before = 0, contestors_before = 0;  // on lower ranks
  long long sure_total = 0, contestors_total = 0;
};

// comm is private to the reorder: the scan's messages must not meet the caller's.
RoundCounts count_round(DistRole role, MPI_Comm comm) {
  const std::vector<long long> mine{role == DistRole::sure ? 1LL : 0LL, role == DistRole::contestor ? 1LL : 0LL};
  const std::vector<long long> before = exclusive_sum(mine, comm);
  std::array<long long, 2> total{0, 0};
  MPI_Allreduce(mine.data(), total.data(), 2, MPI_LONG_LONG, MPI_SUM, comm);
  return {before[0], before[1], total[0], total[1]};
}

}  // namespace

std::int64_t core_key(int cpu) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  const std::uint64_t host_hash = XXH64(host, static_cast<std::size_t>(length), 0);
  return static_cast<std::int64_t>(hash_of({host_hash, static_cast<std::uint64_t>(std::max(0, cpu))}) >> 1);
}

std::int64_t current_core_key() { return core_key(sched_getcpu()); }

SlotLayout gather_layout(MPI_Comm comm, std::int64_t my_core_key) {
  std::vector<std::int64_t> keys(static_cast<std::size_t>(comm_size(comm)));
  MPI_Allgather(&my_core_key, 1, MPI_INT64_T, keys.data(), 1, MPI_INT64_T, comm);
  return layout_from_core_keys(keys);
}

MPI_Comm load_create(MPI_Comm comm, std::span<const double> loads, Method method, std::int64_t my_core_key,
                     const PlanOptions& options) {
  if (method == Method::dist) throw std::invalid_argument("the dist method is dist_load_create");
  const SlotLayout layout = gather_layout(comm, my_core_key);
  check_same_everywhere(loads, comm);
  const std::vector<int> plan = make_plan(method, loads, layout, options);  // the same on every process
  return split_with_key(comm, plan[static_cast<std::size_t>(slot_of_process(layout, comm_rank(comm)))]);
}

MPI_Comm dist_load_create(MPI_Comm comm, double my_load, int levels, std::int64_t my_core_key) {
  const bool valid = std::isfinite(my_load) && my_load >= 0 && levels >= 2 && levels <= 64;
  if (!all_agree(valid, comm)) {
    throw std::invalid_argument("every load must be finite and non-negative, and t in [2, 64]");
  }
  const int n = comm_size(comm);
  const int me = comm_rank(comm);
  const double total = allreduce(my_load, MPI_SUM, comm);
  const double heaviest = allreduce(my_load, MPI_MAX, comm);
  const double average = total / n;
  levels = dist_levels_for(heaviest, average, levels);
  const std::vector<int> bits = dist_level_bits(my_load, average, levels);
  const std::vector<long long> mine(bits.begin(), bits.end());
  std::vector<long long> level_counts(mine.size());
  MPI_Allreduce(mine.data(), level_counts.data(), static_cast<int>(mine.size()), MPI_LONG_LONG, MPI_SUM, comm);

  const SlotLayout layout = gather_layout(comm, my_core_key);
  MPI_Comm private_comm = duplicate_comm(comm);
  long long my_slot = -1, placed = 0;
  for (int round = 1; placed < n; ++round) {
    if (round > n + 1) {  // every rank sees the same counts, so all stop here together
      MPI_Comm_free(&private_comm);
      throw std::logic_error("the distributed reorder made no progress");
    }
    const long long target = dist_round_target(layout.capacity, round);
    const int level = dist_level_for(level_counts, target);
    const DistRole role = dist_role(my_slot >= 0, bits, level);
    const RoundCounts c = count_round(role, private_comm);
    const long long room = std::max(0LL, target - placed - c.sure_total);
    if (role == DistRole::sure) my_slot = placed + c.sure_before;
    if (role == DistRole::contestor && c.contestors_before < room)
      my_slot = placed + c.sure_total + c.contestors_before;
    placed += c.sure_total + std::min(c.contestors_total, room);
  }
  // Rank `me`'s load goes to the process in my_slot, which takes `me` as its key.
  int key = -1;
  MPI_Sendrecv(&me, 1, MPI_INT, layout.process_of_slot[static_cast<std::size_t>(my_slot)], 0, &key, 1, MPI_INT,
               MPI_ANY_SOURCE, 0, private_comm, MPI_STATUS_IGNORE);
  MPI_Comm_free(&private_comm);
  return split_with_key(comm, key);
}

}  // namespace lbbench::reorder

// --- the C interface ---

namespace {

thread_local std::string last_error;

template <class F>
int guarded(MPI_Comm* newcomm, F&& create) {
  last_error.clear();
  if (newcomm == nullptr) {
    last_error = "newcomm is NULL";
    return MPI_ERR_ARG;
  }
  try {
    *newcomm = create();
    return MPI_SUCCESS;
  } catch (const std::invalid_argument& e) {
    last_error = e.what();
  } catch (const std::exception& e) {
    last_error = e.what();
    return MPI_ERR_OTHER;
  }
  return MPI_ERR_ARG;
}

std::int64_t key_or_detected(long long core_key) {
  return core_key >= 0 ? static_cast<std::int64_t>(core_key) : lbbench::reorder::current_core_key();
}

}  // namespace

extern "C" {

int LB_Load_create(MPI_Comm comm, const double* loads, MPI_Comm* newcomm) {
  return LB_Load_create_with(comm, loads, LB_REORDER_PAPER, -1, newcomm);
}

int LB_Dist_load_create(MPI_Comm comm, double my_load, int t, MPI_Comm* newcomm) {
  return LB_Dist_load_create_with(comm, my_load, t, -1, newcomm);
}

int LB_Load_create_with(MPI_Comm comm, const double* loads, LB_Reorder_method method, long long core_key,
                        MPI_Comm* newcomm) {
  using lbbench::reorder::Method;
  return guarded(newcomm, [&] {
    const int method_index = static_cast<int>(method);
    const bool known = method_index >= 0 && method_index <= static_cast<int>(Method::worst) &&
                       method_index != static_cast<int>(Method::dist);
    if (!known) throw std::invalid_argument("unknown LB_Reorder_method " + std::to_string(method_index));
    if (loads == nullptr) throw std::invalid_argument("loads is NULL");
    int n = 0;
    MPI_Comm_size(comm, &n);
    return lbbench::reorder::load_create(comm, std::span<const double>(loads, static_cast<std::size_t>(n)),
                                         static_cast<Method>(method_index), key_or_detected(core_key));
  });
}

int LB_Dist_load_create_with(MPI_Comm comm, double my_load, int t, long long core_key, MPI_Comm* newcomm) {
  return guarded(newcomm,
                 [&] { return lbbench::reorder::dist_load_create(comm, my_load, t, key_or_detected(core_key)); });
}

long long LB_Core_key(void) { return lbbench::reorder::current_core_key(); }

const char* LB_Reorder_error(void) { return last_error.c_str(); }

}  // extern "C"
