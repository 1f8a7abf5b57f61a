// The two protocol drivers and the distributed balancer base (see protocol.hpp).
#include "balancers/sdk/protocol.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "comm/code_time.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"

namespace lbbench {

Quantum Quantum::from_extremes(double min_positive, double max_load, int shift) {
  constexpr double kMaxQuantaPerUnit = 1073741824.0;  // 2^30
  Quantum q;
  if (max_load <= 0) return q;  // nothing weighs anything: every unit is zero quanta
  const double smallest = std::isfinite(min_positive) ? min_positive : max_load;
  q.seconds = std::max(std::ldexp(smallest, -shift), max_load / kMaxQuantaPerUnit);
  return q;
}

int Quantum::shift_needed(std::span<const Load> loads, double min_positive, double max_load) {
  // A finer shift's grid holds every point of a coarser one, so a load that rounds well at
  // one shift does at every finer one: the loads need the largest of their own shifts.
  int shift = 0;
  Quantum q = from_extremes(min_positive, max_load, shift);
  for (const Load l : loads) {
    const double seconds = l.seconds();
    if (seconds <= 0) continue;
    while (shift < kFinestShift &&
           std::abs(static_cast<double>(q.of(l)) * q.seconds - seconds) > kRoundingTolerance * seconds) {
      q = from_extremes(min_positive, max_load, ++shift);
    }
    if (shift == kFinestShift) break;
  }
  return shift;
}

std::int64_t Quantum::of(Load load) const {
  return load.seconds() <= 0 ? 0 : std::max<std::int64_t>(1, std::llround(load.seconds() / seconds));
}

std::int64_t Quantum::rounded(Load load) const {
  return load.seconds() <= 0 ? 0 : std::llround(load.seconds() / seconds);
}

namespace {

// Protocols send at most one message per peer and round: arrival order within a sender
// is not something the two drivers could agree on.
void check_one_per_peer(const std::vector<Message>& messages, int nranks) {
  std::vector<int> peers;
  peers.reserve(messages.size());
  for (const auto& m : messages) {
    if (m.peer < 0 || m.peer >= nranks)
      throw std::logic_error(fmt::format("protocol message to rank {} of {}", m.peer, nranks));
    peers.push_back(m.peer);
  }
  std::sort(peers.begin(), peers.end());
  if (std::adjacent_find(peers.begin(), peers.end()) != peers.end()) {
    throw std::logic_error("a protocol sent two messages to the same peer in one round");
  }
}

void count_sent(const std::vector<Message>& messages, ProtocolStats& stats) {
  for (const auto& m : messages) {
    ++stats.messages;
    const auto size = static_cast<std::int64_t>(m.data.size());
    stats.bytes += size;
    stats.largest_message = std::max(stats.largest_message, size);
  }
}

// A round is quiet when nobody sends or reduces; a rank may still change state in one
// (on input it got before), never in two in a row.
[[noreturn]] void stalled(int rounds) {
  throw AgreedRunError(fmt::format(
      "a balancer protocol stalled after {} rounds: ranks are waiting and no message is in flight", rounds));
}

// One round of one rank and its handler's time: the shorter of two runs, on a copy of the
// rank's state first (its output dropped), then for real (see shorter_of_two). Both
// drivers time handlers so, so that the engines charge the same code alike.
struct TimedRound {
  Outbox out;
  double seconds = 0;
};

TimedRound timed_round(RankProtocol& protocol, const Inbox& inbox) {
  std::unique_ptr<RankProtocol> copy = protocol.clone();
  Outbox dropped;
  TimedRound round;
  round.seconds = shorter_of_two([&] { dropped = copy->step(inbox); },
                                 [&] {
                                   dropped = Outbox{};
                                   copy.reset();
                                 },
                                 [&] { round.out = protocol.step(inbox); });
  return round;
}

}  // namespace

ProtocolStats run_protocol_mpi(RankProtocol& protocol, SparseExchange& exchange) {
  MPI_Comm comm = exchange.comm();
  const int nranks = comm_size(comm);
  ProtocolStats local;
  Inbox inbox;
  int quiet_rounds = 0;
  while (true) {
    Outbox out;
    if (code_is_charged()) {  // the balancer's own work in this round, and only it
      TimedRound round = timed_round(protocol, inbox);
      charge_code(round.seconds);
      out = std::move(round.out);
    } else {
      out = protocol.step(inbox);
    }
    check_one_per_peer(out.messages, nranks);
    count_sent(out.messages, local);
    inbox.messages = exchange.exchange(out.messages);
    ++local.rounds;

    // One MAX carries the control values: any rank unfinished, anything sent, and the
    // request sizes (as +n and -n, so every rank sees whether all asked for the same).
    const auto nsum = static_cast<std::int64_t>(out.sum.size());
    const auto nmax = static_cast<std::int64_t>(out.max.size());
    std::int64_t control[6] = {protocol.finished() ? 0 : 1, out.messages.empty() ? 0 : 1, nsum, -nsum, nmax, -nmax};
    MPI_Allreduce(MPI_IN_PLACE, control, 6, MPI_INT64_T, MPI_MAX, comm);
    if (control[2] != -control[3] || control[4] != -control[5]) {
      throw AgreedRunError("a balancer protocol asked for different reductions on different ranks");
    }
    inbox.sum = std::move(out.sum);
    inbox.max = std::move(out.max);
    if (nsum > 0) MPI_Allreduce(MPI_IN_PLACE, inbox.sum.data(), static_cast<int>(nsum), MPI_INT64_T, MPI_SUM, comm);
    if (nmax > 0) MPI_Allreduce(MPI_IN_PLACE, inbox.max.data(), static_cast<int>(nmax), MPI_INT64_T, MPI_MAX, comm);
    if (nsum > 0 || nmax > 0) ++local.reductions;

    if (control[0] == 0 && control[1] == 0) break;
    quiet_rounds = control[1] == 0 && nsum == 0 && nmax == 0 ? quiet_rounds + 1 : 0;
    if (quiet_rounds > 1) stalled(local.rounds);
  }
  ProtocolStats total = local;
  total.messages = allreduce(local.messages, MPI_SUM, comm);
  total.bytes = allreduce(local.bytes, MPI_SUM, comm);
  total.largest_message = allreduce(local.largest_message, MPI_MAX, comm);
  total.largest_list = allreduce(protocol.largest_list(), MPI_MAX, comm);
  return total;
}

ProtocolStats run_protocol_serial(std::vector<std::unique_ptr<RankProtocol>>& ranks, ProtocolObserver* observer) {
  const int nranks = static_cast<int>(ranks.size());
  ProtocolStats stats;
  // Each rank's messages of this round and of the next; one inbox, filled for each rank
  // in turn with its messages and the reductions every rank gets alike.
  std::vector<std::vector<Message>> arriving(ranks.size());
  std::vector<std::vector<Message>> next(ranks.size());
  Inbox in;
  int quiet_rounds = 0;
  if (observer) observer->started();
  while (true) {
    bool sent = false;
    std::size_t nsum = 0;
    std::size_t nmax = 0;
    std::vector<std::int64_t> sum;
    std::vector<std::int64_t> max;
    for (int r = 0; r < nranks; ++r) {
      RankProtocol& rank = *ranks[static_cast<std::size_t>(r)];
      in.messages = std::exchange(arriving[static_cast<std::size_t>(r)], {});
      TimedRound round = observer ? timed_round(rank, in) : TimedRound{rank.step(in)};
      Outbox& out = round.out;
      const double handler_s = round.seconds;
      // Read, so freed at once: a round's messages and the last round's would otherwise
      // be held together, all ranks' at once.
      in.messages.clear();
      if (observer) observer->stepped(r, handler_s, out.messages);
      check_one_per_peer(out.messages, nranks);
      count_sent(out.messages, stats);
      sent = sent || !out.messages.empty();
      for (auto& m : out.messages) next[static_cast<std::size_t>(m.peer)].push_back({r, std::move(m.data)});
      if (r == 0) {
        nsum = out.sum.size();
        nmax = out.max.size();
        sum.assign(nsum, 0);
        max.assign(nmax, INT64_MIN);
      }
      if (out.sum.size() != nsum || out.max.size() != nmax) {
        throw std::logic_error("a balancer protocol asked for different reductions on different ranks");
      }
      for (std::size_t i = 0; i < nsum; ++i) sum[i] += out.sum[i];
      for (std::size_t i = 0; i < nmax; ++i) max[i] = std::max(max[i], out.max[i]);
    }
    ++stats.rounds;
    if (nsum > 0 || nmax > 0) ++stats.reductions;
    if (observer) observer->round_done(static_cast<int>(nsum > 0) + static_cast<int>(nmax > 0));
    in.sum = std::move(sum);
    in.max = std::move(max);
    arriving.swap(next);  // next's lists were all taken this round, so are empty
    const bool unfinished = std::any_of(ranks.begin(), ranks.end(), [](const auto& p) { return !p->finished(); });
    if (!unfinished && !sent) break;
    quiet_rounds = !sent && nsum == 0 && nmax == 0 ? quiet_rounds + 1 : 0;
    if (quiet_rounds > 1) stalled(stats.rounds);
  }
  for (const auto& p : ranks) stats.largest_list = std::max(stats.largest_list, p->largest_list());
  return stats;
}

namespace {

// The smallest positive and the largest load, which the quantum is chosen from.
std::pair<double, double> load_extremes(std::span<const Load> loads) {
  double min_positive = HUGE_VAL;
  double max_load = 0;
  for (const Load l : loads) {
    if (l.seconds() > 0) min_positive = std::min(min_positive, l.seconds());
    max_load = std::max(max_load, l.seconds());
  }
  return {min_positive, max_load};
}

// Closes one unit's locality rows: its on-rank neighbors were already appended to
// local_adj; per_peer counts its edges to each other rank, in rank order.
void close_unit_rows(RankWork& w, const std::map<int, std::int32_t>& per_peer, std::int64_t degree,
                     std::vector<int>& peers) {
  w.local_xadj.push_back(static_cast<std::int64_t>(w.local_adj.size()));
  for (const auto& [peer, edges] : per_peer) {
    w.nbr_rank.push_back(peer);
    w.nbr_edges.push_back(edges);
    peers.push_back(peer);
  }
  w.nbr_xadj.push_back(static_cast<std::int64_t>(w.nbr_rank.size()));
  w.degree.push_back(static_cast<std::int32_t>(degree));
}

// The rank graph: every rank this one shares an edge with, sorted.
void set_peers(RankWork& w, std::vector<int> peers) {
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  w.peers = std::move(peers);
}

RankWork work_from_view(const LoadView& view, const Quantum& quantum, bool with_locality) {
  const LocalGraph& g = view.graph;
  RankWork w;
  w.rank = view.rank.value();
  w.nranks = view.nranks;
  w.quanta.reserve(view.vertex_load.size());
  for (const Load l : view.vertex_load) w.quanta.push_back(quantum.of(l));
  w.background = quantum.rounded(std::accumulate(view.background.begin(), view.background.end(), Load{}));
  if (!with_locality) return w;
  std::vector<int> peers;
  std::unordered_map<std::int64_t, std::int32_t> local_of;
  for (LocalIndex v = 0; v < g.num_local(); ++v) local_of.emplace(g.gid[static_cast<std::size_t>(v)].value(), v);
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    std::map<int, std::int32_t> per_peer;  // sorted, so CSR rows are in peer order
    const auto nbrs = g.neighbors(v);
    const auto owners = g.neighbor_owners(v);
    for (std::size_t e = 0; e < nbrs.size(); ++e) {
      if (owners[e] != view.rank) {
        ++per_peer[owners[e].value()];
      } else if (!g.is_fixed_neighbor(g.xadj[v] + static_cast<std::int64_t>(e))) {  // a pinned one is no unit
        w.local_adj.push_back(local_of.at(nbrs[e].value()));
      }
    }
    close_unit_rows(w, per_peer, g.degree(v), peers);
  }
  peers.insert(peers.end(), view.fixed_peers.begin(), view.fixed_peers.end());
  set_peers(w, std::move(peers));
  return w;
}

}  // namespace

