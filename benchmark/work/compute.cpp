// The compute phase of a step (see compute.hpp).
#include "work/compute.hpp"

#include "core/clock.hpp"
#include "mpi/mpi.hpp"

#ifndef LBBENCH_SMPI
#include "work/calibration.hpp"
#include "work/do_work.hpp"
#endif

namespace lbbench {

namespace {

#ifdef LBBENCH_SMPI

// Under SMPI, do_work(w) is w * unit_seconds of simulated computation on the simulated
// core: SimGrid turns it into flops at the preset's core speed. One injection covers the
// whole phase (the work is sequential and nothing happens in between), and each vertex's
// time is exactly its share, which is what a perfect timer would have measured.
class SimulatedCompute final : public ComputePhase {
 public:
  explicit SimulatedCompute(double unit_seconds) : unit_seconds_(unit_seconds) {}

  void run(std::span<const double> weights, std::span<double> vertex_time) override {
    double total = 0;
    for (std::size_t v = 0; v < weights.size(); ++v) {
      const double t = weights[v] * unit_seconds_;
      vertex_time[v] += t;
      total += t;
    }
    if (total > 0) smpi_execute_benched(total);
  }

  void run_some(std::span<const LocalIndex> which, std::span<const double> weights,
                std::span<double> vertex_time) override {
    double total = 0;
    for (LocalIndex v : which) {
      const double t = weights[static_cast<std::size_t>(v)] * unit_seconds_;
      vertex_time[static_cast<std::size_t>(v)] += t;
      total += t;
    }
    if (total > 0) smpi_execute_benched(total);
  }

  [[nodiscard]] Json describe() const override { return Json{{"kind", "simulated"}, {"unit_seconds", unit_seconds_}}; }

 private:
  double unit_seconds_;
};

#else

// Under Open MPI, do_work is the calibrated random-read kernel, each vertex timed with one
// clock read.
class KernelCompute final : public ComputePhase {
 public:
  KernelCompute(double unit_seconds, bool recalibrate, MPI_Comm comm) : kernel_(default_work_array_bytes()) {
    std::optional<Calibration> cached;
    if (!recalibrate) cached = load_cached_calibration(kernel_.array_bytes());
    calibration_ = cached ? *cached : measure_calibration(kernel_, 0.3);
    // Measuring pages the array in too; a cached calibration needs the same warm-up.
    if (cached) kernel_.access(kernel_.array_bytes() / 8);
    // One rate for every rank: a weight is the same number of reads everywhere, so
    // calibration noise does not turn into imbalance, and real speed differences between
    // hosts still show.
    calibration_.accesses_per_second =
        allreduce(calibration_.accesses_per_second, MPI_SUM, comm) / comm_size(comm);
    work_ = std::make_unique<DoWork>(kernel_, calibration_.accesses_per_second, unit_seconds);
  }

  void run(std::span<const double> weights, std::span<double> vertex_time) override {
    double mark = now_seconds();
    for (std::size_t v = 0; v < weights.size(); ++v) {
      (*work_)(weights[v]);
      const double t = now_seconds();
      vertex_time[v] += t - mark;
      mark = t;
    }
  }

  void run_some(std::span<const LocalIndex> which, std::span<const double> weights,
                std::span<double> vertex_time) override {
    double mark = now_seconds();
    for (LocalIndex v : which) {
      (*work_)(weights[static_cast<std::size_t>(v)]);
      const double t = now_seconds();
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

#endif

}  // namespace

std::unique_ptr<ComputePhase> make_compute_phase(double unit_seconds, bool recalibrate, MPI_Comm comm) {
#ifdef LBBENCH_SMPI
  (void)recalibrate;
  (void)comm;
  return std::make_unique<SimulatedCompute>(unit_seconds);
#else
  return std::make_unique<KernelCompute>(unit_seconds, recalibrate, comm);
#endif
}

const char* engine_name() {
#ifdef LBBENCH_SMPI
  return "smpi";
#else
  return "mpi";
#endif
}

}  // namespace lbbench
