// Distributed strategies as round-synchronous per-rank protocols.
//
// A RankProtocol is one rank's side of a distributed balancer: each round it reads the
// messages that arrived (sorted by sender) and the results of the small reductions it
// asked for, and says what to send next. Two drivers run the same protocol objects:
//   - run_protocol_mpi: one object per rank, messages through a SparseExchange, so the
//     protocol's rounds, messages and bytes are real MPI traffic (Open MPI or SMPI);
//   - run_protocol_serial: every rank's object in one process, messages delivered in
//     memory. This is the serial reference: the MPI run must give the same owners, and the
//     cost model runs it to predict a strategy without running it.
// Everything a protocol decides on is exact (integer load quanta, doubles that only
// travel in messages), so the two drivers agree to the bit.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "balancers/sdk/balancer.hpp"
#include "balancers/sdk/centralized.hpp"
#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/bytes.hpp"

namespace lbbench {

// Loads travel as integer multiples of a quantum, so sums and comparisons are exact and
// the same in any order. The quantum is the smallest positive vertex load divided by 2^shift,
// with the smallest shift (0 to kFinestShift) at which every load rounds to within
// kRoundingTolerance of itself: equal loads still count as one unit each, and whole
// multiples of the smallest as whole units (shift 0), while continuous loads get a quantum
// fine enough that no rank's load is off by more than 0.1% (a shift of 9 always is:
// 2^-10 < 0.1%). It is raised where needed so no load exceeds 2^30 quanta, a rank's
// background (load that never moves) included.
struct Quantum {
  static constexpr int kFinestShift = 9;
  static constexpr double kRoundingTolerance = 1e-3;
  double seconds = 1.0;

  static Quantum from_extremes(double min_positive, double max_load, int shift);
  // The smallest shift at which these loads round within the tolerance, given the
  // extremes over all ranks' loads.
  static int shift_needed(std::span<const Load> loads, double min_positive, double max_load);
  [[nodiscard]] std::int64_t of(Load load) const;
  // A sum of loads (a rank's background), rounded to whole quanta; zero stays zero.
  [[nodiscard]] std::int64_t rounded(Load load) const;
};

// One rank's input to a protocol, built from a live LoadView or, for the serial
// reference, from a GlobalProblem.
struct RankWork {
  int rank = 0;
  int nranks = 1;
  std::vector<std::int64_t> quanta;  // per local unit (vertex), in local index order
  // Load that never leaves this rank (a recorded run's non-migratable objects), in quanta:
  // part of load(), never of a unit.
  std::int64_t background = 0;
  // Remote neighbors of each unit as CSR over (peer rank, edges to that peer); only for
  // strategies that need locality (diffusion).
  std::vector<std::int64_t> nbr_xadj{0};
  std::vector<int> nbr_rank;
  std::vector<std::int32_t> nbr_edges;
  std::vector<std::int32_t> degree;  // all edges of each unit, local and remote
  std::vector<int> peers;            // ranks sharing an edge with this one, sorted
  // Neighbors on this rank, as CSR over local indices.
  std::vector<std::int64_t> local_xadj{0};
  std::vector<std::int32_t> local_adj;

