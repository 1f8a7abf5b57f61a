// Refusing a run that cannot fit: an estimate of the memory a run needs, made from the
// scenario before anything is allocated, against the memory this host (or its cgroup, or
// --max-memory) allows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engines/catalog.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// The mesh's size as the scenario tells it: exact for the generators and for a file's
// header, expected for the random point clouds, and for a block mesh its largest over
// `steps` steps as its front says.
struct MeshSize {
  double vertices = 0;
  double edge_ends = 0;       // each undirected edge counts twice, as the CSR holds it
  double whole_per_rank = 0;  // what every rank holds whole: a recorded run's times and tasks
};
MeshSize expected_mesh_size(const MeshSpec& mesh, int steps = 0);

// What one process of a run needs, part by part.
struct MemoryNeed {
  double graph = 0;      // the mesh's vertices and edges, with the replay's arrays over them
  double migration = 0;  // the packed vertices of one LB call, sent and received
  double balancer = 0;   // the balancer's own state at its largest
  double engine = 0;     // the engine's fixed cost: the simulator, MPI, do_work's array
  // How the balancer could keep less with other params, where it could (gossip's whole
  // lists are O(P) on every rank); empty otherwise.
  std::string balancer_lighter;
  [[nodiscard]] double total() const { return graph + migration + balancer + engine; }
  [[nodiscard]] std::string parts() const;
};

// The need of the process that runs `ranks_here` of the run's `ranks` ranks (all of them
// for smpi and model). `process_bytes`: what each MPI process holds besides its share of
// the mesh (do_work's array, the MPI library), for the mpi engine. `mesh_measured`, when
// given, is the mesh's size as measured elsewhere (rank 0 reads a recorded run, the others
// are told).
MemoryNeed memory_needed(const Scenario& s, int ranks, EngineKind engine, int ranks_here = 1, double process_bytes = 0,
                         std::optional<MeshSize> mesh_measured = std::nullopt);

// The memory a run may use here: --max-memory when given, else the smallest of what
// /proc/meminfo calls available and what this process's cgroup has left.
struct MemoryLimit {
  double bytes = 0;
  std::string source;  // where the figure comes from, for the message
};
std::optional<MemoryLimit> memory_limit(std::optional<double> max_memory);

// Throws InputError (exit 2) when `need` exceeds `limit`, with the estimate, its parts and
// what to change.
void refuse_what_cannot_fit(const MemoryNeed& need, const std::optional<MemoryLimit>& limit, int ranks,
                            EngineKind engine);

}  // namespace lbbench
