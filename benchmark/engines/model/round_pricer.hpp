// Pricing a protocol's rounds on the modeled machine (see RoundPricer).
#pragma once

#include <vector>

#include "balancers/sdk/protocol.hpp"
#include "machine/network.hpp"

namespace lbbench {

// Prices a distributed protocol round by round, as the census exchange runs it under
// SMPI: every rank runs its handler and posts its messages, a barrier stands for NBX's,
// then each rank receives what was sent to it, one blocking receive after another in the
// order its senders reached the exchange, and an allreduce decides whether to go on
// (one more per kind of value the round reduced). Rounds end together: the collectives
// synchronize the ranks.
//
// The receives: SimGrid starts a rendezvous message's transfer when its receive is
// posted, so a rank's rendezvous messages do not overlap: each costs its route's latency
// and bytes after the previous one, from the end of the barrier. An eager message left
// when it was posted; its receive waits for it and pays the overhead. The round's messages
// also share the links as a migration's do (bulk_transfer_s), which is what bounds
// gossip's rounds, whose lists grow to kilobytes: at 256 bgq ranks, 16 ranks to a node
// send through the node's links at once. The round lasts the longer of the two.
class RoundPricer final : public ProtocolObserver {
 public:
  RoundPricer(const NetworkModel& net, double code_time_scale);

  void stepped(int rank, double cpu_s, const std::vector<Message>& sent) override;
  void started() override;
  void round_done(int reductions) override;
  // One message of the round from rank `from` to rank `to`, for a round priced without the
  // protocol driver (a regrid's).
  void sent(int from, int to, double bytes) { sent_.push_back({from, to, bytes}); }

  [[nodiscard]] double total_s() const { return total_s_; }
  // The serial driver's own time, running and timing every rank's handlers.
  [[nodiscard]] double driver_cpu_s() const { return driver_cpu_s_; }

 private:
  // When the last rank has its last message, each rank receiving one message after
  // another, unhindered by the others' messages.
  double last_receive_s(double barrier);

  // The round's messages on shared links, all starting at the end of the barrier. A call
  // runs up to hundreds of rounds where a migration is one transfer, so a round is followed
  // flow by flow only up to 50,000 route links, and only where its busiest link's bytes
  // take a tenth of `one_by_one` or more. Tree's and diffusion's messages are tens of
  // bytes, and their latencies one after another make the round; gossip's lists of
  // kilobytes fill the links (followed flow by flow, until a machine so large that a round's
  // routes exceed the limit).
  double shared_links_s(double one_by_one);

  const NetworkModel& net_;
  double scale_;
  std::vector<double> busy_;
  std::vector<double> done_;    // per rank, when its last receive of the round completes
  std::vector<RankFlow> sent_;  // the round's messages
  double total_s_ = 0;
  double driver_start_ = 0;
  double driver_cpu_s_ = 0;
};

}  // namespace lbbench
