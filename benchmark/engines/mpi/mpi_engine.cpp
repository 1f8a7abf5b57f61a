// The mpi engine: real Open MPI ranks, the host's wall clock, and do_work as calibrated
// random reads (see replay/engine.hpp).
#include <sched.h>

#include <memory>

#include "comm/heap.hpp"
#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "engines/mpi/calibration.hpp"
#include "engines/mpi/do_work.hpp"
#include "replay/engine.hpp"

namespace lbbench {

namespace {

// do_work is the calibrated random-read kernel. Each vertex is timed with one clock read
// when the run needs its own time (measured loads); otherwise only the phase is.
class KernelCompute final : public ComputePhase {
 public:
  KernelCompute(WorkKernel& kernel, const Calibration& calibration, double unit_seconds)
      : kernel_(kernel), calibration_(calibration) {
    // A vertex timed on its own pays a clock read after its work; one that is not does not.
    timed_work_ = std::make_unique<DoWork>(kernel_, calibration_.accesses_per_second, unit_seconds,
                                           calibration_.call_seconds + calibration_.clock_seconds);
    work_ =
        std::make_unique<DoWork>(kernel_, calibration_.accesses_per_second, unit_seconds, calibration_.call_seconds);
  }

  void run(std::span<const double> weights, std::span<double> vertex_time) override {
    work_on(
        weights.size(), [](std::size_t i) { return i; }, weights, vertex_time);
  }

  void run_some(std::span<const LocalIndex> which, std::span<const double> weights,
                std::span<double> vertex_time) override {
    work_on(
        which.size(), [&](std::size_t i) { return static_cast<std::size_t>(which[i]); }, weights, vertex_time);
  }

  [[nodiscard]] Json describe() const override {
    Json j = to_json(calibration_);
    j["kind"] = "random reads";
    j["timed"] = timed_vertices_ ? "per vertex" : "per step";
    return j;
  }
  [[nodiscard]] std::uint64_t checksum() const override { return kernel_.sink(); }

 private:
  // do_work for the vertices at position(0..count-1), and each one's time when vertex_time
  // is not empty.
  template <class Position>
  void work_on(std::size_t count, Position position, std::span<const double> weights, std::span<double> vertex_time) {
    if (vertex_time.empty()) {
      for (std::size_t i = 0; i < count; ++i) (*work_)(weights[position(i)]);
      return;
    }
    timed_vertices_ = true;
    double mark = wall_seconds();
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t v = position(i);
      (*timed_work_)(weights[v]);
      const double t = wall_seconds();
      vertex_time[v] += t - mark;
      mark = t;
    }
  }

  WorkKernel& kernel_;
  Calibration calibration_;
  std::unique_ptr<DoWork> work_;        // for vertices that are not timed one by one
  std::unique_ptr<DoWork> timed_work_;  // for those that are
  bool timed_vertices_ = false;
};

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
    const ProcessKernel shared = process_kernel(settings_.recalibrate, comm);
    return std::make_unique<KernelCompute>(shared.kernel, shared.calibration, unit_seconds);
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
