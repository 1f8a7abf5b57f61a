// Small MPI helpers shared by every part (see mpi.hpp).
#include "mpi/mpi.hpp"

#include <algorithm>
#include <chrono>
#include <array>
#include <cstring>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "core/error.hpp"

namespace lbbench {

double now_seconds() {
#ifdef LBBENCH_SMPI
  return MPI_Wtime();
#else
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
#endif
}

MpiSession::MpiSession(int* argc, char*** argv) {
  // MPI errors stay fatal (the default handler): the code does not check return codes,
  // and a truncated or failed message must never pass silently.
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

MPI_Comm duplicate_comm(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Comm_create(comm, group, &copy);
  MPI_Group_free(&group);
  return copy;
}

std::vector<int> world_ranks_of(MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(comm_size(comm))), out(ranks.size());
  std::iota(ranks.begin(), ranks.end(), 0);
  MPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), world, out.data());
  MPI_Group_free(&world);
  MPI_Group_free(&group);
  return out;
}

std::vector<long long> exclusive_sum(const std::vector<long long>& mine, MPI_Comm comm) {
  constexpr int kTag = 7301;
  const int me = comm_rank(comm);
  const int n = comm_size(comm);
  const int count = static_cast<int>(mine.size());
  std::vector<long long> inclusive = mine, incoming(mine.size());
  // Hillis-Steele: after the round of distance d, rank r holds the sum over ranks
  // max(0, r - 2d + 1) .. r.
  for (int distance = 1; distance < n; distance *= 2) {
    const int to = me + distance < n ? me + distance : MPI_PROC_NULL;
    const int from = me >= distance ? me - distance : MPI_PROC_NULL;
    std::fill(incoming.begin(), incoming.end(), 0LL);
    MPI_Sendrecv(inclusive.data(), count, MPI_LONG_LONG, to, kTag, incoming.data(), count, MPI_LONG_LONG, from, kTag,
                 comm, MPI_STATUS_IGNORE);
    for (std::size_t i = 0; i < inclusive.size(); ++i) inclusive[i] += incoming[i];
  }
  for (std::size_t i = 0; i < inclusive.size(); ++i) inclusive[i] -= mine[i];
  return inclusive;
}

std::string mpi_library_version() {
  char buffer[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(buffer, &length);
  std::string v(buffer, static_cast<std::size_t>(length));
  if (auto nl = v.find_first_of("\n,"); nl != std::string::npos) v.resize(nl);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\n')) v.pop_back();
  return v;
}

namespace {

enum class ErrorKind : int { none = 0, input = 1, run = 2, other = 3 };

std::pair<ErrorKind, std::string> classify(std::exception_ptr error) {
  if (!error) return {ErrorKind::none, {}};
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    return {ErrorKind::input, e.what()};
  } catch (const RunError& e) {
    return {ErrorKind::run, e.what()};
  } catch (const std::exception& e) {
    return {ErrorKind::other, e.what()};
  } catch (...) {
    return {ErrorKind::other, "unknown exception"};
  }
}

}  // namespace

void agree_on_errors(std::exception_ptr local, MPI_Comm comm) {
  const auto [kind, message] = classify(local);
  const int me = comm_rank(comm);
  const int size = comm_size(comm);
  const int candidate = kind == ErrorKind::none ? size : me;
  const int first = allreduce(candidate, MPI_MIN, comm);
  if (first == size) return;
  int payload[2] = {static_cast<int>(kind), static_cast<int>(message.size())};
  MPI_Bcast(payload, 2, MPI_INT, first, comm);
  std::string text = me == first ? message : std::string(static_cast<std::size_t>(payload[1]), '\0');
  MPI_Bcast(text.data(), payload[1], MPI_CHAR, first, comm);
  switch (static_cast<ErrorKind>(payload[0])) {
    case ErrorKind::input: throw AgreedInputError(text);
    case ErrorKind::run: throw AgreedRunError(text);
    default: throw AgreedError(text);
  }
}

#ifdef LBBENCH_SMPI

struct SimulatedCensus {
  struct Incoming {
    int source;
    std::uint64_t size;
  };
  std::array<std::vector<std::vector<Incoming>>, 2> incoming;  // [parity][receiver]
};

