// The step's messages (see halo_exchange.hpp).
//
// Matching: both ends of a cut edge list it under the same key (smaller id, larger id), so
// sorting each peer's edges by that key gives both sides the same order, and MPI's
// non-overtaking rule pairs the k-th send with the k-th receive. Each edge's bytes start
// with (sender's vertex, receiver's vertex) when there is room, and the receiver checks
// them, so a mismatch is found rather than timed.
#include "replay/halo_exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include "comm/mpi.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

constexpr int kTag = 11;
constexpr std::int64_t kHeader = 2 * sizeof(std::int64_t);
constexpr std::int64_t kMaxMessage = INT_MAX - 8;
constexpr std::int64_t kStamp = sizeof(double);

}  // namespace

HaloExchange::HaloExchange(const LocalGraph& g, std::int64_t edge_bytes, MessageMode mode, MPI_Comm comm,
                           WaitMode wait_mode, const WanDelay* delay)
    : wait_mode_(wait_mode), comm_(comm), delay_(delay) {
  const int me = comm_rank(comm_);
  auto crosses_sites = [&](int peer) {
    return delay_ &&
           delay_->rank_site[static_cast<std::size_t>(peer)] != delay_->rank_site[static_cast<std::size_t>(me)];
  };
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      if (g.adj_owner[e] == Rank{me}) continue;
      edges_.push_back({v, g.gid[v], g.adj[e], g.adj_owner[e].value(), edge_bytes * g.edge_weight(e), 0});
    }
  }
  std::sort(edges_.begin(), edges_.end(), [](const RemoteEdge& a, const RemoteEdge& b) {
    const auto ka = std::minmax(a.local, a.remote);
    const auto kb = std::minmax(b.local, b.remote);
    return std::tie(a.peer, ka.first, ka.second) < std::tie(b.peer, kb.first, kb.second);
  });
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < edges_.size(); ++i) {
    auto& e = edges_[i];
    remote_edge_bytes_ += e.bytes;
    // Aggregated messages stay within MPI's 32-bit counts by starting a new one when full.
    const bool joins_previous = mode == MessageMode::per_neighbor && !slots_.empty() && slots_.back().peer == e.peer &&
                                slots_.back().bytes + e.bytes <= kMaxMessage;
    if (joins_previous) {
      e.offset = offset;
      slots_.back().bytes += e.bytes;
      slots_.back().last_edge = i + 1;
    } else {
      // A new message: under a WAN delay, one that crosses sites starts with its send time.
      const bool stamped = crosses_sites(e.peer);
      const std::int64_t stamp = stamped ? kStamp : 0;
      slots_.push_back({e.peer, offset, e.bytes + stamp, i, i + 1, stamped});
      offset += stamp;
      e.offset = offset;
    }
    offset += e.bytes;
  }
  collectively(comm_, [&] {
    for (const auto& e : edges_) {
      if (e.bytes > kMaxMessage) {
        throw InputError(
            fmt::format("edge {}-{} carries {} bytes per step (edge_bytes times its weight); one MPI "
                        "message holds at most {}",
                        e.local.value(), e.remote.value(), e.bytes, kMaxMessage));
      }
    }
  });
  send_buffer_.assign(static_cast<std::size_t>(offset), std::byte{0});
  recv_buffer_.assign(static_cast<std::size_t>(offset), std::byte{0});
  for (const auto& e : edges_) {
    if (e.bytes < kHeader) continue;
    const std::int64_t header[2] = {e.local.value(), e.remote.value()};
    std::memcpy(send_buffer_.data() + e.offset, header, sizeof header);
  }
  requests_.assign(2 * slots_.size(), MPI_REQUEST_NULL);

  // Which vertices each received message completes.
  inputs_.assign(static_cast<std::size_t>(g.num_local()), 0);
  dependents_.resize(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& deps = dependents_[i];
    for (std::size_t e = slots_[i].first_edge; e < slots_[i].last_edge; ++e) deps.push_back(edges_[e].vertex);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (LocalIndex v : deps) ++inputs_[static_cast<std::size_t>(v)];
  }
  for (LocalIndex v = 0; v < g.num_local(); ++v) {
    if (inputs_[static_cast<std::size_t>(v)] == 0) interior_.push_back(v);
  }
}

