#include "replay/unmoved_loads.hpp"

#include <numeric>

namespace lbbench {

namespace {

constexpr int kUnmovedTag = 7301;

}  // namespace

void PlacementBefore::after_migration(const MigrationStats& stats, std::int64_t local_vertices) {
  known_ = true;
  arrived_from_ = stats.arrived_from;
  sent_to_ = stats.sent_to;
  kept_ = local_vertices;
  for (const auto& [peer, count] : arrived_from_) kept_ -= count;
}

void PlacementBefore::after_call_without_moves(std::int64_t local_vertices) {
  known_ = true;
  kept_ = local_vertices;
  arrived_from_.clear();
  sent_to_.clear();
}

double PlacementBefore::unmoved_load(std::span<const Load> loads, MPI_Comm comm) const {
  auto sum = [&](std::int64_t from, std::int64_t count) {
    const auto first = loads.begin() + from;
    return std::accumulate(first, first + count, Load{}).seconds();
  };
  std::vector<double> given(arrived_from_.size());
  std::vector<double> returned(sent_to_.size());
  std::vector<MPI_Request> requests;
  requests.reserve(given.size() + returned.size());
  std::int64_t next = kept_;
  for (std::size_t i = 0; i < arrived_from_.size(); ++i) {
    given[i] = sum(next, arrived_from_[i].second);
    next += arrived_from_[i].second;
    MPI_Isend(&given[i], 1, MPI_DOUBLE, arrived_from_[i].first, kUnmovedTag, comm, &requests.emplace_back());
  }
  for (std::size_t i = 0; i < sent_to_.size(); ++i) {
    MPI_Irecv(&returned[i], 1, MPI_DOUBLE, sent_to_[i], kUnmovedTag, comm, &requests.emplace_back());
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  return sum(0, kept_) + std::accumulate(returned.begin(), returned.end(), 0.0);
}

}  // namespace lbbench