namespace {

// Under SMPI every simulated rank lives in this one process (privatization is off: the
// suite has no mutable globals but this registry) and ranks run one at a time, switching
// only inside MPI calls. An exchange's ranks share one census: per round parity and
// receiving rank, the (source, size) of every message on its way. Each exchange is known
// by (creation number agreed by its ranks, its rank 0 in MPI_COMM_WORLD, its size).
std::map<std::tuple<std::int64_t, int, int>, std::weak_ptr<SimulatedCensus>> census_registry;
std::map<int, std::int64_t> exchanges_created;  // per world rank

std::shared_ptr<SimulatedCensus> shared_census(MPI_Comm comm) {
  const int world_rank = comm_rank(MPI_COMM_WORLD);
  const std::int64_t serial = allreduce(exchanges_created[world_rank], MPI_MAX, comm) + 1;
  exchanges_created[world_rank] = serial;
  int root_in_world = world_rank;
  MPI_Bcast(&root_in_world, 1, MPI_INT, 0, comm);
  const int size = comm_size(comm);
  auto& slot = census_registry[{serial, root_in_world, size}];
  auto census = slot.lock();
  if (!census) {
    census = std::make_shared<SimulatedCensus>();
    for (auto& parity : census->incoming) parity.resize(static_cast<std::size_t>(size));
    slot = census;
  }
  return census;
}

}  // namespace
#endif

SparseExchange::SparseExchange(MPI_Comm comm, std::size_t max_chunk)
    : comm_(duplicate_comm(comm)), max_chunk_(max_chunk) {
#ifdef LBBENCH_SMPI
  census_ = shared_census(comm_);
#endif
}

SparseExchange::~SparseExchange() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

namespace {

// Receives one logical message whose first part was probed: a whole message, or an
// announcement of the size followed by chunks.
Message receive_one(const MPI_Status& status, int whole_tag, int announce_tag, int chunk_tag, std::size_t max_chunk,
                    MPI_Comm comm) {
  Message m{status.MPI_SOURCE, {}};
  if (status.MPI_TAG == whole_tag) {
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    m.data.resize(static_cast<std::size_t>(count));
    MPI_Recv(m.data.data(), count, MPI_BYTE, m.peer, whole_tag, comm, MPI_STATUS_IGNORE);
    return m;
  }
  // The sender posted every chunk before it started receiving, so these receives end.
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, m.peer, announce_tag, comm, MPI_STATUS_IGNORE);
  m.data.resize(size);
  for (std::size_t at = 0; at < size; at += max_chunk) {
    const auto n = static_cast<int>(std::min<std::size_t>(max_chunk, size - at));
    MPI_Recv(m.data.data() + at, n, MPI_BYTE, m.peer, chunk_tag, comm, MPI_STATUS_IGNORE);
  }
  return m;
}

// Posts every message of a round: whole when it fits in max_chunk, else an announcement of
// its size followed by chunks (MPI counts are 32-bit). Synchronous sends complete only once
// matched, which NBX relies on. `sizes` holds the announced sizes and must outlive the sends.
std::vector<MPI_Request> post_sends(const std::vector<Message>& outgoing, std::vector<std::uint64_t>& sizes,
                                    int whole_tag, int announce_tag, int chunk_tag, std::size_t max_chunk,
                                    bool synchronous, MPI_Comm comm) {
  const auto send = [&](const void* data, int count, MPI_Datatype type, int peer, int tag, MPI_Request* request) {
    if (synchronous) {
      MPI_Issend(data, count, type, peer, tag, comm, request);
    } else {
      MPI_Isend(data, count, type, peer, tag, comm, request);
    }
  };
  std::vector<MPI_Request> sends;
  sizes.assign(outgoing.size(), 0);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    const auto& m = outgoing[i];
    if (m.data.size() <= max_chunk) {
      sends.emplace_back();
      send(m.data.data(), static_cast<int>(m.data.size()), MPI_BYTE, m.peer, whole_tag, &sends.back());
      continue;
    }
    sizes[i] = m.data.size();
    sends.emplace_back();
    send(&sizes[i], 1, MPI_UINT64_T, m.peer, announce_tag, &sends.back());
    for (std::size_t at = 0; at < m.data.size(); at += max_chunk) {
      const auto n = static_cast<int>(std::min(max_chunk, m.data.size() - at));
      sends.emplace_back();
      send(m.data.data() + at, n, MPI_BYTE, m.peer, chunk_tag, &sends.back());
    }
  }
  return sends;
}

}  // namespace

