// The smpi engine: the same code under SimGrid SMPI, on a simulated machine preset (see
// replay/engine.hpp). Every simulated rank runs in this one process.
#include <smpi/smpi.h>

#include <algorithm>
#include <fstream>

#include "balancers/plugins.hpp"
#include "comm/heap.hpp"
#include "comm/mpi.hpp"
#include "core/error.hpp"
#include "engines/smpi/code_time.hpp"
#include "replay/engine.hpp"

namespace lbbench {

namespace {

// do_work(w) is w * unit_seconds of simulated computation on the simulated core: SimGrid
// turns it into flops at the preset's core speed. One injection covers the whole phase
// (the work is sequential and nothing happens in between), and each vertex's time is
// exactly its share, which is what a perfect timer would have measured.
class SimulatedCompute final : public ComputePhase {
 public:
  explicit SimulatedCompute(double unit_seconds) : unit_seconds_(unit_seconds) {}

  void run(std::span<const double> weights, std::span<double> vertex_time) override {
    double total = 0;
    for (std::size_t v = 0; v < weights.size(); ++v) {
      const double t = weights[v] * unit_seconds_;
      if (!vertex_time.empty()) vertex_time[v] += t;
      total += t;
    }
    if (total > 0) smpi_execute_benched(total);
  }

  void run_some(std::span<const LocalIndex> which, std::span<const double> weights,
                std::span<double> vertex_time) override {
    double total = 0;
    for (LocalIndex v : which) {
      const double t = weights[static_cast<std::size_t>(v)] * unit_seconds_;
      if (!vertex_time.empty()) vertex_time[static_cast<std::size_t>(v)] += t;
      total += t;
    }
    if (total > 0) smpi_execute_benched(total);
  }

  [[nodiscard]] Json describe() const override { return Json{{"kind", "simulated"}, {"unit_seconds", unit_seconds_}}; }

 private:
  double unit_seconds_;
};

// Peak resident memory of this process (VmHWM), in MiB: all simulated ranks share it, so
// it is the simulation's.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

// The ranks' tables, shared. The simulated machine is the preset's: there are no real hosts
// to discover (and discovering them takes allgathers, O(P^2) messages). Every simulated
// rank runs main() in this one process (privatization is off) with its own engine, and
// all run the same scenario, so the first to get here plans the layout and the others
// share its tables: P copies of P-sized tables would grow as P².
struct SharedPlacement {
  std::optional<MachineInfo> info;
  int nodes = 0;  // O(P) to find, so found once rather than on every rank
};

SharedPlacement& shared_placement() {
  static SharedPlacement shared;
  return shared;
}

class SmpiEngine final : public Engine {
 public:
  explicit SmpiEngine(const EngineSettings& settings) : settings_(settings) {
    charge_code_explicitly(settings.charge_code);
    // The shared heap's other setting, the per-size cache's depth, has no mallopt: the
    // launcher gives it as GLIBC_TUNABLES (simulator_glibc_tunables, machine/preset.hpp).
    keep_freed_memory();
    turn_off_fastbins();  // the simulated ranks share one heap
  }

  [[nodiscard]] const EngineInfo& info() const override { return engine_info(EngineKind::smpi); }
  [[nodiscard]] double now() const override { return MPI_Wtime(); }

  [[nodiscard]] std::unique_ptr<ComputePhase> compute_phase(double unit_seconds, MPI_Comm) const override {
    return std::make_unique<SimulatedCompute>(unit_seconds);
  }

  [[nodiscard]] MachineLayout place(const MachineSpec& spec, MPI_Comm comm) const override {
    if (!spec.definition) throw AgreedInputError("the smpi engine simulates a machine: set machine.preset");
    const MachinePreset preset = spec.effective_preset();
    const auto nranks = static_cast<std::size_t>(comm_size(comm));
    SharedPlacement& shared = shared_placement();
    if (!shared.info || shared.info->rank_node.size() != nranks) {
      shared.info = MachineInfo{};
      place_on_preset(preset, comm, *shared.info);
      set_network(preset, static_cast<int>(nranks), *shared.info);
      shared.info->rank_speed = std::vector<double>(nranks, 1.0);
      const auto& nodes = shared.info->rank_node.values();
      shared.nodes = nodes.empty() ? 0 : *std::max_element(nodes.begin(), nodes.end()) + 1;
    }
    MachineLayout out;
    out.info = *shared.info;
    out.info.sites = preset.sites;
    out.info.code_time_scale = settings_.code_time_scale;
    out.nodes = shared.nodes;
    out.ranks_on_my_node = preset.ranks_per_node();
    out.cores_on_my_node = static_cast<unsigned>(preset.cores);
    attach_fitted_costs(spec, name(), out.info);
    return out;
  }
  // Simulated ranks share simulated cores as the preset lays them out.
  [[nodiscard]] bool real_cores() const override { return false; }
  // Each simulated host is the unit the rank reorder balances; the real CPU means nothing.
  [[nodiscard]] int current_cpu() const override { return 0; }

  [[nodiscard]] WaitMode wait_mode() const override { return WaitMode::block; }
  // The simulated WAN link has the latency itself.
  [[nodiscard]] std::optional<WanDelay> wan_delay(const MachineSpec&, const MachineInfo&, MPI_Comm) const override {
    return std::nullopt;
  }

  [[nodiscard]] std::optional<SimulationInfo> simulation(double setup_s, double host_wall_s) const override {
    return SimulationInfo{host_wall_s, peak_rss_mb(), setup_s};
  }

 private:
  EngineSettings settings_;
};

}  // namespace

std::unique_ptr<Engine> make_native_engine(const EngineSettings& settings) {
  set_plugins_mpi("smpi", "-smpi");  // a general plugin strategy's MPI calls must be SimGrid's
  return std::make_unique<SmpiEngine>(settings);
}

}  // namespace lbbench