  [[nodiscard]] std::int64_t load() const {
    return background + std::accumulate(quanta.begin(), quanta.end(), std::int64_t{0});
  }
  [[nodiscard]] std::size_t units() const { return quanta.size(); }
};

// What each round may ask the driver to reduce over all ranks (every rank asks for the
// same number of values in the same round).
struct Outbox {
  std::vector<Message> messages;
  std::vector<std::int64_t> sum;
  std::vector<std::int64_t> max;
};

struct Inbox {
  std::vector<Message> messages;  // sorted by sender
  std::vector<std::int64_t> sum;  // results of the previous round's requests
  std::vector<std::int64_t> max;
};

class RankProtocol {
 public:
  virtual ~RankProtocol() = default;
  // One round; the first call gets an empty inbox.
  virtual Outbox step(const Inbox& inbox) = 0;
  // Nothing left to do here. The run ends when every rank is finished and no message is
  // in flight; a round where nobody sends, reduces or finishes is a stall (an error).
  [[nodiscard]] virtual bool finished() const = 0;
  // The destination of each local unit (its own rank when it stays).
  [[nodiscard]] virtual std::vector<Rank> owners() const = 0;
  [[nodiscard]] virtual std::int64_t largest_list() const { return 0; }
  // A copy of this rank's state, to time a round on (see timed_round in protocol.cpp).
  [[nodiscard]] virtual std::unique_ptr<RankProtocol> clone() const = 0;
};

// Implements clone() for a protocol that is a plain value.
template <class Derived>
class CopyableProtocol : public RankProtocol {
 public:
  [[nodiscard]] std::unique_ptr<RankProtocol> clone() const final {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Bundles everything a rank says to each peer in one round into one message per peer.
class Letters {
 public:
  ByteWriter to(int peer) { return ByteWriter(by_peer_[peer]); }
  void post(Outbox& out) {
    for (auto& [peer, bytes] : by_peer_) out.messages.push_back({peer, std::move(bytes)});
    by_peer_.clear();
  }

 private:
  std::map<int, Bytes> by_peer_;
};

// Shared context of one LB call.
struct ProtocolContext {
  std::uint64_t seed = 0;
  int invocation = 0;
};

// Runs this rank's protocol with real messages; collective over the exchange's comm.
ProtocolStats run_protocol_mpi(RankProtocol& protocol, SparseExchange& exchange);

// What a serial run of a protocol did, round by round, for a model of what it would cost
// on a machine: each rank's handler time and messages, and whether the round reduced.
class ProtocolObserver {
 public:
  virtual ~ProtocolObserver() = default;
  // The driver starts its first round.
  virtual void started() {}
  // Rank `rank` handled its inbox in `cpu_s` seconds of its own code (the shorter of two
  // runs, as the MPI driver charges it under a simulator) and sent `sent`.
  virtual void stepped(int rank, double cpu_s, const std::vector<Message>& sent) = 0;
  // Every rank has stepped. `reductions`: how many allreduces the round added to its
  // control one (one for sums, one for maxima; 0 to 2).
  virtual void round_done(int reductions) = 0;
};

// Runs every rank's protocol in one process.
ProtocolStats run_protocol_serial(std::vector<std::unique_ptr<RankProtocol>>& ranks,
                                  ProtocolObserver* observer = nullptr);

// Base of the distributed balancers: plan() builds this rank's RankWork and runs the MPI
// driver; reference() runs every rank's protocol serially on a GlobalProblem.
class DistributedBalancer : public Balancer {
 public:
  MigrationPlan plan(const LoadView& view, MPI_Comm comm) final;
  void prepare(MPI_Comm comm) final;
  [[nodiscard]] Assignment reference(const GlobalProblem& problem, const ProtocolContext& ctx,
                                     ProtocolStats* stats = nullptr, ProtocolObserver* observer = nullptr) const;
  [[nodiscard]] Assignment decide_serially(const GlobalProblem& problem, ProtocolObserver* observer) const final {
    return reference(problem, ProtocolContext{.seed = problem.seed, .invocation = problem.invocation}, nullptr,
                     observer);
  }
  [[nodiscard]] bool needs_graph() const final { return needs_locality(); }

  // The allreduces plan() runs around its protocol's rounds: the quantum's extremes and
  // shift before, the protocol's four totals after.
  static constexpr int kPlanCollectives = 6;

  // plan()'s own code on one rank, piece by piece, as plan() runs it between its
  // collectives: the rank's smallest positive and largest load (its background among the
  // largest), the quantum's shift its loads need given the extremes over all ranks, its
  // protocol, and its moves once the protocol ran. A driver that runs every rank in one
  // process (the model engine) times each piece on each rank, as SMPI charges it there.
  [[nodiscard]] static std::pair<double, double> rank_load_extremes(const LoadView& view);
  [[nodiscard]] static int rank_quantum_shift(const LoadView& view, double min_positive, double max_load);
  [[nodiscard]] std::unique_ptr<RankProtocol> rank_protocol(const LoadView& view, const Quantum& quantum,
                                                            const ProtocolContext& ctx) const;
  [[nodiscard]] static std::vector<Move> rank_moves(const RankProtocol& protocol, Rank rank);

  [[nodiscard]] virtual std::unique_ptr<RankProtocol> make_protocol(RankWork work,
                                                                    const ProtocolContext& ctx) const = 0;
  // Diffusion needs the neighbor ranks of each unit; the others only need loads.
  [[nodiscard]] virtual bool needs_locality() const { return false; }
  // How many rounds its protocol takes on `nranks` ranks, as its structure says before it
  // runs (not a bound): what orders `auto`'s distributed candidates, cheapest first.
  [[nodiscard]] virtual int expected_rounds(int /*nranks*/) const { return 1; }
  // How many of those rounds also reduce values over the ranks (ProtocolStats::reductions),
  // each one more allreduce: priced with the rounds.
  [[nodiscard]] virtual int expected_reducing_rounds(int /*nranks*/) const { return 0; }

 private:
  std::unique_ptr<SparseExchange> exchange_;
  MPI_Comm exchange_parent_ = MPI_COMM_NULL;
};

// The per-rank inputs of a GlobalProblem (objects in (rank, local index) order).
std::vector<RankWork> split_by_rank(const GlobalProblem& problem, bool with_locality);

}  // namespace lbbench
