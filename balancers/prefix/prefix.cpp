// Parallel prefix (see prefix.hpp).
//
// The scan is Hillis-Steele recursive doubling over point-to-point messages (the
// algorithm behind MPI_Exscan, written out so its rounds and messages are counted and so
// SMPI, whose MPI_Exscan is linear in the rank count, simulates it at scale). With
// weighted units a rank keeps whole units up to the minimum load, so kept loads differ by
// less than one unit; the scanned remainder is then split into equal shares, and each
// rank ends within one unit of the average. A rank's background load (objects that never
// move) stays home and counts as kept; the equal split of the stream does not know it, so
// ranks with unequal backgrounds stay that far apart (the scan has no per-rank target
// without O(P) data per rank).
#include "balancers/prefix/prefix.hpp"

namespace lbbench {

namespace {

// The owner rule multiplies a stream offset by the rank count, which can pass 2^63. GCC and
// Clang have a 128-bit integer; __extension__ says it is meant (-Wpedantic).
__extension__ using Int128 = __int128;

class PrefixProtocol final : public CopyableProtocol<PrefixProtocol> {
 public:
  PrefixProtocol(RankWork work, bool subtract_min) : w_(std::move(work)), subtract_min_(subtract_min) {
    owners_.assign(w_.units(), Rank{w_.rank});
  }

  Outbox step(const Inbox& inbox) override {
    switch (stage_) {
      case Stage::start: return start();
      case Stage::minimum: return begin_scan(-inbox.max.at(0));
      case Stage::scan: return continue_scan(inbox);
      case Stage::done: return {};
    }
    return {};
  }
  [[nodiscard]] bool finished() const override { return stage_ == Stage::done; }
  [[nodiscard]] std::vector<Rank> owners() const override { return owners_; }

 private:
  enum class Stage { start, minimum, scan, done };

  Outbox start() {
    if (!subtract_min_) return begin_scan(0);
    stage_ = Stage::minimum;
    Outbox out;
    out.max = {-w_.load()};  // the minimum, as the maximum of negatives
    return out;
  }

  // Units kept at home: the leading ones whose loads fit in the global minimum, on top of
  // the rank's background, which never streams.
  Outbox begin_scan(std::int64_t minimum) {
    std::int64_t kept = w_.background;
    while (first_streamed_ < w_.units() && kept + w_.quanta[first_streamed_] <= minimum)
      kept += w_.quanta[first_streamed_++];
    mine_ = w_.load() - kept;
    partial_ = mine_;
    stage_ = Stage::scan;
    Outbox out;
    out.sum = {mine_};
    send_partial(out);
    return out;
  }

  Outbox continue_scan(const Inbox& inbox) {
    if (!inbox.sum.empty()) total_ = inbox.sum[0];
    for (const auto& m : inbox.messages) partial_ += ByteReader(m.data).get<std::int64_t>();
    distance_ *= 2;
    Outbox out;
    if (distance_ < w_.nranks) {
      send_partial(out);
      return out;
    }
    assign(partial_ - mine_);
    stage_ = Stage::done;
    return out;
  }

  void send_partial(Outbox& out) const {
    if (w_.rank + distance_ >= w_.nranks) return;
    Message m{w_.rank + distance_, {}};
    ByteWriter(m.data).put(partial_);
    out.messages.push_back(std::move(m));
  }

  // Each streamed unit goes to the rank whose share holds its middle: owner =
  // floor((2a + w) P / 2E) for a unit at offset a of weight w in a stream of total E.
  void assign(std::int64_t offset) {
    if (total_ <= 0) return;
    for (std::size_t u = first_streamed_; u < w_.units(); ++u) {
      const Int128 middle2 = 2 * static_cast<Int128>(offset) + w_.quanta[u];
      const auto r = static_cast<std::int64_t>(middle2 * w_.nranks / (2 * static_cast<Int128>(total_)));
      owners_[u] = Rank{static_cast<int>(std::min<std::int64_t>(r, w_.nranks - 1))};
      offset += w_.quanta[u];
    }
  }

  RankWork w_;
  bool subtract_min_;
  Stage stage_ = Stage::start;
  std::size_t first_streamed_ = 0;
  std::int64_t mine_ = 0;     // this rank's streamed load
  std::int64_t partial_ = 0;  // inclusive scan so far
  std::int64_t total_ = 0;    // streamed load over all ranks
  int distance_ = 1;
  std::vector<Rank> owners_;
};

}  // namespace

std::unique_ptr<RankProtocol> PrefixBalancer::make_protocol(RankWork work, const ProtocolContext&) const {
  return std::make_unique<PrefixProtocol>(std::move(work), params_.subtract_min);
}

}  // namespace lbbench
