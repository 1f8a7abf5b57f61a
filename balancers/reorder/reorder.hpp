// Rank reorder (Keller, Majeed & Kessler, "Balancing CPU load for irregular MPI
// applications", ParCo 2011): n MPI processes run on p < n cores, and instead of migrating
// work, the ranks are permuted at start-up so that each core's processes carry a fair
// share of the load.
//
// Vocabulary used throughout this folder:
//   - a *slot* is a process position: slot s lies on core core_of_slot[s]. Slots are
//     numbered round-robin over the cores (the paper's Fig. 1), after renumbering the
//     cores by process count, ascending (its §1.2);
//   - a *load* belongs to an application rank j (the work rank j will do);
//   - a *plan* says which rank's load each slot takes: rank_of_slot[s] = j. The process in
//     slot s then calls MPI_Comm_split with key j and becomes rank j. This is the paper's
//     permutation π.
//
// The planning functions here are pure (no MPI); load_create.cpp wraps them in the
// C-callable LB_Load_create and LB_Dist_load_create.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "balancers/reorder/methods.hpp"

namespace lbbench::reorder {

struct SlotLayout {
  std::vector<int> core_of_slot;     // core index of each slot
  std::vector<int> capacity;         // processes per core, by core index (ascending)
  std::vector<int> process_of_slot;  // the process (rank in the calling communicator) in each slot
  [[nodiscard]] int slots() const { return static_cast<int>(core_of_slot.size()); }
  [[nodiscard]] int cores() const { return static_cast<int>(capacity.size()); }
  // The slots of each core, in slot order.
  [[nodiscard]] std::vector<std::vector<int>> slots_by_core() const;
};

// A layout for the given processes per core, with process s in slot s (planning from the
// command line, and the paper's examples).
SlotLayout layout_from_counts(std::span<const int> processes_per_core);

// §1.2: the layout of real processes, given the core each runs on as an opaque key (a
// hash of the host name and the CPU number). Cores are renumbered by process count, ties
// by their lowest process; each core's processes take its slots in process order.
SlotLayout layout_from_core_keys(std::span<const std::int64_t> key_of_process);

std::string_view method_name(Method m);
// Throws std::invalid_argument naming the choices (and the closest one) for an unknown name.
Method parse_method(std::string_view name);
std::span<const std::string_view> method_names();

struct PlanOptions {
  int levels = 16;                       // dist: the paper's t, histogram levels
  std::uint64_t seed = 1;                // random
  std::int64_t max_nodes = 200'000'000;  // exact: search budget before it gives up
};

// Checks that loads has one finite, non-negative entry per slot; throws std::invalid_argument.
void check_loads(std::span<const double> loads, const SlotLayout& layout);

std::vector<int> plan_paper(std::span<const double> loads, const SlotLayout& layout);
std::vector<int> plan_ours(std::span<const double> loads, const SlotLayout& layout);
// The exact search's outcome: the optimum when proven, else the best plan found when the
// node budget ran out (never worse than plan_ours), with the bound it was measured against.
struct ExactResult {
  std::vector<int> plan;
  bool proven = true;
  double lower_bound = 0;
  std::int64_t nodes = 0;
};
ExactResult search_exact(std::span<const double> loads, const SlotLayout& layout, std::int64_t max_nodes);
std::vector<int> plan_exact(std::span<const double> loads, const SlotLayout& layout, std::int64_t max_nodes);
// The serial reference of LB_Dist_load_create: the same rounds, with each rank's load
// known only to that rank, and the scans done in rank order.
std::vector<int> plan_dist(std::span<const double> loads, const SlotLayout& layout, int levels);
std::vector<int> plan_random(std::span<const double> loads, const SlotLayout& layout, std::uint64_t seed);
std::vector<int> plan_worst(std::span<const double> loads, const SlotLayout& layout);
std::vector<int> plan_identity(const SlotLayout& layout);

std::vector<int> make_plan(Method m, std::span<const double> loads, const SlotLayout& layout,
                           const PlanOptions& options = {});

// Sum of the loads placed on each core.
std::vector<double> core_loads(std::span<const double> loads, const SlotLayout& layout,
                               std::span<const int> rank_of_slot);
double max_core_load(std::span<const double> loads, const SlotLayout& layout, std::span<const int> rank_of_slot);

// A bound no plan can beat: the average core load, the heaviest load, the pigeonhole
// bound of the paper's example (more heavy loads than cores forces two of them, plus the
// lightest fill, onto one core), and the capacity bound (the k cores with the most slots
// hold at least as many of the lightest loads: LP relaxation's bound per capacity).
double lower_bound(std::span<const double> loads, const SlotLayout& layout);

// Ranks ordered heaviest first; equal loads keep rank order, so every plan is deterministic.
std::vector<int> ranks_by_load_descending(std::span<const double> loads);

// --- the pieces of the distributed algorithm, shared by plan_dist and the MPI version ---

// The paper: "if it turns out during runtime that [t] is not [sufficient], the processes
// could double t". Levels double (up to 64) while the heaviest load is above the top
// level, 2^(t/2)·average, so the heavy loads are told apart.
int dist_levels_for(double max_load, double average, int levels);

// The paper's vector v of t levels, plus a sentinel level t that every load passes:
// v[i] = 1 iff load > 2^(t/2 - i) · average.
std::vector<int> dist_level_bits(double load, double average, int levels);
// The largest level i whose count sv[i] is at most target, or -1 when none is.
int dist_level_for(std::span<const long long> level_counts, long long target);

// Slots in the first `rounds` rows of the round-robin: round r of the algorithm fills
// row r (the paper's r·p when every core has the same number of processes).
long long dist_round_target(std::span<const int> capacity, int rounds);

enum class DistRole { waiting, sure, contestor };
// In a round at `level`: an unassigned load above the level is sure to be placed; one
// just below it (above level + 1) contests for the remaining slots of the round.
DistRole dist_role(bool assigned, std::span<const int> bits, int level);

}  // namespace lbbench::reorder
