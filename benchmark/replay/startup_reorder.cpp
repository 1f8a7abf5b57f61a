// The rank-reorder benchmark mode (see startup_reorder.hpp).
#include "replay/startup_reorder.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "balancers/reorder/load_create.hpp"
#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "meshes/build.hpp"
#include "replay/distribution.hpp"
#include "replay/engine.hpp"
#include "workload/load_field.hpp"

namespace lbbench {

namespace {

// The CPUs any process of this node may run on: the union of their affinity masks, so a
// launcher that bound each process to one core does not hide the others.
std::vector<int> node_cpus(MPI_Comm node) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0)
    throw RunError(fmt::format("sched_getaffinity: {}", std::strerror(errno)));
  constexpr int kWords = CPU_SETSIZE / 64;
  std::array<std::uint64_t, kWords> bits{}, all{};
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &mine)) bits[static_cast<std::size_t>(cpu / 64)] |= 1ULL << (cpu % 64);
  }
  MPI_Allreduce(bits.data(), all.data(), kWords, MPI_UINT64_T, MPI_BOR, node);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (all[static_cast<std::size_t>(cpu / 64)] & (1ULL << (cpu % 64))) cpus.push_back(cpu);
  }
  return cpus;
}

std::string describe(const CoresSpec& spec) {
  if (spec.per_core.empty()) return fmt::format("cores: {}", spec.count);
  std::string list;
  for (int c : spec.per_core) list += fmt::format("{}{}", list.empty() ? "" : ", ", c);
  return fmt::format("cores: [{}]", list);
}

// Processes per core for a node running `processes` of them.
std::vector<int> processes_per_core(const CoresSpec& spec, int processes, const std::string& source) {
  if (!spec.per_core.empty()) {
    const int listed = std::accumulate(spec.per_core.begin(), spec.per_core.end(), 0);
    if (listed != processes) {
      throw InputError(fmt::format("{}: {} places {} processes per node, but this node runs {}", source, describe(spec),
                                   listed, processes));
    }
    return spec.per_core;
  }
  if (spec.count > processes) {
    throw InputError(fmt::format("{}: {} but this node runs only {} processes; use at most {} cores", source,
                                 describe(spec), processes, processes));
  }
  std::vector<int> counts;
  counts.reserve(static_cast<std::size_t>(spec.count));
  for (int c = 0; c < spec.count; ++c) counts.push_back(processes / spec.count + (c < processes % spec.count ? 1 : 0));
  return counts;
}

// Pins this process to its core: node-local process i takes slot i of the round-robin
// layout. Returns the CPU.
int pin_to_core(const CoresSpec& spec, const std::string& source, MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  const int local = comm_rank(node);
  const int local_size = comm_size(node);
  std::vector<int> cpus;
  try {
    cpus = node_cpus(node);
  } catch (...) {
    MPI_Comm_free(&node);
    throw;
  }
  MPI_Comm_free(&node);
  int cpu = -1;
  collectively(comm, [&] {
    const auto counts = processes_per_core(spec, local_size, source);
    if (counts.size() > cpus.size()) {
      throw InputError(fmt::format("{}: {}, but the processes of this node may run on {} CPUs", source, describe(spec),
                                   cpus.size()));
    }
    const reorder::SlotLayout layout = reorder::layout_from_counts(counts);
    cpu = cpus[static_cast<std::size_t>(layout.core_of_slot[static_cast<std::size_t>(local)])];
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
      throw RunError(fmt::format("cannot pin to CPU {}: {}", cpu, std::strerror(errno)));
    }
  });
  return cpu;
}

// This rank's work per step at the start: its vertices' weights at step 0, in seconds.
double initial_rank_load(const Scenario& s, MPI_Comm comm) {
  Mesh mesh = build_mesh(s.mesh, s.seed, comm);
  LocalGraph& g = mesh.graph;
  place_at_start(g, mesh.trace.get(), s.distribution, s.seed, comm);
  double load = 0;
  collectively(comm, [&] {
    const WorkloadField field(s.workload, g, s.seed, mesh.trace);
    std::vector<std::vector<double>> weights;
    field.weights(g, 0, weights);
    for (const auto& component : weights) load += std::accumulate(component.begin(), component.end(), 0.0);
    load *= s.workload.unit_seconds;
  });
  return load;
}

template <class T>
std::vector<T> gathered(T mine, MPI_Comm comm) {
  std::vector<T> all(static_cast<std::size_t>(comm_size(comm)));
  MPI_Allgather(&mine, 1, mpi_type<T>(), all.data(), 1, mpi_type<T>(), comm);
  return all;
}

