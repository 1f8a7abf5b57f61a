// GrapevineLB (see gossip.hpp). Stages of one rank, round by round:
//   check    -> the average (first time) and the maximum decide whether a phase runs;
//   gossip   -> `rounds` rounds of spreading the underloaded ranks' loads;
//   transfer -> offers and acknowledgements until, over all ranks, nothing is pending;
// then check again. Every random draw is a hash of (seed, LB call, phase, round, rank),
// so the serial reference draws the same.
#include "balancers/gossip/gossip.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "balancers/gossip/known_ranks.hpp"
#include "core/hash.hpp"

namespace lbbench {

namespace {

enum class Record : std::uint8_t { knowledge = 1, offer, reply };
enum class Unit : std::uint8_t { home, offered, moved };

// After this many rounds of a phase no new offers are made (pending ones are still
// answered); far above what convergence takes, it only bounds a phase whose offers keep
// being refused.
constexpr int kMaxTransferRounds = 256;

// Reported by a rank with no unit it could offer: the lowest value, which any maximum passes.
constexpr std::int64_t kNoUnit = std::numeric_limits<std::int64_t>::min();

class GossipProtocol final : public CopyableProtocol<GossipProtocol> {
 public:
  // Of the rank's work it keeps only what it reads: the engines copy its state every round.
  GossipProtocol(RankWork work, GossipParams params, ProtocolContext ctx)
      : rank_(work.rank),
        nranks_(work.nranks),
        load_(work.load()),
        quanta_(std::make_shared<const std::vector<std::int64_t>>(std::move(work.quanta))),
        units_(quanta_->size(), UnitFate{Rank{rank_}, Unit::home}),
        p_(params),
        ctx_(ctx) {
    gossip_rounds_ = p_.rounds > 0
                         ? p_.rounds
                         : std::max(1, static_cast<int>(std::ceil(
                                           std::log(std::max(2, nranks_)) / std::log(std::max(2, p_.fanout)) - 1e-9)));
  }

  Outbox step(const Inbox& inbox) override {
    Outbox out;
    switch (stage_) {
      case Stage::start:
        out.sum = {load_};
        report_for_check(out, true);
        stage_ = Stage::check;
        break;
      case Stage::check: check(inbox, out); break;
      case Stage::gossip: gossip(inbox, out); break;
      case Stage::transfer: transfer(inbox, out); break;
      case Stage::done: break;
    }
    return out;
  }

  [[nodiscard]] bool finished() const override { return stage_ == Stage::done; }
  [[nodiscard]] std::vector<Rank> owners() const override {
    std::vector<Rank> owners;
    owners.reserve(units_.size());
    for (const UnitFate& u : units_) owners.push_back(u.owner);
    return owners;
  }
  [[nodiscard]] std::int64_t largest_list() const override { return largest_list_; }

 private:
  enum class Stage { start, check, gossip, transfer, done };
  // Where a unit goes, and whether an offer of it is out.
  struct UnitFate {
    Rank owner;
    Unit status;
  };

  // The hash of a draw's leading parts, the same for all of a round's draws of one kind.
  [[nodiscard]] std::uint64_t draws_of(std::uint64_t what) const {
    return hash_of({ctx_.seed, tag(Stream::protocol_random), static_cast<std::uint64_t>(ctx_.invocation),
                    static_cast<std::uint64_t>(phase_), static_cast<std::uint64_t>(round_), what,
                    static_cast<std::uint64_t>(rank_)});
  }
  [[nodiscard]] std::uint64_t draw(std::uint64_t what, std::uint64_t k) const { return hash_more(draws_of(what), k); }

  // What the check before a phase reduces, as maxima: this rank's load, its negation (so
  // the least load over the ranks), and the negated weight of the lightest unit it could
  // offer (so the lightest over the ranks), where `may_offer` and it has one.
  void report_for_check(Outbox& out, bool may_offer) const {
    const std::optional<std::int64_t> lightest = may_offer ? lightest_unit_at_home() : std::nullopt;
    out.max = {load_, -load_, lightest ? -*lightest : kNoUnit};
  }

  [[nodiscard]] std::optional<std::int64_t> lightest_unit_at_home() const {
    std::optional<std::int64_t> lightest;
    for (std::size_t u = 0; u < units_.size(); ++u) {
      const std::int64_t q = (*quanta_)[u];
      if (units_[u].status == Unit::home && q > 0 && (!lightest || q < *lightest)) lightest = q;
    }
    return lightest;
  }

