// The mpi engine: real Open MPI ranks, the host's wall clock, and do_work as calibrated
// random reads (see engines/engine.hpp).
#include <malloc.h>
#include <sched.h>

#include <limits>

#include "core/clock.hpp"
#include "engines/engine.hpp"
#include "engines/mpi/calibration.hpp"
#include "engines/mpi/do_work.hpp"
#include "mpi/mpi.hpp"

namespace lbbench {

namespace {

// do_work is the calibrated random-read kernel, each vertex timed with one clock read.
class KernelCompute final : public ComputePhase {
 public:
  KernelCompute(double unit_seconds, bool recalibrate, MPI_Comm comm) : kernel_(default_work_array_bytes()) {
    // Ranks on one host share its memory system, so the rate that holds is the one
    // measured with as many ranks reading at once as this run has there (at most one per
    // core: oversubscribed ranks take turns).
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
    const int ranks_per_node = readers_on_node(node);
    std::optional<Calibration> cached;
    if (!recalibrate) cached = load_cached_calibration(kernel_.array_bytes(), ranks_per_node);
    // The node's ranks agree whether to measure (a file can appear while they look), and
    // then measure together.
    const int found = cached ? 1 : 0;
    int all_found = 0;
    MPI_Allreduce(&found, &all_found, 1, MPI_INT, MPI_MIN, node);
    if (all_found == 0) {
      MPI_Barrier(node);
      calibration_ = measure_calibration(kernel_, 0.3);
      calibration_.ranks_per_node = ranks_per_node;
    } else {
      calibration_ = *cached;
    }
    MPI_Comm_free(&node);
    // Measuring pages the array in too; a cached calibration needs the same warm-up.
    if (all_found != 0) kernel_.access(kernel_.array_bytes() / 8);
    // One rate for every rank: a weight is the same number of reads everywhere, so
    // calibration noise does not turn into imbalance, and real speed differences between
    // hosts still show.
    calibration_.accesses_per_second = allreduce(calibration_.accesses_per_second, MPI_SUM, comm) / comm_size(comm);
    calibration_.call_seconds = allreduce(calibration_.call_seconds, MPI_SUM, comm) / comm_size(comm);
    work_ =
        std::make_unique<DoWork>(kernel_, calibration_.accesses_per_second, unit_seconds, calibration_.call_seconds);
  }

  void run(std::span<const double> weights, std::span<double> vertex_time) override {
    double mark = wall_seconds();
    for (std::size_t v = 0; v < weights.size(); ++v) {
      (*work_)(weights[v]);
      const double t = wall_seconds();
      vertex_time[v] += t - mark;
      mark = t;
    }
  }

  void run_some(std::span<const LocalIndex> which, std::span<const double> weights,
                std::span<double> vertex_time) override {
    double mark = wall_seconds();
    for (LocalIndex v : which) {
      (*work_)(weights[static_cast<std::size_t>(v)]);
      const double t = wall_seconds();
      vertex_time[static_cast<std::size_t>(v)] += t - mark;
      mark = t;
    }
  }

  [[nodiscard]] Json describe() const override {
    Json j = to_json(calibration_);
    j["kind"] = "random reads";
    return j;
  }
  [[nodiscard]] std::uint64_t checksum() const override { return kernel_.sink(); }

 private:
  WorkKernel kernel_;
  Calibration calibration_;
  std::unique_ptr<DoWork> work_;
};

// Freed memory stays in the heap for reuse. By default glibc serves large blocks (a
// migration's packed vertices, its receive buffers) from fresh mmap'ed pages and returns
// them when freed, so every migration paid a page fault per 4 KiB touched: on a VM that
// was most of its time (160 ms for 4,100 vertices of 4 KiB at 2 ranks, 25 ms with a warm
// heap). A long-running application migrates with a warm heap.
void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

class MpiEngine final : public Engine {
 public:
  explicit MpiEngine(const EngineSettings& settings) : settings_(settings) { keep_freed_memory(); }

  [[nodiscard]] const EngineInfo& info() const override { return engine_info(EngineKind::mpi); }
  // do_work's array and Open MPI's own buffers and mappings (about 100 MB resident).
  [[nodiscard]] double process_bytes() const override {
    return static_cast<double>(default_work_array_bytes()) + 100e6;
  }
  [[nodiscard]] double now() const override { return wall_seconds(); }

  [[nodiscard]] std::unique_ptr<ComputePhase> compute_phase(double unit_seconds, MPI_Comm comm) const override {
    return std::make_unique<KernelCompute>(unit_seconds, settings_.recalibrate, comm);
  }

  [[nodiscard]] MachineLayout place(const MachineSpec& spec, MPI_Comm comm) const override {
    MachineLayout out = discover_hosts(spec, comm);
    attach_fitted_costs(spec, name(), out.info);
    return out;
  }
  [[nodiscard]] bool real_cores() const override { return true; }
  [[nodiscard]] int current_cpu() const override { return sched_getcpu(); }

  [[nodiscard]] WaitMode wait_mode() const override { return WaitMode::poll; }

  // A preset with several sites gets Koenig & Kale's delay device: the real network has no
  // wide-area link, so messages between sites are held for the WAN latency.
  [[nodiscard]] std::optional<WanDelay> wan_delay(const MachineSpec& spec, const MachineInfo& machine,
                                                  MPI_Comm comm) const override {
    if (!spec.definition || spec.definition->sites < 2) return std::nullopt;
    WanDelay d;
    d.rank_site = machine.rank_site.values();
    d.latency = spec.effective_preset().wan_latency;
    d.clock_offset = clock_offset_to_rank0(comm);
    return d;
  }

  [[nodiscard]] std::optional<SimulationInfo> simulation(double, double) const override { return std::nullopt; }

 private:
  EngineSettings settings_;
};

}  // namespace

std::unique_ptr<Engine> make_native_engine(const EngineSettings& settings) {
  return std::make_unique<MpiEngine>(settings);
}

}  // namespace lbbench