std::vector<RankWork> split_by_rank(const GlobalProblem& problem, bool with_locality) {
  auto [min_positive, max_load] = load_extremes(problem.load);
  for (int r = 0; r < problem.nranks; ++r) max_load = std::max(max_load, problem.background(r));
  const Quantum quantum =
      Quantum::from_extremes(min_positive, max_load, Quantum::shift_needed(problem.load, min_positive, max_load));
  if (with_locality && !problem.has_graph()) throw std::logic_error("this strategy's reference needs the graph");

  std::vector<RankWork> work(static_cast<std::size_t>(problem.nranks));
  std::vector<std::vector<int>> peers(work.size());
  for (int r = 0; r < problem.nranks; ++r) {
    work[static_cast<std::size_t>(r)].rank = r;
    work[static_cast<std::size_t>(r)].nranks = problem.nranks;
    work[static_cast<std::size_t>(r)].background = quantum.rounded(Load(problem.background(r)));
  }
  // Local index of every object on its owner, in the problem's order.
  std::vector<std::int32_t> local_index(problem.size());
  std::vector<std::int32_t> next(work.size(), 0);
  for (std::size_t i = 0; i < problem.size(); ++i)
    local_index[i] = next[static_cast<std::size_t>(problem.owner[i].value())]++;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const int r = problem.owner[i].value();
    RankWork& w = work[static_cast<std::size_t>(r)];
    w.quanta.push_back(quantum.of(problem.load[i]));
    if (!with_locality) continue;
    std::map<int, std::int32_t> per_peer;
    for (auto e = problem.xadj[i]; e < problem.xadj[i + 1]; ++e) {
      const auto u = static_cast<std::size_t>(problem.adjncy[static_cast<std::size_t>(e)]);
      const int owner = problem.owner[u].value();
      if (owner != r) {
        ++per_peer[owner];
      } else {
        w.local_adj.push_back(local_index[u]);
      }
    }
    std::int64_t degree = problem.xadj[i + 1] - problem.xadj[i];
    if (problem.has_fixed_edges()) {  // pinned neighbors: only their ranks matter
      for (auto e = problem.fixed_xadj[i]; e < problem.fixed_xadj[i + 1]; ++e, ++degree) {
        const int owner = problem.fixed_rank[static_cast<std::size_t>(e)];
        if (owner == r) continue;
        ++per_peer[owner];
        peers[static_cast<std::size_t>(owner)].push_back(r);  // the pinned vertex's rank talks back
      }
    }
    close_unit_rows(w, per_peer, degree, peers[static_cast<std::size_t>(r)]);
  }
  for (std::size_t r = 0; r < work.size(); ++r) set_peers(work[r], std::move(peers[r]));
  return work;
}