  // Whether any transfer could be accepted in a phase that started now: one needs an
  // overloaded rank's unit to fit on a rank below the average, whose loads only grow in a
  // phase, so it needs the lightest such unit to fit on the least loaded rank. Else the
  // phase's gossip would be spent for nothing: every offer would be refused or never made.
  // Before the first phase no rank knows the limit, so every rank's units count.
  [[nodiscard]] bool a_unit_can_move(const Inbox& inbox) const {
    if (inbox.max.at(2) == kNoUnit) return false;
    const std::int64_t least_load = -inbox.max.at(1);
    const std::int64_t lightest_unit = -inbox.max.at(2);
    return static_cast<double>(least_load) < average_ && static_cast<double>(least_load + lightest_unit) <= limit_;
  }

  void check(const Inbox& inbox, Outbox& out) {
    if (phase_ == 0) {
      average_ = static_cast<double>(inbox.sum.at(0)) / nranks_;
      limit_ = p_.target_ratio * average_;
    }
    const bool moved_last_phase = phase_ == 0 || inbox.sum.at(0) > 0;
    if (average_ <= 0 || static_cast<double>(inbox.max.at(0)) <= limit_ || phase_ == p_.max_phases ||
        !moved_last_phase || !a_unit_can_move(inbox)) {
      stage_ = Stage::done;
      return;
    }
    known_.clear();
    std::vector<Known>& entries = unpacked();
    if (static_cast<double>(load_) < average_) known_.merge(std::array{Known{rank_, load_}}, entries);
    round_ = 0;
    stage_ = Stage::gossip;
    Letters letters;
    spread(letters, entries);
    letters.post(out);
  }

  // A buffer for the list's entries, unpacked: shared by the ranks, which the drivers run
  // one at a time on a thread, each using it only within one round.
  static std::vector<Known>& unpacked() {
    thread_local std::vector<Known> entries;
    entries.clear();
    return entries;
  }

  // Sends what is known (`known`, every entry of the list) to `fanout` distinct random ranks.
  void spread(Letters& letters, std::span<const Known> known) const {
    if (known.empty()) return;
    const Bytes record = knowledge_record(what_to_tell(known));
    for (const int t : targets()) letters.to(t).put_span(std::span<const std::byte>(record));
  }

  // `fanout` distinct ranks other than this one, drawn at random.
  [[nodiscard]] std::vector<int> targets() const {
    std::vector<int> targets;
    const auto wanted = static_cast<std::size_t>(std::min(p_.fanout, nranks_ - 1));
    targets.reserve(wanted);
    for (std::uint64_t attempt = 0; targets.size() < wanted; ++attempt) {
      const auto r = static_cast<int>(draw(1, attempt) % static_cast<std::uint64_t>(nranks_));
      if (r != rank_ && std::find(targets.begin(), targets.end(), r) == targets.end()) targets.push_back(r);
    }
    return targets;
  }

  // The record every target of a round is sent, written once at its final size: put by put,
  // each copy would grow a dozen times on the way to its kilobyte.
  static Bytes knowledge_record(std::span<const Known> told) {
    Bytes record;
    record.reserve(sizeof(Record) + sizeof(std::int64_t) + told.size() * (sizeof(std::int32_t) + sizeof(std::int64_t)));
    ByteWriter w(record);
    w.put(Record::knowledge);
    w.put(static_cast<std::int64_t>(told.size()));
    for (const auto& [rank, load] : told) {
      w.put(rank);
      w.put(load);
    }
    return record;
  }

  // Everything known, or with `info_limit`, that many entries drawn at random afresh each
  // round (every subset of that size equally likely), sorted by rank. Charm++'s
  // kPartialInfoCount sends the first entries by PE number instead, which would tell every
  // rank of the same few low-numbered ranks and send them all the transfers.
  [[nodiscard]] std::vector<Known> what_to_tell(std::span<const Known> known) const {
    const auto limit = static_cast<std::size_t>(p_.info_limit);
    return KnownRanks::sample(known, limit == 0 ? known.size() : limit, draws_of(3));
  }

