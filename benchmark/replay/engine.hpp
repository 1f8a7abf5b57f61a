// The one seam between the replay and the engine it runs under. The replay (benchmark/
// engine) asks its Engine for the clock, how do_work is charged, how messages are waited
// on and timed, and where ranks sit; nothing outside an engine's own folder knows which
// engine runs. Balancers never see it.
//
// Each binary has one engine it runs in-process, made by make_native_engine(): Open MPI's
// in `lbbench` (engines/mpi), SimGrid SMPI's in `lbbench-smpi` (engines/smpi). CMake
// compiles the native engine's folder into each binary.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string_view>

#include "engines/catalog.hpp"
#include "record/run_record.hpp"
#include "replay/compute_phase.hpp"
#include "replay/halo_exchange.hpp"
#include "replay/placement.hpp"

namespace lbbench {

class Engine {
 public:
  virtual ~Engine() = default;
  [[nodiscard]] virtual const EngineInfo& info() const = 0;
  [[nodiscard]] std::string_view name() const { return info().name; }

  // The run's clock in seconds: the wall clock on a real machine, simulated time otherwise.
  [[nodiscard]] virtual double now() const = 0;

  // How do_work(w) is charged (collective over comm).
  [[nodiscard]] virtual std::unique_ptr<ComputePhase> compute_phase(double unit_seconds, MPI_Comm comm) const = 0;

  // Where the ranks sit and what balancers are told of the machine (collective).
  [[nodiscard]] virtual MachineLayout place(const MachineSpec& spec, MPI_Comm comm) const = 0;
  // Ranks are real processes on real cores: they can share cores (time-sharing shows in
  // wall times) and be pinned to them.
  [[nodiscard]] virtual bool real_cores() const = 0;
  // The CPU this process runs on, for the rank reorder's core keys.
  [[nodiscard]] virtual int current_cpu() const = 0;

  // How the step's messages are waited on.
  [[nodiscard]] virtual WaitMode wait_mode() const = 0;
  // A delay device for wide-area messages, where the engine does not simulate the WAN
  // itself (collective).
  [[nodiscard]] virtual std::optional<WanDelay> wan_delay(const MachineSpec& spec, const MachineInfo& machine,
                                                          MPI_Comm comm) const = 0;

  // What the simulation cost on this host, for the record; empty on a real machine.
  // `setup_s` is the run's set-up time on the run's clock, `host_wall_s` its host time.
  [[nodiscard]] virtual std::optional<SimulationInfo> simulation(double setup_s, double host_wall_s) const = 0;
  // What each process holds besides its share of the run (do_work's array, the MPI
  // library), for the memory check of a run with a process per rank.
  [[nodiscard]] virtual double process_bytes() const { return 0; }
};

// Settings the native engine is made with (from the command line).
struct EngineSettings {
  bool recalibrate = false;  // measure do_work now rather than use a cached calibration
  // Simulated seconds per host second of real code (MachineInfo::code_time_scale): set by
  // the SMPI launcher, which measured this host; 1 on a real machine.
  double code_time_scale = 1.0;
  // Charge the balancers' and the migration's code by its own CPU time (comm/code_time.hpp);
  // off when the simulator benchmarks every piece of code itself, or when code is free.
  bool charge_code = true;
};

// The engine this binary runs in-process.
std::unique_ptr<Engine> make_native_engine(const EngineSettings& settings);

}  // namespace lbbench
