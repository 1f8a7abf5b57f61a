// The LB calls' shares, reduced when the run ends (see call_ledger.hpp).
#include "replay/call_ledger.hpp"

#include <algorithm>
#include <numeric>

#include "balancers/model/metrics.hpp"
#include "comm/mpi.hpp"
#include "replay/record_builder.hpp"

namespace lbbench {

namespace {

double sum_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// Each call's maxima over ranks, in one buffer of a fixed stride per call: the load the
// plan leaves on the rank, the vertices it received, the decision and migration times,
// then (vector workloads) each component's load before the plan and after it.
struct MaximaLayout {
  std::size_t dims;  // components kept per call: 0 for a scalar workload
  [[nodiscard]] std::size_t stride() const { return 4 + 2 * dims; }
};

enum MaxSlot : std::size_t { kAfter = 0, kArrived = 1, kDecision = 2, kMigration = 3, kComponents = 4 };

// Each call's sums over ranks: the census after it, the moved vertices and bytes, and the
// placement digest (a sum modulo 2^64, which is what an unsigned sum gives).
constexpr std::size_t kSumStride = 7;

// What each rank's plans left on it: what they kept here plus what other ranks' plans
// gave it, per call and component. One sparse exchange for all calls: each message lists
// (call, loads) pairs.
std::vector<std::vector<double>> loads_after(const std::vector<CallShare>& calls, SparseExchange& exchange) {
  std::vector<std::vector<double>> after;
  std::map<int, Bytes> outgoing;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    after.push_back(calls[i].components_kept);
    for (const auto& [peer, loads] : calls[i].components_given) {
      ByteWriter w(outgoing[peer]);
      w.put(static_cast<std::uint32_t>(i));
      w.put(static_cast<std::uint32_t>(loads.size()));
      w.put_span(std::span<const double>(loads));
    }
  }
  for (const auto& m : exchange.exchange(to_messages(outgoing))) {
    ByteReader r(m.data);
    while (!r.done()) {
      const auto call = r.get<std::uint32_t>();
      const auto count = r.get<std::uint32_t>();
      std::vector<double>& into = after.at(call);
      into.resize(std::max<std::size_t>(into.size(), count), 0.0);
      for (std::uint32_t k = 0; k < count; ++k) into[k] += r.get<double>();
    }
  }
  return after;
}

std::vector<double> my_maxima(const std::vector<CallShare>& calls, const std::vector<std::vector<double>>& after,
                              MaximaLayout layout) {
  std::vector<double> out(calls.size() * layout.stride(), 0.0);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    double* slot = out.data() + i * layout.stride();
    const CallShare& c = calls[i];
    slot[kAfter] = sum_of(after[i]);
    slot[kArrived] = static_cast<double>(c.arrived);  // exact in a double
    slot[kDecision] = c.decision_s;
    slot[kMigration] = c.migration_s;
    for (std::size_t k = 0; k < layout.dims; ++k) {
      if (k < c.components_before.size()) slot[kComponents + k] = c.components_before[k];
      if (k < after[i].size()) slot[kComponents + layout.dims + k] = after[i][k];
    }
  }
  return out;
}

std::vector<std::uint64_t> my_sums(const std::vector<CallShare>& calls) {
  std::vector<std::uint64_t> out;
  out.reserve(calls.size() * kSumStride);
  for (const CallShare& c : calls) {
    for (const std::int64_t x : c.census_after) out.push_back(static_cast<std::uint64_t>(x));
    out.push_back(static_cast<std::uint64_t>(c.vertices_sent));
    out.push_back(static_cast<std::uint64_t>(c.bytes_sent));
    out.push_back(c.digest_share);
  }
  return out;
}

// Pearce's metrics of one call from every rank's loads (rank-major, three per call).
LbMetrics metrics_of(const std::vector<double>& gathered, std::size_t call, std::size_t calls, int nranks) {
  std::vector<double> model(static_cast<std::size_t>(nranks));
  std::vector<double> measured(model.size());
  for (std::size_t r = 0; r < model.size(); ++r) {
    const std::size_t at = (r * calls + call) * 3;
    model[r] = gathered[at];
    measured[r] = gathered[at + 1];
  }
  return LbMetrics{load_moments(model), load_moments(measured), rank_correlation(model, measured)};
}