void HaloExchange::post() {
  const std::size_t n = slots_.size();
  pending_ = inputs_;  // message-driven countdown for this step
  released_ = 0;
  held_.clear();
  if (delay_) {
    const double sent = wall_seconds() + delay_->clock_offset;
    for (const auto& s : slots_) {
      if (s.stamped) std::memcpy(send_buffer_.data() + s.offset, &sent, sizeof sent);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = slots_[i];
    MPI_Irecv(recv_buffer_.data() + s.offset, static_cast<int>(s.bytes), MPI_BYTE, s.peer, kTag, comm_, &requests_[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = slots_[i];
    MPI_Isend(send_buffer_.data() + s.offset, static_cast<int>(s.bytes), MPI_BYTE, s.peer, kTag, comm_,
              &requests_[n + i]);
  }
}

namespace {

// The pause between two polls of a rank that sleeps while it waits.
class PollBackoff {
 public:
  explicit PollBackoff(bool enabled) : enabled_(enabled) {}
  void pause() {
    if (!enabled_) return;
    std::this_thread::sleep_for(delay_);
    delay_ = std::min(2 * delay_, std::chrono::microseconds(1000));
  }

 private:
  bool enabled_;
  std::chrono::microseconds delay_{20};
};

// The watchdog of one wait, told of every failed poll. A rank that spins reads the clock
// only every 1,024 polls, and the watchdog's time starts at the first of those reads: the
// polls before it take microseconds, against a watchdog of seconds, and a wait that ends
// sooner reads no clock at all. A rank that sleeps between polls reads it at every poll,
// which costs nothing next to the sleep.
class WatchdogClock {
 public:
  WatchdogClock(double limit_seconds, bool sleeping) : limit_(limit_seconds), mask_(sleeping ? 0 : 1023) {}
  // The seconds waited, once they pass the limit.
  std::optional<double> expired() {
    if ((++polls_ & mask_) != 0) return std::nullopt;
    const double now = wall_seconds();
    if (start_ < 0) start_ = now;
    if (now - start_ > limit_) return now - start_;
    return std::nullopt;
  }

 private:
  double limit_;
  std::uint64_t mask_;
  double start_ = -1;
  std::uint64_t polls_ = 0;
};

}  // namespace

std::vector<int> HaloExchange::peers() const {
  std::vector<int> out;
  for (const auto& s : slots_) out.push_back(s.peer);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void HaloExchange::wait(int step, double watchdog_seconds) {
  wait_requests(requests_, step, watchdog_seconds);
  check_arrivals();
  if (delay_) hold_for_wan_latency();
}

void HaloExchange::wait_requests(std::span<MPI_Request> requests, int step, double watchdog_seconds) {
  if (wait_mode_ == WaitMode::block) {
    // One MPI_Wait per request, not MPI_Waitall: SimGrid 3.32 serves MPI_Waitall with
    // repeated waitanys, and each completion then walks the whole request list, O(n^2) in
    // a rank's neighbors.
    for (auto& request : requests) MPI_Wait(&request, MPI_STATUS_IGNORE);
    return;
  }
  // Waiting on one request at a time costs O(1) per poll, where Testsome or Testall
  // would rescan every request on every poll (quadratic with thousands of edges), and it
  // keeps the watchdog able to say which messages never came.
  // The watchdog's clock starts only after some polls found a message missing: a step
  // whose messages come soon after its work reads no clock here.
  WatchdogClock watchdog(watchdog_seconds, sleep_while_waiting_);
  PollBackoff backoff(sleep_while_waiting_);
  for (auto& request : requests) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    while (!done) {
      if (const auto waited = watchdog.expired()) report_hang(step, *waited);
      backoff.pause();
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
  }
}

void HaloExchange::barrier(MPI_Comm comm, int step, double watchdog_seconds, std::string_view where) const {
  if (wait_mode_ == WaitMode::block) {
    MPI_Barrier(comm);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  const double start = wall_seconds();
  std::uint64_t polls = 0;
  PollBackoff backoff(sleep_while_waiting_);
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    if ((++polls & 1023) == 0 && wall_seconds() - start > watchdog_seconds) {
      // A barrier cannot say which rank is missing, only that one is.
      throw HangError(
          fmt::format("watchdog: rank {} waited {:.0f} s in step {} at the barrier {}: a rank never "
                      "reached it (stopped, lost, or far behind)\n",
                      comm_rank(comm_), wall_seconds() - start, step, where));
    }
    backoff.pause();
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

double HaloExchange::arrival_time(std::size_t slot) const {
  double sent = 0;
  std::memcpy(&sent, recv_buffer_.data() + slots_[slot].offset, sizeof sent);
  return sent + delay_->latency;
}

void HaloExchange::release(std::size_t slot, std::vector<LocalIndex>& ready) {
  ++released_;
  for (LocalIndex v : dependents_[slot]) {
    if (--pending_[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
  }
}

std::vector<LocalIndex> HaloExchange::next_ready(int step, double watchdog_seconds) {
  const std::size_t n = slots_.size();
  std::vector<LocalIndex> ready;
  completed_.resize(n);
  WatchdogClock watchdog(watchdog_seconds, sleep_while_waiting_);
  PollBackoff backoff(sleep_while_waiting_);
  while (ready.empty() && released_ < n) {
    // Cross-site messages whose latency has passed.
    const double shared_now = delay_ ? wall_seconds() + delay_->clock_offset : 0;
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->first <= shared_now) {
        release(it->second, ready);
        it = held_.erase(it);
      } else {
        ++it;
      }
    }
    if (!ready.empty()) break;
    int count = 0;
    if (wait_mode_ == WaitMode::block) {
      MPI_Waitsome(static_cast<int>(n), requests_.data(), &count, completed_.data(), MPI_STATUSES_IGNORE);
    } else {
      MPI_Testsome(static_cast<int>(n), requests_.data(), &count, completed_.data(), MPI_STATUSES_IGNORE);
      if (count == 0) {
        if (const auto waited = watchdog.expired()) report_hang(step, *waited);
        backoff.pause();
      }
    }
    if (count == MPI_UNDEFINED) count = 0;  // every receive has completed; only held ones remain
    for (int k = 0; k < count; ++k) {
      const auto slot = static_cast<std::size_t>(completed_[static_cast<std::size_t>(k)]);
      if (slots_[slot].stamped) {
        held_.emplace_back(arrival_time(slot), slot);
      } else {
        release(slot, ready);
      }
    }
  }
  return ready;
}

void HaloExchange::finish(int step, double watchdog_seconds) {
  const std::size_t n = slots_.size();
  wait_requests(std::span(requests_).subspan(n), step, watchdog_seconds);
  check_arrivals();
}

// The delay device: the step cannot go on before the last cross-site message "arrives",
// its send time plus the WAN latency, which a spin on the shared clock waits out.
void HaloExchange::hold_for_wan_latency() const {
  double arrival = 0;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].stamped) arrival = std::max(arrival, arrival_time(i));
  }
  while (wall_seconds() + delay_->clock_offset < arrival) {
  }
}

double clock_offset_to_rank0(MPI_Comm comm) {
  const int me = comm_rank(comm);
  const int nranks = comm_size(comm);
  constexpr int kRounds = 8;
  constexpr int kTagSync = 12;
  double offset = 0;
  for (int r = 1; r < nranks; ++r) {
    if (me == 0) {
      for (int k = 0; k < kRounds; ++k) {
        double dummy = 0;
        MPI_Recv(&dummy, 1, MPI_DOUBLE, r, kTagSync, comm, MPI_STATUS_IGNORE);
        const double t = wall_seconds();
        MPI_Send(&t, 1, MPI_DOUBLE, r, kTagSync, comm);
      }
    } else if (me == r) {
      double best_rtt = HUGE_VAL;
      for (int k = 0; k < kRounds; ++k) {
        const double t0 = wall_seconds();
        MPI_Send(&t0, 1, MPI_DOUBLE, 0, kTagSync, comm);
        double remote = 0;
        MPI_Recv(&remote, 1, MPI_DOUBLE, 0, kTagSync, comm, MPI_STATUS_IGNORE);
        const double t1 = wall_seconds();
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          offset = remote - (t0 + t1) / 2;
        }
      }
    }
  }
  return offset;
}

void HaloExchange::check_arrivals() const {
  for (const auto& e : edges_) {
    if (e.bytes < kHeader) continue;
    std::int64_t header[2];
    std::memcpy(header, recv_buffer_.data() + e.offset, sizeof header);
    if (header[0] != e.remote.value() || header[1] != e.local.value()) {
      throw RunError(fmt::format("message for edge {}-{} from rank {} carried edge {}-{}: the exchange is mismatched",
                                 e.remote.value(), e.local.value(), e.peer, header[0], header[1]));
    }
  }
}

void HaloExchange::report_hang(int step, double waited) const {
  std::vector<std::string> lines;
  std::size_t count = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    int done = 0;
    if (requests_[i] != MPI_REQUEST_NULL) MPI_Request_get_status(requests_[i], &done, MPI_STATUS_IGNORE);
    if (requests_[i] == MPI_REQUEST_NULL || done) continue;
    ++count;
    if (lines.size() >= 8) continue;
    const bool is_recv = i < slots_.size();
    const auto& s = slots_[is_recv ? i : i - slots_.size()];
    const auto& e = edges_[s.first_edge];
    lines.push_back(
        fmt::format("  {} rank {} ({} bytes, edge {}-{}{})", is_recv ? "receive from" : "send to", s.peer, s.bytes,
                    e.local.value(), e.remote.value(),
                    s.last_edge - s.first_edge > 1 ? fmt::format(" and {} more", s.last_edge - s.first_edge - 1) : ""));
  }
  std::string text = fmt::format("watchdog: rank {} waited {:.0f} s in step {} with {} of {} messages pending:\n",
                                 comm_rank(comm_), waited, step, count, requests_.size());
  for (const auto& l : lines) text += l + "\n";
  throw HangError(text);
}

}  // namespace lbbench
