// The step's messages (Algorithm 3, lines 3-5 and 9): one Irecv and one Isend per remote
// edge, or one per neighbor rank when aggregated, waited on with a watchdog.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/local_graph.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

// Koenig & Kale's delay device on real MPI: a message between ranks of different sites
// completes no earlier than its send time plus the WAN latency. Send times travel in the
// message, on a clock shared by all ranks (local clock + offset to rank 0's).
struct WanDelay {
  std::vector<int> rank_site;
  double latency = 0;
  double clock_offset = 0;  // add to this rank's wall_seconds() for the shared clock
};

// How a rank waits for its messages. `poll`: test them one by one, with a watchdog that
// turns a hang into an error naming the step and the pending messages (real MPI). `block`:
// wait in MPI; under a simulator every poll is a simulated event, and a hang is a
// simulated deadlock that the simulator detects and reports itself.
enum class WaitMode { poll, block };

// Offset of this rank's clock to rank 0's, from the fastest of a few ping-pongs with rank
// 0 (Cristian's method). Collective.
double clock_offset_to_rank0(MPI_Comm comm);

class HaloExchange {
 public:
  // Builds the message lists from the owner table. Collective: every rank rebuilds after
  // the same migration. `comm` must be reserved for step messages (the caller keeps one
  // for the whole run; creating a communicator per rebuild is costly under SMPI).
  HaloExchange(const LocalGraph& g, std::int64_t edge_bytes, MessageMode mode, MPI_Comm comm,
               WaitMode wait_mode = WaitMode::poll, const WanDelay* delay = nullptr);

  // When ranks outnumber cores, a rank that spins while it waits takes CPU time from the
  // ranks that share its core and still compute. With this on, waiting ranks sleep
  // between polls (20 µs, doubling up to 1 ms).
  void sleep_while_waiting(bool on) { sleep_while_waiting_ = on; }

  // Posts every receive, then every send.
  void post();
  // Waits for all of them. Polling, after `watchdog_seconds` it throws HangError naming the step and
  // the pending messages. Checks that every message arrived for the edge it was meant for.
  void wait(int step, double watchdog_seconds);

  // --- message-driven execution: each vertex runs once all its messages are in -----------
  // Vertices with no remote neighbor, which can run while messages are in flight.
  [[nodiscard]] const std::vector<LocalIndex>& interior() const { return interior_; }
  // After post(): blocks until received messages complete more vertices' inputs and
  // returns those vertices; empty once every received message has been handled. Under a
  // WAN delay a cross-site message counts from its send time plus the latency.
  std::vector<LocalIndex> next_ready(int step, double watchdog_seconds);
  // After the last next_ready(): waits for the sends and checks what arrived.
  void finish(int step, double watchdog_seconds);

  // A barrier on `comm` under the same watchdog as the messages: a rank that is stopped or
  // lost never reaches it, and a plain MPI_Barrier would wait for it forever. `where` says
  // which barrier in the watchdog's message.
  void barrier(MPI_Comm comm, int step, double watchdog_seconds, std::string_view where) const;

  [[nodiscard]] std::int64_t messages_per_step() const { return static_cast<std::int64_t>(slots_.size()); }
  [[nodiscard]] std::int64_t bytes_per_step() const { return static_cast<std::int64_t>(send_buffer_.size()); }
  // Messages per step (sends) to peers for which `pred(peer)` holds.
  template <class Pred>
  [[nodiscard]] std::int64_t messages_to(Pred pred) const {
    std::int64_t n = 0;
    for (const auto& s : slots_) n += pred(s.peer) ? 1 : 0;
    return n;
  }
  // The ranks this one exchanges step messages with, sorted.
  [[nodiscard]] std::vector<int> peers() const;
  [[nodiscard]] std::int64_t remote_edges() const { return static_cast<std::int64_t>(edges_.size()); }
  [[nodiscard]] std::int64_t remote_edge_bytes() const { return remote_edge_bytes_; }

 private:
  bool sleep_while_waiting_ = false;
  WaitMode wait_mode_ = WaitMode::poll;

  struct RemoteEdge {
    LocalIndex vertex = 0;  // the local end
    VertexId local;
    VertexId remote;
    int peer = 0;
    std::int64_t bytes = 0;
    std::int64_t offset = 0;  // into both buffers
  };
  struct Slot {  // one message
    int peer;
    std::int64_t offset;
    std::int64_t bytes;
    std::size_t first_edge;  // edges [first_edge, last_edge) travel in it
    std::size_t last_edge;
    bool stamped;  // crosses sites under a WAN delay: starts with its send time
  };
  void check_arrivals() const;
  void hold_for_wan_latency() const;
  void wait_requests(std::span<MPI_Request> requests, int step, double watchdog_seconds);
  void release(std::size_t slot, std::vector<LocalIndex>& ready);
  [[nodiscard]] double arrival_time(std::size_t slot) const;
  [[noreturn]] void report_hang(int step, double waited) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<RemoteEdge> edges_;
  std::vector<Slot> slots_;
  std::vector<std::byte> send_buffer_;
  std::vector<std::byte> recv_buffer_;
  std::vector<MPI_Request> requests_;  // slot i's receive at i, its send at slots + i
  std::int64_t remote_edge_bytes_ = 0;
  const WanDelay* delay_ = nullptr;

  // Message-driven bookkeeping.
  std::vector<LocalIndex> interior_;
  std::vector<std::vector<LocalIndex>> dependents_;   // per slot: vertices waiting for it
  std::vector<int> inputs_;                           // per vertex: slots it needs
  std::vector<int> pending_;                          // this step's countdown
  std::size_t released_ = 0;                          // slots handled this step
  std::vector<std::pair<double, std::size_t>> held_;  // completed cross-site slots and their arrival
  std::vector<int> completed_;                        // MPI_Testsome's indices, reused across polls
};

}  // namespace lbbench
