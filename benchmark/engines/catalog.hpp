// The engines a run can use, as plain data: what the command line, sweeps and the
// harness need to know of an engine without linking it. Each engine's code lives in its
// own folder (engines/mpi, engines/smpi, engines/model); replay/engine.hpp is what the
// MPI replay asks of the two MPI engines.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "scenario/scenario.hpp"

namespace lbbench {

enum class EngineKind { mpi, smpi, model };

struct EngineInfo {
  std::string_view name;
  EngineKind kind;
  std::string_view description;
  // The ranks are processes that mpirun or srun starts; otherwise one process runs them
  // all (`lbbench run --engine NAME --ranks N`).
  bool process_per_rank;
  // Throws InputError when this engine cannot run the scenario (a balancer or machine it
  // does not have), saying what to do instead.
  void (*check)(const Scenario& scenario);
};

std::span<const EngineInfo> engine_table();
const EngineInfo& engine_info(EngineKind kind);
// Throws InputError with the known names and a "did you mean" for an unknown one.
const EngineInfo& find_engine(std::string_view name);

}  // namespace lbbench