// Every process's value on root only (empty elsewhere): the report is the new rank 0's,
// and P values on each of P simulated ranks would be P^2 memory in one process.
template <class T>
std::vector<T> gathered_at(int root, T mine, MPI_Comm comm) {
  std::vector<T> all(comm_rank(comm) == root ? static_cast<std::size_t>(comm_size(comm)) : 0);
  MPI_Gather(&mine, 1, mpi_type<T>(), all.data(), 1, mpi_type<T>(), root, comm);
  return all;
}

MPI_Comm create(const ReorderSpec& spec, double my_load, std::int64_t key, std::uint64_t seed, MPI_Comm comm) {
  const reorder::Method method = reorder::parse_method(spec.method);
  if (method == reorder::Method::dist) return reorder::dist_load_create(comm, my_load, spec.levels, key);
  // MPI_Load_create's contract: every process passes all n loads.
  const std::vector<double> loads = gathered(my_load, comm);
  reorder::PlanOptions options;
  options.seed = seed;
  return reorder::load_create(comm, loads, method, key, options);
}

double max_of(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

Json report_of(const ReorderSpec& spec, const reorder::SlotLayout& layout, const std::vector<double>& loads,
               const std::vector<int>& new_rank, const std::vector<int>& cpu, double create_s) {
  // Slot s holds process_of_slot[s]; after the split it runs the work of its new rank.
  std::vector<int> rank_of_slot(static_cast<std::size_t>(layout.slots()));
  for (int s = 0; s < layout.slots(); ++s) {
    rank_of_slot[static_cast<std::size_t>(s)] =
        new_rank[static_cast<std::size_t>(layout.process_of_slot[static_cast<std::size_t>(s)])];
  }
  const auto before = reorder::core_loads(loads, layout, reorder::plan_identity(layout));
  const auto after = reorder::core_loads(loads, layout, rank_of_slot);
  Json r{{"method", spec.method},
         {"processes_per_core", layout.capacity},
         {"rank_loads_s", loads},
         {"core_loads_before_s", before},
         {"core_loads_after_s", after},
         {"max_core_load_before_s", max_of(before)},
         {"max_core_load_after_s", max_of(after)},
         {"lower_bound_s", reorder::lower_bound(loads, layout)},
         {"create_s", create_s},
         {"new_rank_of_process", new_rank}};
  if (spec.method == "dist") r["t"] = spec.levels;
  if (std::any_of(cpu.begin(), cpu.end(), [](int c) { return c >= 0; })) r["cpu_of_process"] = cpu;
  return r;
}

}  // namespace

StartupReorder reorder_at_start(const Scenario& s, const Engine& engine, MPI_Comm comm) {
  const bool real = engine.real_cores();
  if (s.cores && !real) {
    throw AgreedInputError(
        fmt::format("{}: {} pins real processes to real cores; it needs the mpi engine (on a simulated machine, "
                    "machine.processes_per_core puts several ranks on each simulated core)",
                    s.source, describe(*s.cores)));
  }
  const int cpu = s.cores ? pin_to_core(*s.cores, s.source, comm) : -1;
  const double my_load = initial_rank_load(s, comm);
  const ReorderSpec spec = s.reorder.value_or(ReorderSpec{});
  const std::int64_t key = reorder::core_key(engine.current_cpu());

  StartupReorder out;
  MPI_Barrier(comm);
  const double t0 = engine.now();
  collectively(comm, [&] {
    try {
      out.comm = create(spec, my_load, key, s.seed, comm);
    } catch (const std::invalid_argument& e) {
      throw InputError(fmt::format("{}: reorder: {}", s.source, e.what()));
    }
  });
  const double create_s = allreduce(engine.now() - t0, MPI_MAX, comm);

  // The process that is rank 0 of the reordered communicator writes the record.
  const int new_rank = comm_rank(out.comm);
  const int reporter = allreduce(new_rank == 0 ? comm_rank(comm) : comm_size(comm), MPI_MIN, comm);
  const std::vector<double> loads = gathered_at(reporter, my_load, comm);
  const std::vector<std::int64_t> keys = gathered_at(reporter, key, comm);
  const std::vector<int> new_ranks = gathered_at(reporter, new_rank, comm);
  const std::vector<int> cpus = gathered_at(reporter, cpu, comm);
  if (comm_rank(comm) != reporter) return out;
  const reorder::SlotLayout layout = reorder::layout_from_core_keys(keys);
  out.report = report_of(spec, layout, loads, new_ranks, cpus, create_s);
  return out;
}

}  // namespace lbbench
