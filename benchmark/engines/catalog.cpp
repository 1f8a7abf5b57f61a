// The engines a run can use (see catalog.hpp).
#include "engines/catalog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <vector>

#include "balancers/model/auto/params.hpp"
#include "balancers/sdk/plugin_declaration.hpp"
#include "balancers/sdk/registry.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"

namespace lbbench {

namespace {

// The balancer, or `auto`'s candidate, that `wanted` holds for; null where none does.
template <class Wanted>
const BalancerConfig* used(const BalancerConfig& config, Wanted&& wanted) {
  if (wanted(config)) return &config;
  if (const auto* a = config.params.get_if<AutoParams>()) {
    for (const auto& c : a->candidates) {
      if (const BalancerConfig* found = used(c, wanted)) return found;
    }
  }
  return nullptr;
}

// Whether the balancer is `kind`, or `auto` with `kind` among its candidates.
bool uses(const BalancerConfig& config, BalancerKind kind) {
  return used(config, [&](const BalancerConfig& c) { return c.kind == kind; }) != nullptr;
}

void check_mpi(const Scenario& s) {
  if (s.machine.eager_bytes) {
    throw InputError(fmt::format(
        "{}: machine.eager_bytes sets the eager limit of a simulated or modeled machine; on the mpi engine the MPI "
        "library decides (Open MPI: its btl_*_eager_limit parameters)",
        s.source));
  }
}

void check_simulated(const Scenario& s, std::string_view engine) {
  if (!s.machine.definition) {
    std::vector<std::string> presets = machine_preset_names(s.source);
    presets.erase(std::remove(presets.begin(), presets.end(), "local"), presets.end());
    throw InputError(fmt::format(
        "{}: the {} engine simulates a machine, and machine local is the real hosts, which only the mpi engine runs. "
        "Choose a preset with --machine or machine.preset ({}), or simulate this machine: measure it into a preset "
        "with `mpirun -np N lbbench calibrate --preset-out host.yaml`, then --machine host.yaml",
        s.source, engine, fmt::join(presets, ", ")));
  }
  if (uses(s.balancer.config, BalancerKind::zoltan)) {
    throw InputError(fmt::format(
        "{}: zoltan cannot run under the {} engine: Debian's Zoltan is linked to Open MPI; use metis, refine or "
        "grid-metis there",
        s.source, engine));
  }
  if (s.cores) {
    throw InputError(
        fmt::format("{}: `cores` pins real processes to real cores; it needs the mpi engine (on a simulated machine, "
                    "machine.processes_per_core puts several ranks on each simulated core)",
                    s.source));
  }
}

void check_smpi(const Scenario& s) { check_simulated(s, "smpi"); }

void check_model(const Scenario& s) {
  check_simulated(s, "model");
  const BalancerConfig* general = used(s.balancer.config, [](const BalancerConfig& c) {
    return c.info().plugin != nullptr && c.info().plugin->shape == plugin::Shape::general;
  });
  if (general != nullptr) {
    throw InputError(fmt::format(
        "{}: the plugin strategy '{}' has the general shape, whose plan() calls MPI, and the model engine runs no "
        "MPI; run it on the mpi or smpi engine, or write it as a centralized or protocol strategy",
        s.source, general->name()));
  }
  if (s.reorder) {
    throw InputError(fmt::format(
        "{}: the model engine has no start-up rank reorder yet; run reorder scenarios on the mpi or smpi engine",
        s.source));
  }
}

constexpr std::array kEngines{
    EngineInfo{"mpi", EngineKind::mpi, "real MPI: ranks are processes started by mpirun or srun; wall-clock times",
               true, &check_mpi},
    EngineInfo{"smpi", EngineKind::smpi,
               "SimGrid SMPI: the same code on a simulated machine preset, all ranks in one process; simulated times",
               false, &check_smpi},
    EngineInfo{"model", EngineKind::model,
               "the machine modeled, not simulated: flat arrays over vertices and ranks, the real balancer code, "
               "message and compute times from the preset; for 10^5-10^6 ranks",
               false, &check_model},
};

}  // namespace

std::span<const EngineInfo> engine_table() { return kEngines; }

const EngineInfo& engine_info(EngineKind kind) {
  for (const auto& e : kEngines) {
    if (e.kind == kind) return e;
  }
  throw std::logic_error("engine_info: an engine kind without a row");
}

const EngineInfo& find_engine(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& e : kEngines) {
    if (e.name == name) return e;
    names.emplace_back(e.name);
  }
  throw InputError(
      fmt::format("unknown engine '{}'.{} Known engines: {}", name, did_you_mean(name, names), fmt::join(names, ", ")));
}

}  // namespace lbbench
