// The migration engine: carries out a MigrationPlan. Vertices move with their adjacency,
// owner-table entries, coordinates, file weights and an element_bytes payload; every rank
// that borders a moved vertex learns its new owner; every payload is checksummed; vertex
// count, edge count, the set of ids and total weight are conserved, or the run stops.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/local_graph.hpp"

namespace lbbench {

// The collectives the migration engine runs at every call, moving something or not (its
// conservation checks and totals, each census taking its four sums in one reduction): the
// model engine prices them, and cost models count them as a floor under every LB call.
inline constexpr int kMigrationAllreduces = 7;
inline constexpr int kMigrationBarriers = 2;
inline constexpr int kMigrationCollectives = kMigrationAllreduces + kMigrationBarriers;

struct MigrationStats {
  std::int64_t vertices_sent = 0;  // by this rank
  std::int64_t bytes_sent = 0;     // wire bytes, adjacency and payload included
  // Where the rebuilt local graph's vertices were: the kept ones come first, then each
  // sender's arrivals in turn (sender, count); and the ranks this one sent vertices to.
  std::vector<std::pair<int, std::int64_t>> arrived_from;
  std::vector<int> sent_to;
};

// Sum of the conserved load of a rank's vertices (their current weights).
using WeightSum = std::function<double(const LocalGraph&)>;

class Migrator {
 public:
  Migrator(MPI_Comm comm, std::int64_t element_bytes, std::uint64_t seed);
  // Collective. Throws AgreedRunError on every rank if the plan is malformed, a payload
  // fails its checksum, or anything is not conserved.
  MigrationStats migrate(LocalGraph& g, const MigrationPlan& plan, const WeightSum& weight_sum);

 private:
  struct Census;
  [[nodiscard]] Census census(const LocalGraph& g, const WeightSum& weight_sum) const;
  void check_plan(const LocalGraph& g, const MigrationPlan& plan) const;
  void tell_neighbors(LocalGraph& g, const std::vector<Rank>& target);
  MigrationStats pack_moving(const LocalGraph& g, const std::vector<Rank>& target,
                             std::unordered_map<int, Bytes>& outgoing) const;
  void keep_and_receive(LocalGraph& g, const std::vector<Rank>& target, const std::vector<Message>& incoming) const;
  void rebuild_charged(LocalGraph& g, const std::vector<Rank>& target, const std::vector<Message>& incoming) const;
  // Sizes the rebuilt graph for what stays and what arrived, so that building it
  // allocates once.
  void reserve_for(LocalGraph& kept, const LocalGraph& g, const std::vector<Rank>& target,
                   const std::vector<Message>& incoming) const;

  MPI_Comm comm_;
  int me_;
  int nranks_;
  std::int64_t element_bytes_;
  std::uint64_t seed_;
  std::unique_ptr<SparseExchange> exchange_;
};

// One vertex as the migration engine sends it: id, adjacency with owners, edge weights,
// coordinates, file weights, and an `element_bytes` payload with its checksum.
void pack_vertex(const LocalGraph& g, LocalIndex v, std::int64_t element_bytes, std::uint64_t seed, Bytes& out);
// Reads one packed vertex into `into`, checking its payload; `me` and `from` name the ranks
// in the error. Throws RunError on a bad checksum.
void unpack_vertex(ByteReader& in, std::int64_t element_bytes, int me, int from, LocalGraph& into);
// The bytes pack_vertex writes for a vertex of `degree` edges of graph `g`.
std::int64_t packed_vertex_bytes(std::int64_t degree, const LocalGraph& g, std::int64_t element_bytes);
// Steps over one packed vertex (laid out as for `into`); returns its degree.
std::int64_t skip_vertex(ByteReader& in, std::int64_t element_bytes, const LocalGraph& into);
// Copies a vertex that stays into the rebuilt local graph.
void keep_vertex(const LocalGraph& g, LocalIndex v, LocalGraph& into);
// Times the three above on a sample of the graph's vertices, per vertex (MachineInfo's
// migration_code). Pure host code: it makes no MPI call and charges nothing.
MigrationCode measure_migration_code(const LocalGraph& g, std::int64_t element_bytes, std::uint64_t seed);

// Collective: every rank asks the owners its edges name whether they own those vertices.
// Returns the number of wrong entries over all ranks (0 when the owner tables are right).
std::int64_t count_wrong_owner_entries(const LocalGraph& g, MPI_Comm comm);

}  // namespace lbbench
