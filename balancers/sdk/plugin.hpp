// A strategy outside the tree: one .cpp file that includes this header, implements one of
// the three shapes below, and registers with one LBBENCH_BALANCER(...) line. Built into a
// shared library against the installed package (lbbench_add_balancer), it is loaded by
// name at run time with `--plugin PATH` or a scenario's `plugins:`.
//
// Everything here is header-only: a plugin calls no lbbench code, so one library runs in
// every binary and on every engine. lbbench wraps the strategy in its own balancer of the
// same shape, which gathers, times and checks it as it does its built-in strategies.
//   - Centralized: solve() on the gathered problem, on rank 0. Calls no MPI.
//   - Protocol: one rank's side of a round protocol (RankProtocol), run by lbbench's
//     drivers over real or simulated messages, or serially. Calls no MPI.
//   - General: plan() on one rank's LoadView, collective over an MPI communicator. It
//     calls MPI, so it runs on the engines whose MPI it was built against: built with
//     mpicxx, the mpi engine; built with smpicxx (the -smpi variant lbbench_add_balancer
//     makes), the smpi engine. The model engine runs no MPI and refuses it.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "balancers/sdk/centralized.hpp"
#include "balancers/sdk/plugin_declaration.hpp"
#include "balancers/sdk/protocol.hpp"

namespace lbbench::plugin {

// --- the three shapes ----------------------------------------------------------------------

// What the gather sends to rank 0 besides the loads, for strategies that ask.
struct Needs {
  bool graph = false;    // the communication graph (GlobalProblem::xadj, adjncy, adj_bytes)
  bool vectors = false;  // each object's load vector (GlobalProblem::load_vec)
  bool coords = false;   // each object's coordinates where the mesh has them (GlobalProblem::coords)
};

class Centralized {
 public:
  virtual ~Centralized() = default;
  // The new owner of every object of the problem, in its order. Runs on rank 0.
  [[nodiscard]] virtual Assignment solve(const GlobalProblem& problem) const = 0;
  [[nodiscard]] virtual Needs needs() const { return {}; }
};

class Protocol {
 public:
  virtual ~Protocol() = default;
  // This rank's side of the protocol for one call.
  [[nodiscard]] virtual std::unique_ptr<RankProtocol> make_protocol(RankWork work,
                                                                    const ProtocolContext& ctx) const = 0;
  // Each unit's neighbor ranks in RankWork (nbr_xadj, nbr_rank, nbr_edges, peers).
  [[nodiscard]] virtual bool needs_locality() const { return false; }
};

class General {
 public:
  virtual ~General() = default;
  // Collective over comm, which the strategy may use freely.
  virtual MigrationPlan plan(const LoadView& view, MPI_Comm comm) = 0;
};

// Which MPI a plugin's code was compiled against: only the general shape calls it.
#ifdef SMPI_H  // SimGrid's mpi.h includes smpi.h
inline constexpr const char* kBuiltFor = "smpi";
#else
inline constexpr const char* kBuiltFor = "mpi";
#endif

// The declaration of strategy S, whose shape is the one of the three it derives from and
// which is made from the validated params (a constructor taking const Params&).
template <class S>
Declaration declare(std::string name, Family family, std::string description, std::vector<ParamSpec> params) {
  Declaration d;
  d.name = std::move(name);
  d.family = family;
  d.description = std::move(description);
  d.params = std::move(params);
  d.built_for = kBuiltFor;
  if constexpr (std::is_base_of_v<Centralized, S>) {
    d.shape = Shape::centralized;
    d.make_centralized = [](const Params& p) -> std::unique_ptr<Centralized> { return std::make_unique<S>(p); };
  } else if constexpr (std::is_base_of_v<Protocol, S>) {
    d.shape = Shape::protocol;
    d.make_protocol = [](const Params& p) -> std::unique_ptr<Protocol> { return std::make_unique<S>(p); };
  } else {
    static_assert(std::is_base_of_v<General, S>, "a strategy derives from Centralized, Protocol or General");
    d.shape = Shape::general;
    d.make_general = [](const Params& p) -> std::unique_ptr<General> { return std::make_unique<S>(p); };
  }
  return d;
}

}  // namespace lbbench::plugin

// Registers strategy class S under NAME with its family, description and params list:
//   LBBENCH_BALANCER(OrbLb, "orb", lbbench::Family::global, "recursive bisection", {...})
#define LBBENCH_BALANCER(S, NAME, FAMILY, DESCRIPTION, ...)                                  \
  extern "C" __attribute__((visibility("default"))) int lbbench_plugin_abi_version() {       \
    return ::lbbench::plugin::kAbiVersion;                                                   \
  }                                                                                          \
  extern "C" __attribute__((visibility("default"))) const ::lbbench::plugin::Declaration*    \
  lbbench_plugin_declaration() {                                                             \
    static const ::lbbench::plugin::Declaration declaration = ::lbbench::plugin::declare<S>( \
        NAME, FAMILY, DESCRIPTION, std::vector<::lbbench::plugin::ParamSpec> __VA_ARGS__);   \
    return &declaration;                                                                     \
  }