// One exchange per communicator for the balancer's lifetime, made before the first LB
// call: duplicating a communicator is a collective whose cost belongs to start-up, not to
// the first call's decision time (and new communicators are expensive under SMPI).
void DistributedBalancer::prepare(MPI_Comm comm) {
  if (exchange_ && exchange_parent_ == comm) return;
  exchange_ = std::make_unique<SparseExchange>(comm);
  exchange_parent_ = comm;
}

std::pair<double, double> DistributedBalancer::rank_load_extremes(const LoadView& view) {
  // A background counts among the largest loads, so that no sum of quanta overflows.
  auto extremes = load_extremes(view.vertex_load);
  extremes.second =
      std::max(extremes.second, std::accumulate(view.background.begin(), view.background.end(), Load{}).seconds());
  return extremes;
}

int DistributedBalancer::rank_quantum_shift(const LoadView& view, double min_positive, double max_load) {
  return Quantum::shift_needed(view.vertex_load, min_positive, max_load);
}

std::unique_ptr<RankProtocol> DistributedBalancer::rank_protocol(const LoadView& view, const Quantum& quantum,
                                                                 const ProtocolContext& ctx) const {
  return make_protocol(work_from_view(view, quantum, needs_locality()), ctx);
}

std::vector<Move> DistributedBalancer::rank_moves(const RankProtocol& protocol, Rank rank) {
  const std::vector<Rank> owners = protocol.owners();  // one per local vertex
  std::vector<Move> moves;
  for (std::size_t v = 0; v < owners.size(); ++v) {
    if (owners[v] != rank) moves.push_back({static_cast<LocalIndex>(v), owners[v]});
  }
  return moves;
}