std::vector<Message> SparseExchange::exchange(const std::vector<Message>& outgoing) {
  // Alternating tags keep a fast rank's next round from being received in this one: a
  // rank can only be one round ahead, because leaving a round needs everyone's barrier.
  const int parity = round_++ % 2;
#ifdef LBBENCH_SMPI
  std::vector<Message> received = exchange_simulated(outgoing, parity);
#else
  std::vector<Message> received = exchange_nbx(outgoing, parity);
#endif
  // Arrival order depends on timing; sorting by peer makes every caller deterministic.
  std::stable_sort(received.begin(), received.end(), [](const Message& a, const Message& b) { return a.peer < b.peer; });
  return received;
}

#ifndef LBBENCH_SMPI

// NBX: synchronous sends (whole messages, or an announcement of the size and chunks),
// probes for what arrives, and a non-blocking barrier once every send was matched.
std::vector<Message> SparseExchange::exchange_nbx(const std::vector<Message>& outgoing, int parity) {
  const int whole_tag = 100 + parity;
  const int announce_tag = 102 + parity;
  const int chunk_tag = 104 + parity;
  std::vector<std::uint64_t> sizes;
  std::vector<MPI_Request> sends =
      post_sends(outgoing, sizes, whole_tag, announce_tag, chunk_tag, max_chunk_, /*synchronous=*/true, comm_);
  std::vector<Message> received;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool barrier_started = false;
  while (true) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, whole_tag, comm_, &arrived, &status);
    if (!arrived) MPI_Iprobe(MPI_ANY_SOURCE, announce_tag, comm_, &arrived, &status);
    if (arrived) {
      received.push_back(receive_one(status, whole_tag, announce_tag, chunk_tag, max_chunk_, comm_));
      continue;
    }
    if (!barrier_started) {
      int all_sent = 0;
      MPI_Testall(static_cast<int>(sends.size()), sends.data(), &all_sent, MPI_STATUSES_IGNORE);
      if (all_sent) {
        MPI_Ibarrier(comm_, &barrier);
        barrier_started = true;
      }
    } else {
      int done = 0;
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) break;
    }
  }
  return received;
}

#else

// Under SMPI the NBX loop polls, and every poll is a simulation event: it crawls, and
// SMPI's MPI_Waitany does not wake for a message while it also holds an MPI_Ibarrier.
// MPI_Probe is no way out either: SMPI charges each failed probe a sleep that grows with
// the number of failed probes so far, across all ranks, to milliseconds at 1,000 ranks.
// So senders list their messages in the shared census, a barrier stands for NBX's
// non-blocking barrier (the simulated cost is of the same order, O(log P)), and each rank
// then receives exactly what was listed for it, source by source. The list of a parity is
// taken before any rank can reach the round after next, which needs this rank's barrier.
std::vector<Message> SparseExchange::exchange_simulated(const std::vector<Message>& outgoing, int parity) {
  const int whole_tag = 100 + parity;
  const int announce_tag = 102 + parity;
  const int chunk_tag = 104 + parity;
  const int me = comm_rank(comm_);
  auto& lists = census_->incoming[static_cast<std::size_t>(parity)];
  for (const auto& m : outgoing) lists[static_cast<std::size_t>(m.peer)].push_back({me, m.data.size()});
  std::vector<std::uint64_t> sizes;
  std::vector<MPI_Request> sends =
      post_sends(outgoing, sizes, whole_tag, announce_tag, chunk_tag, max_chunk_, /*synchronous=*/false, comm_);
  MPI_Barrier(comm_);
  const std::vector<SimulatedCensus::Incoming> mine = std::move(lists[static_cast<std::size_t>(me)]);
  lists[static_cast<std::size_t>(me)].clear();
  std::vector<Message> received;
  received.reserve(mine.size());
  for (const auto& in : mine) {
    MPI_Status status;
    status.MPI_SOURCE = in.source;
    status.MPI_TAG = in.size <= max_chunk_ ? whole_tag : announce_tag;
    if (in.size <= max_chunk_) {
      Message m{in.source, Bytes(in.size)};
      MPI_Recv(m.data.data(), static_cast<int>(in.size), MPI_BYTE, in.source, whole_tag, comm_, MPI_STATUS_IGNORE);
      received.push_back(std::move(m));
    } else {
      received.push_back(receive_one(status, whole_tag, announce_tag, chunk_tag, max_chunk_, comm_));
    }
  }
  // One wait per send: SimGrid's MPI_Waitall is quadratic in the request count (see
  // HaloExchange::wait_requests).
  for (auto& send : sends) MPI_Wait(&send, MPI_STATUS_IGNORE);
  return received;
}

#endif

}  // namespace lbbench
