// A protocol strategy: one round that sums every rank's load, then each rank above the
// average sends its heaviest unit to the next rank. Loaded by the tests on every engine.
#include <algorithm>
#include <lbbench/balancers/sdk/plugin.hpp>

namespace {

class KeepProtocol final : public lbbench::CopyableProtocol<KeepProtocol> {
 public:
  explicit KeepProtocol(lbbench::RankWork work)
      : work_(std::move(work)), owners_(work_.units(), lbbench::Rank{work_.rank}) {}
  lbbench::Outbox step(const lbbench::Inbox& inbox) override {
    lbbench::Outbox out;
    if (round_++ == 0) {
      out.sum.push_back(work_.load());
      return out;
    }
    const double average = static_cast<double>(inbox.sum.at(0)) / work_.nranks;
    if (static_cast<double>(work_.load()) > average && work_.units() > 1) {
      const auto heaviest = std::max_element(work_.quanta.begin(), work_.quanta.end()) - work_.quanta.begin();
      owners_[static_cast<std::size_t>(heaviest)] = lbbench::Rank{(work_.rank + 1) % work_.nranks};
    }
    done_ = true;
    return out;
  }
  [[nodiscard]] bool finished() const override { return done_; }
  [[nodiscard]] std::vector<lbbench::Rank> owners() const override { return owners_; }

 private:
  lbbench::RankWork work_;
  std::vector<lbbench::Rank> owners_;
  int round_ = 0;
  bool done_ = false;
};

class Keep final : public lbbench::plugin::Protocol {
 public:
  explicit Keep(const lbbench::plugin::Params& /*params*/) {}
  [[nodiscard]] std::unique_ptr<lbbench::RankProtocol> make_protocol(lbbench::RankWork work,
                                                                     const lbbench::ProtocolContext&) const override {
    return std::make_unique<KeepProtocol>(std::move(work));
  }
};

}  // namespace

LBBENCH_BALANCER(Keep, "test-protocol", lbbench::Family::diffusive, "test: one reduction, then one unit moves on",
                 {lbbench::plugin::integer_param("rounds", 1, "unused: a declared param of each type"),
                  lbbench::plugin::boolean_param("verbose", false, "unused"),
                  lbbench::plugin::text_param("label", "none", "unused")})