  void gossip(const Inbox& inbox, Outbox& out) {
    const std::span<const Known> heard = heard_this_round(inbox);
    // The merge unpacks the whole list anyway; what to tell is drawn from that.
    std::vector<Known>& entries = unpacked();
    if (!heard.empty()) known_.merge(heard, entries);
    largest_list_ = std::max(largest_list_, static_cast<std::int64_t>(known_.size()));
    ++round_;
    if (round_ < gossip_rounds_) {
      if (heard.empty()) known_.append_to(entries);
      Letters letters;
      spread(letters, entries);
      letters.post(out);
      return;
    }
    stage_ = Stage::transfer;
    round_ = 0;
    moved_this_phase_ = 0;
    offer_and_count(Inbox{}, out);
  }

  // A round's lists, as one list sorted by rank with each rank once, the first copy heard
  // kept: merged at once, as if one by one in the order heard.
  static std::span<const Known> heard_this_round(const Inbox& inbox) {
    thread_local std::vector<Known> heard;
    thread_local std::vector<std::size_t> runs;  // where each list starts, and the end
    heard.clear();
    runs.assign(1, 0);
    for (const auto& m : inbox.messages) {
      ByteReader r(m.data);
      while (!r.done()) {
        if (r.get<Record>() != Record::knowledge) throw std::logic_error("gossip: unexpected record while gossiping");
        const auto n = r.get<std::int64_t>();
        for (std::int64_t i = 0; i < n; ++i) {
          const auto rank = r.get<std::int32_t>();
          heard.push_back(Known{rank, r.get<std::int64_t>()});
        }
        runs.push_back(heard.size());
      }
    }
    merge_sorted_runs(heard, runs);
    const auto same_rank = [](const Known& a, const Known& b) { return a.rank == b.rank; };
    heard.erase(std::unique(heard.begin(), heard.end(), same_rank), heard.end());
    return heard;
  }

  // Merges neighbouring runs, each sorted by rank, until one is left; stable, so of equal
  // ranks the one from the earlier run comes first.
  static void merge_sorted_runs(std::vector<Known>& list, std::vector<std::size_t>& runs) {
    thread_local std::vector<Known> merged;
    thread_local std::vector<std::size_t> merged_runs;
    const auto by_rank = [](const Known& a, const Known& b) { return a.rank < b.rank; };
    const auto at = [&](std::size_t i) { return list.begin() + static_cast<std::ptrdiff_t>(runs[i]); };
    while (runs.size() > 2) {
      merged.clear();
      merged_runs.assign(1, 0);
      for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
        if (i + 2 < runs.size()) {
          std::merge(at(i), at(i + 1), at(i + 1), at(i + 2), std::back_inserter(merged), by_rank);
        } else {
          merged.insert(merged.end(), at(i), at(i + 1));
        }
        merged_runs.push_back(merged.size());
      }
      list.swap(merged);
      runs.swap(merged_runs);
    }
  }

  void transfer(const Inbox& inbox, Outbox& out) {
    ++round_;
    if (inbox.sum.at(0) == 0) {  // nothing was pending anywhere, so nothing is in flight
      if (!inbox.messages.empty()) throw std::logic_error("gossip: a message after the offers ended");
      out.sum = {moved_this_phase_};
      report_for_check(out, static_cast<double>(load_) > limit_);
      ++phase_;
      stage_ = Stage::check;
      return;
    }
    offer_and_count(inbox, out);
  }

  // Answers offers, reads answers, makes new offers (until the round cap), and reports
  // whether any of its offers is still unanswered.
  void offer_and_count(const Inbox& inbox, Outbox& out) {
    Letters letters;
    for (const auto& m : inbox.messages) read_transfer(m, letters);
    if (round_ <= kMaxTransferRounds) make_offers(letters);
    letters.post(out);
    out.sum = {unanswered_ > 0 ? 1 : 0};
  }

  void read_transfer(const Message& m, Letters& letters) {
    ByteReader r(m.data);
    while (!r.done()) {
      const auto kind = r.get<Record>();
      const auto unit = r.get<std::int64_t>();
      if (kind == Record::offer) {
        const auto quanta = r.get<std::int64_t>();
        const bool accept = static_cast<double>(load_ + quanta) <= limit_;
        if (accept) load_ += quanta;
        auto w = letters.to(m.peer);
        w.put(Record::reply);
        w.put(unit);
        w.put(static_cast<std::uint8_t>(accept));
        w.put(load_);
      } else if (kind == Record::reply) {
        const bool accepted = r.get<std::uint8_t>() != 0;
        const auto their_load = r.get<std::int64_t>();
        const auto u = static_cast<std::size_t>(unit);
        const std::int64_t q = (*quanta_)[u];
        committed_ -= q;
        --unanswered_;
        if (accepted) {
          units_[u] = UnitFate{Rank{m.peer}, Unit::moved};
          load_ -= q;
          ++moved_this_phase_;
        } else {
          units_[u].status = Unit::home;
        }
        known_.update(m.peer, their_load);  // offered to, so known
      } else {
        throw std::logic_error("gossip: unexpected record while transferring");
      }
    }
  }