double objective(const double* components, std::size_t dims) {
  return std::accumulate(components, components + dims, 0.0);
}

}  // namespace

void CallLedger::regridded(const CensusShare& share, std::uint64_t digest_share) {
  carried_share_ = share;
  regrids_.push_back({calls_.size(), share, digest_share});
}

void CallLedger::add(CallShare share) {
  if (!share.kept) carried_share_ = share.census_after;
  calls_.push_back(std::move(share));
}

void CallLedger::settle(std::vector<LbEvent>& events, int dims, SparseExchange& exchange, MPI_Comm comm) const {
  // Every rank made the same calls. None, nothing to reduce (and SMPI's reductions divide
  // by the count).
  if (calls_.empty()) return;
  const std::vector<std::vector<double>> after = loads_after(calls_, exchange);
  const MaximaLayout layout{dims > 1 ? static_cast<std::size_t>(dims) : 0};
  const std::vector<double> maxima_mine = my_maxima(calls_, after, layout);
  std::vector<double> maxima(maxima_mine.size());
  MPI_Reduce(maxima_mine.data(), maxima.data(), static_cast<int>(maxima.size()), MPI_DOUBLE, MPI_MAX, 0, comm);
  std::vector<std::uint64_t> sums_mine = my_sums(calls_);
  // Each regrid's census and digest after it, where the next call starts from.
  for (const Regrid& g : regrids_) {
    for (const std::int64_t x : g.census) sums_mine.push_back(static_cast<std::uint64_t>(x));
    sums_mine.push_back(g.digest);
  }
  std::vector<std::uint64_t> sums(sums_mine.size());
  MPI_Reduce(sums_mine.data(), sums.data(), static_cast<int>(sums.size()), MPI_UINT64_T, MPI_SUM, 0, comm);
  std::vector<double> loads_mine;
  for (const CallShare& c : calls_) loads_mine.insert(loads_mine.end(), c.loads.begin(), c.loads.end());
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  std::vector<double> loads(me == 0 ? loads_mine.size() * static_cast<std::size_t>(nranks) : 0);
  MPI_Gather(loads_mine.data(), static_cast<int>(loads_mine.size()), MPI_DOUBLE, loads.data(),
             static_cast<int>(loads_mine.size()), MPI_DOUBLE, 0, comm);
  if (me != 0) return;

  std::uint64_t digest = initial_digest_;
  CommCensus census = initial_;
  std::size_t regrid = 0;
  for (std::size_t i = 0; i < calls_.size() && i < events.size(); ++i) {
    for (; regrid < regrids_.size() && regrids_[regrid].calls_before <= i; ++regrid) {
      const std::uint64_t* after = sums.data() + calls_.size() * kSumStride + regrid * 5;
      census = census_of({static_cast<std::int64_t>(after[0]), static_cast<std::int64_t>(after[1]),
                          static_cast<std::int64_t>(after[2]), static_cast<std::int64_t>(after[3])});
      digest = after[4];
    }
    LbEvent& e = events[i];
    const CallShare& c = calls_[i];
    const double* max = maxima.data() + i * layout.stride();
    const std::uint64_t* sum = sums.data() + i * kSumStride;
    e.metrics = metrics_of(loads, i, calls_.size(), nranks);
    e.before = census;
    e.decision_s = max[kDecision];
    if (layout.dims > 0) {
      LbVector v;
      v.model_objective_before_s = objective(max + kComponents, layout.dims);
      v.model_objective_predicted_after_s = objective(max + kComponents + layout.dims, layout.dims);
      e.vector = v;
    }
    if (c.kept) {
      record_kept_distribution(e, digest);
      continue;
    }
    e.model_imbalance_predicted_after = imbalance(max[kAfter], c.total_load / nranks);
    e.after = census_of({static_cast<std::int64_t>(sum[0]), static_cast<std::int64_t>(sum[1]),
                         static_cast<std::int64_t>(sum[2]), static_cast<std::int64_t>(sum[3])});
    e.migrations = static_cast<std::int64_t>(sum[4]);
    e.migrated_bytes = static_cast<std::int64_t>(sum[5]);
    e.owners_digest = sum[6];
    e.elements_moved_max = static_cast<std::int64_t>(max[kArrived]);
    e.migration_s = max[kMigration];
    census = e.after;
    digest = sum[6];
  }
}

}  // namespace lbbench