MigrationPlan DistributedBalancer::plan(const LoadView& view, MPI_Comm comm) {
  prepare(comm);
  // Each piece of this rank's own code below is pure, and charged as charge_pure does.
  const auto [min_positive, max_load] = charge_pure([&] { return rank_load_extremes(view); });
  double extremes[2] = {-min_positive, max_load};
  MPI_Allreduce(MPI_IN_PLACE, extremes, 2, MPI_DOUBLE, MPI_MAX, comm);
  // The quantum's shift needs the extremes over all ranks: a second, one-int reduction.
  int shift = charge_pure([&] { return rank_quantum_shift(view, -extremes[0], extremes[1]); });
  MPI_Allreduce(MPI_IN_PLACE, &shift, 1, MPI_INT, MPI_MAX, comm);
  const Quantum quantum = Quantum::from_extremes(-extremes[0], extremes[1], shift);

  const ProtocolContext ctx{.seed = view.seed, .invocation = view.invocation};
  const std::unique_ptr<RankProtocol> protocol = charge_pure([&] { return rank_protocol(view, quantum, ctx); });
  MigrationPlan out;
  out.protocol = run_protocol_mpi(*protocol, *exchange_);
  out.moves = charge_pure([&] { return rank_moves(*protocol, view.rank); });
  return out;
}

Assignment DistributedBalancer::reference(const GlobalProblem& problem, const ProtocolContext& ctx,
                                          ProtocolStats* stats, ProtocolObserver* observer) const {
  std::vector<std::unique_ptr<RankProtocol>> ranks;
  for (auto& w : split_by_rank(problem, needs_locality())) ranks.push_back(make_protocol(std::move(w), ctx));
  const ProtocolStats s = run_protocol_serial(ranks, observer);
  if (stats) *stats = s;
  Assignment out;
  out.reserve(problem.size());
  std::vector<std::vector<Rank>> owners;
  owners.reserve(ranks.size());
  for (const auto& p : ranks) owners.push_back(p->owners());
  std::vector<std::size_t> next(ranks.size(), 0);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const auto r = static_cast<std::size_t>(problem.owner[i].value());
    out.push_back(owners[r][next[r]++]);
  }
  return out;
}

}  // namespace lbbench