  // The unit to offer when `over` quanta above the average: the heaviest that keeps the
  // rank at or above the average, else the lightest if it brings it closer.
  [[nodiscard]] std::optional<std::size_t> pick_unit(double over) const {
    const std::vector<std::int64_t>& quanta = *quanta_;
    std::optional<std::size_t> heaviest_fit;
    std::optional<std::size_t> lightest;
    for (std::size_t u = 0; u < quanta.size(); ++u) {
      if (units_[u].status != Unit::home || quanta[u] == 0) continue;
      const auto q = static_cast<double>(quanta[u]);
      if (q <= over && (!heaviest_fit || quanta[u] > quanta[*heaviest_fit])) heaviest_fit = u;
      if (!lightest || quanta[u] < quanta[*lightest]) lightest = u;
    }
    if (heaviest_fit) return heaviest_fit;
    if (lightest && static_cast<double>(quanta[*lightest]) < 2 * over) return lightest;
    return std::nullopt;
  }

  // A target drawn with probability proportional to how far below the average it is,
  // among the known ranks that can take the unit without passing the limit: its index in
  // `known`, the list unpacked.
  [[nodiscard]] std::optional<std::size_t> pick_target(std::span<const Known> known, std::int64_t quanta,
                                                       std::uint64_t k) const {
    thread_local std::vector<std::pair<std::size_t, double>> cdf;
    cdf.clear();
    double total = 0;
    for (std::size_t i = 0; i < known.size(); ++i) {
      const auto& [rank, load] = known[i];
      if (rank == rank_ || static_cast<double>(load) >= average_ || static_cast<double>(load + quanta) > limit_)
        continue;
      total += average_ - static_cast<double>(load);
      cdf.emplace_back(i, total);
    }
    if (cdf.empty()) return std::nullopt;
    const double x = to_unit(draw(2, k)) * total;
    for (const auto& [i, upto] : cdf) {
      if (x < upto) return i;
    }
    return cdf.back().first;
  }

  void make_offers(Letters& letters) {
    // Unpacked once for all of this round's offers, which each read the whole list.
    std::vector<Known>& known = unpacked();
    std::uint64_t k = 0;
    while (static_cast<double>(load_ - committed_) > limit_) {
      const auto unit = pick_unit(static_cast<double>(load_ - committed_) - average_);
      if (!unit) return;
      if (k == 0) known_.append_to(known);
      const std::int64_t q = (*quanta_)[*unit];
      const auto target = pick_target(known, q, k++);
      if (!target) return;
      units_[*unit].status = Unit::offered;
      ++unanswered_;
      committed_ += q;
      Known& t = known[*target];
      t.load += q;  // what it will carry if it accepts
      known_.update(t.rank, t.load);
      auto w = letters.to(t.rank);
      w.put(Record::offer);
      w.put(static_cast<std::int64_t>(*unit));
      w.put(q);
    }
  }

  int rank_;
  int nranks_;
  std::int64_t load_;  // current load, with accepted units in and acknowledged units out
  // Per unit. Never changed, so shared by the copies the engines time a round on: a copy
  // is made of every rank every round, most of them idle.
  std::shared_ptr<const std::vector<std::int64_t>> quanta_;
  std::vector<UnitFate> units_;
  GossipParams p_;
  ProtocolContext ctx_;
  std::int64_t committed_ = 0;  // quanta offered and not yet answered
  int unanswered_ = 0;          // units offered and not yet answered
  double average_ = 0;
  double limit_ = 0;
  int gossip_rounds_ = 1;
  Stage stage_ = Stage::start;
  int phase_ = 0;
  int round_ = 0;
  std::int64_t moved_this_phase_ = 0;
  KnownRanks known_;  // underloaded ranks and their loads, as far as this rank knows
  std::int64_t largest_list_ = 0;
};

}  // namespace

std::unique_ptr<RankProtocol> GossipBalancer::make_protocol(RankWork work, const ProtocolContext& ctx) const {
  return std::make_unique<GossipProtocol>(std::move(work), params_, ctx);
}

}  // namespace lbbench
