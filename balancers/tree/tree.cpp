// Langer & Kale's tree balancer (see tree.hpp).
//
// Each node's protocol, in the order the messages make possible:
//   1. sum: wait for every child's subtree load, pass the sum up; the root has the total.
//   2. total: the total goes down; now every rank knows floor(avg) and the remainder.
//   3. heavy: the count of ranks above floor(avg) goes up, per subtree.
//   4. plan: from the root down, each node splits its subtree's extra units between
//      itself and its children and passes each child its share at once (the poster's
//      "call Prepare for Downward Pass on children" comes before the wait below), so it
//      knows its own excess and each child subtree's.
//   5. match: once the node has the plan and outside entries adding up to its subtree's
//      net flow, it matches its suppliers (itself, child subtrees, or outside entries)
//      with its receivers in order and dispatches every pair:
//        rank -> rank        the supplier is told to send (INSTRUCT, or kept if itself)
//        rank <-> subtree    the subtree gets the rank as an outside entry
//        subtree <-> subtree the one that moves more gets the other; between equals a
//                            coin decides
//      Entries go to the subtree's root as ENTRY, a child's as any other subtree's.
// A rank is finished once it matched and holds instructions for all of its excess.
#include "balancers/tree/tree.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/hash.hpp"

namespace lbbench {

std::int64_t minimum_migrations(const std::vector<std::int64_t>& counts) {
  if (counts.empty()) return 0;
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  const auto p = static_cast<std::int64_t>(counts.size());
  const std::int64_t floor_avg = total / p;
  std::int64_t excess = 0;
  std::int64_t above = 0;
  for (const auto c : counts) {
    if (c > floor_avg) {
      excess += c - floor_avg;
      ++above;
    }
  }
  return excess - std::min(total % p, above);
}

namespace {

enum class Record : std::uint8_t { up_sum = 1, down_total, up_heavy, down_plan, entry, instruct };

// A party in a match: a single rank, or the whole subtree rooted at a rank.
struct Entry {
  std::int64_t id = 0;
  bool subtree = false;
  std::int64_t amount = 0;
  std::int64_t net = 0;  // what the whole party moves (its excess, or its subtree's net flow)

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 a defaulted <=> compares with
  friend auto operator<=>(const Entry&, const Entry&) = default;
};

void put_entry(ByteWriter& w, const Entry& e) {
  w.put(e.id);
  w.put(static_cast<std::uint8_t>(e.subtree));
  w.put(e.amount);
  w.put(e.net);
}

Entry get_entry(ByteReader& r) {
  Entry e;
  e.id = r.get<std::int64_t>();
  e.subtree = r.get<std::uint8_t>() != 0;
  e.amount = r.get<std::int64_t>();
  e.net = r.get<std::int64_t>();
  return e;
}

// Ranks in the subtree of `root` in the b-ary tree over n ranks, level by level.
std::int64_t subtree_size(std::int64_t root, std::int64_t b, std::int64_t n) {
  std::int64_t size = 0;
  for (std::int64_t first = root, last = root; first < n; first = b * first + 1, last = b * last + b) {
    size += std::min(last, n - 1) - first + 1;
  }
  return size;
}

class TreeProtocol final : public CopyableProtocol<TreeProtocol> {
 public:
  TreeProtocol(RankWork work, TreeParams params, ProtocolContext ctx) : w_(std::move(work)), p_(params), ctx_(ctx) {
    if (p_.count_units) {  // every unit counts one, and a background counts nothing
      std::fill(w_.quanta.begin(), w_.quanta.end(), std::int64_t{1});
      w_.background = 0;
    }
    me_ = w_.rank;
    mine_ = w_.load();
    parent_ = me_ == 0 ? -1 : (me_ - 1) / p_.branching;
    for (std::int64_t c = static_cast<std::int64_t>(p_.branching) * me_ + 1;
         c <= static_cast<std::int64_t>(p_.branching) * me_ + p_.branching && c < w_.nranks; ++c) {
      children_.push_back(static_cast<int>(c));
    }
    child_sum_.assign(children_.size(), -1);
    child_heavy_.assign(children_.size(), -1);
    owners_.assign(w_.units(), Rank{me_});
  }

  Outbox step(const Inbox& inbox) override {
    for (const auto& m : inbox.messages) read(m);
    Letters letters;
    advance(letters);
    if (finished() && !chosen_) choose_units();
    Outbox out;
    letters.post(out);
    return out;
  }

  [[nodiscard]] bool finished() const override { return matched_ && instructed_ == std::max<std::int64_t>(excess_, 0); }
  [[nodiscard]] std::vector<Rank> owners() const override { return owners_; }
  [[nodiscard]] std::int64_t largest_list() const override { return largest_list_; }

 private:
  [[nodiscard]] std::size_t child_slot(int rank) const {
    const auto it = std::find(children_.begin(), children_.end(), rank);
    if (it == children_.end()) throw std::logic_error("tree: a message from a rank that is not a child");
    return static_cast<std::size_t>(it - children_.begin());
  }

  void read(const Message& m) {
    ByteReader r(m.data);
    while (!r.done()) {
      switch (static_cast<Record>(r.get<std::uint8_t>())) {
        case Record::up_sum: child_sum_[child_slot(m.peer)] = r.get<std::int64_t>(); break;
        case Record::down_total: set_total(r.get<std::int64_t>()); break;
        case Record::up_heavy: child_heavy_[child_slot(m.peer)] = r.get<std::int64_t>(); break;
        case Record::down_plan: {
          const auto heavy_extras = r.get<std::int64_t>();
          const auto light_extras = r.get<std::int64_t>();
          set_plan(heavy_extras, light_extras);
          break;
        }
        case Record::entry: add_outside(get_entry(r)); break;
        case Record::instruct: {
          const auto to = r.get<std::int64_t>();
          const auto amount = r.get<std::int64_t>();
          instruct(to, amount);
          break;
        }
        default: throw std::logic_error("tree: unknown record");
      }
    }
  }

  void advance(Letters& letters) {
    if (!sent_sum_ && all_known(child_sum_)) {
      subtree_load_ = mine_ + std::accumulate(child_sum_.begin(), child_sum_.end(), std::int64_t{0});
      if (parent_ < 0) {
        set_total(subtree_load_);
      } else {
        auto w = letters.to(parent_);
        w.put(Record::up_sum);
        w.put(subtree_load_);
      }
      sent_sum_ = true;
    }
    if (has_total_ && !sent_total_) {
      for (const int c : children_) {
        auto w = letters.to(c);
        w.put(Record::down_total);
        w.put(total_);
      }
      sent_total_ = true;
    }
    if (has_total_ && !sent_heavy_ && all_known(child_heavy_)) {
      subtree_heavy_ = (heavy() ? 1 : 0) + std::accumulate(child_heavy_.begin(), child_heavy_.end(), std::int64_t{0});
      if (parent_ < 0) {
        const std::int64_t remainder = total_ % w_.nranks;
        const std::int64_t heavy_extras = std::min(remainder, subtree_heavy_);
        set_plan(heavy_extras, remainder - heavy_extras);
      } else {
        auto w = letters.to(parent_);
        w.put(Record::up_heavy);
        w.put(subtree_heavy_);
      }
      sent_heavy_ = true;
    }
    if (has_plan_ && !sent_plan_) {
      for (std::size_t i = 0; i < children_.size(); ++i) {
        auto w = letters.to(children_[i]);
        w.put(Record::down_plan);
        w.put(child_extras_[i].first);
        w.put(child_extras_[i].second);
      }
      sent_plan_ = true;
    }
    if (has_plan_ && !matched_) {
      const std::int64_t net = std::abs(subtree_load_ - subtree_target_);
      if (outside_total_ > net) throw std::logic_error("tree: more outside entries than the subtree's net flow");
      if (outside_total_ == net) match(letters);
    }
  }

  static bool all_known(const std::vector<std::int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x >= 0; });
  }

  [[nodiscard]] std::int64_t floor_average() const { return total_ / w_.nranks; }
  [[nodiscard]] bool heavy() const { return mine_ > floor_average(); }

  void set_total(std::int64_t total) {
    total_ = total;
    has_total_ = true;
  }

  void add_outside(const Entry& e) {
    outside_.push_back(e);
    outside_total_ += e.amount;
  }

  void instruct(std::int64_t to, std::int64_t amount) {
    instructions_.push_back({to, false, amount, amount});
    instructed_ += amount;
    if (instructed_ > std::max<std::int64_t>(excess_, 0) && matched_) {
      throw std::logic_error("tree: instructed to send more than the excess");
    }
  }

  // Splits the subtree's extra units (the remainder of total / ranks): first to itself,
  // then child by child, heavy extras only to ranks above floor(avg), light to the rest.
  void set_plan(std::int64_t heavy_extras, std::int64_t light_extras) {
    const std::int64_t q = floor_average();
    std::int64_t mine_target = q;
    if (heavy() && heavy_extras > 0) {
      ++mine_target;
      --heavy_extras;
    } else if (!heavy() && light_extras > 0) {
      ++mine_target;
      --light_extras;
    }
    excess_ = mine_ - mine_target;
    subtree_target_ = mine_target;
    child_extras_.clear();
    for (std::size_t i = 0; i < children_.size(); ++i) {
      const std::int64_t size = subtree_size(children_[i], p_.branching, w_.nranks);
      const std::int64_t h = std::min(heavy_extras, child_heavy_[i]);
      const std::int64_t l = std::min(light_extras, size - child_heavy_[i]);
      heavy_extras -= h;
      light_extras -= l;
      child_extras_.push_back({h, l});
      child_target_.push_back(q * size + h + l);
      subtree_target_ += child_target_.back();
    }
    if (heavy_extras != 0 || light_extras != 0) throw std::logic_error("tree: extras left over after the split");
    has_plan_ = true;
  }

  // Matches in order: suppliers (itself, child subtrees, then outside entries when the
  // subtree is a net receiver) against receivers (likewise).
  void match(Letters& letters) {
    std::vector<Entry> suppliers;
    std::vector<Entry> receivers;
    if (excess_ > 0) suppliers.push_back({me_, false, excess_, excess_});
    if (excess_ < 0) receivers.push_back({me_, false, -excess_, -excess_});
    for (std::size_t i = 0; i < children_.size(); ++i) {
      const std::int64_t s = child_sum_[i] - child_target_[i];
      if (s > 0) suppliers.push_back({children_[i], true, s, s});
      if (s < 0) receivers.push_back({children_[i], true, -s, -s});
    }
    std::sort(outside_.begin(), outside_.end());  // arrival order must not matter
    auto& outside_side = subtree_load_ > subtree_target_ ? receivers : suppliers;
    outside_side.insert(outside_side.end(), outside_.begin(), outside_.end());
    largest_list_ = std::max(largest_list_, static_cast<std::int64_t>(suppliers.size() + receivers.size()));

    std::size_t si = 0;
    std::size_t ri = 0;
    std::int64_t pair = 0;
    while (si < suppliers.size() && ri < receivers.size()) {
      const std::int64_t k = std::min(suppliers[si].amount, receivers[ri].amount);
      dispatch({suppliers[si].id, suppliers[si].subtree, k, suppliers[si].net},
               {receivers[ri].id, receivers[ri].subtree, k, receivers[ri].net}, pair++, letters);
      suppliers[si].amount -= k;
      receivers[ri].amount -= k;
      if (suppliers[si].amount == 0) ++si;
      if (receivers[ri].amount == 0) ++ri;
    }
    if (si != suppliers.size() || ri != receivers.size())
      throw std::logic_error("tree: suppliers and receivers differ");
    matched_ = true;
    if (instructed_ > std::max<std::int64_t>(excess_, 0)) throw std::logic_error("tree: instructed beyond the excess");
  }

  // The subtree rooted at `subtree_root` learns of `e`, as an outside entry at its root.
  static void give(Letters& letters, std::int64_t subtree_root, const Entry& e) {
    auto w = letters.to(static_cast<int>(subtree_root));
    w.put(Record::entry);
    put_entry(w, e);
  }

  // Which of two matched subtrees learns of the other. The poster sends either the
  // receivers list to the suppliers or the suppliers list to the receivers, at random.
  // Departure: the one that moves more learns of the other, and the coin decides only
  // between equals. The one that learns splits itself against the other, and a piece of
  // it that is still larger than the other learns of it again, so a small party meets a
  // few pieces a level; the other way round a large party would meet every small piece
  // it covers, at every level of the other tree, and each would be one more entry in its
  // list: lists that grow with the ranks under the small party, not with the levels.
  [[nodiscard]] bool supplier_learns(const Entry& s, const Entry& r, std::int64_t pair) const {
    if (s.net != r.net) return s.net > r.net;
    return (hash_of({ctx_.seed, tag(Stream::protocol_random), static_cast<std::uint64_t>(ctx_.invocation),
                     static_cast<std::uint64_t>(me_), static_cast<std::uint64_t>(pair)}) &
            1U) != 0;
  }

  // NOLINTBEGIN(bugprone-branch-clone): two cases give the same way, each for its own reason
  void dispatch(const Entry& s, const Entry& r, std::int64_t pair, Letters& letters) {
    if (!s.subtree && !r.subtree) {
      if (s.id == me_) {
        instruct(r.id, s.amount);
      } else {
        auto w = letters.to(static_cast<int>(s.id));
        w.put(Record::instruct);
        w.put(r.id);
        w.put(s.amount);
      }
    } else if (!s.subtree) {
      give(letters, r.id, s);
    } else if (!r.subtree) {
      give(letters, s.id, r);
    } else if (supplier_learns(s, r, pair)) {
      give(letters, s.id, r);  // the supplier subtree learns where to send
    } else {
      give(letters, r.id, s);  // the receiver subtree learns who supplies it
    }
  }
  // NOLINTEND(bugprone-branch-clone)

  // Carries the instructions in order with the heaviest units, taking a unit while at
  // least half of it fits under the running total of what this rank was told to send:
  // rounding never piles up, and with unit loads the amounts are exact.
  void choose_units() {
    std::vector<std::size_t> order(w_.units());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return w_.quanta[a] > w_.quanta[b]; });
    std::sort(instructions_.begin(), instructions_.end());
    std::vector<bool> taken(w_.units(), false);
    std::int64_t told = 0;
    std::int64_t sent = 0;
    for (const auto& ins : instructions_) {
      told += ins.amount;
      for (const std::size_t u : order) {
        if (taken[u] || 2 * sent + w_.quanta[u] > 2 * told) continue;
        taken[u] = true;
        owners_[u] = Rank{static_cast<int>(ins.id)};
        sent += w_.quanta[u];
      }
    }
    largest_list_ = std::max(largest_list_, static_cast<std::int64_t>(instructions_.size()));
    chosen_ = true;
  }

  RankWork w_;
  TreeParams p_;
  ProtocolContext ctx_;
  int me_ = 0;
  int parent_ = -1;
  std::vector<int> children_;
  std::int64_t mine_ = 0;

  std::vector<std::int64_t> child_sum_;    // -1 until known
  std::vector<std::int64_t> child_heavy_;  // -1 until known
  std::int64_t subtree_load_ = 0;
  std::int64_t subtree_heavy_ = 0;
  std::int64_t total_ = 0;
  bool sent_sum_ = false, has_total_ = false, sent_total_ = false, sent_heavy_ = false;

  bool has_plan_ = false;
  bool sent_plan_ = false;
  std::int64_t excess_ = 0;  // own load minus own target
  std::int64_t subtree_target_ = 0;
  std::vector<std::int64_t> child_target_;
  std::vector<std::pair<std::int64_t, std::int64_t>> child_extras_;  // heavy, light

  std::vector<Entry> outside_;
  std::int64_t outside_total_ = 0;
  bool matched_ = false;

  std::vector<Entry> instructions_;  // (receiving rank, amount) this rank must send
  std::int64_t instructed_ = 0;
  bool chosen_ = false;
  std::int64_t largest_list_ = 0;
  std::vector<Rank> owners_;
};

}  // namespace

int TreeBalancer::depth(int nranks) const {
  int levels = 0;  // below the root
  for (std::int64_t last = 0; last < nranks - 1;
       last = static_cast<std::int64_t>(params_.branching) * last + params_.branching) {
    ++levels;
  }
  return levels;
}

int TreeBalancer::sweep_rounds(int nranks) const { return 4 * depth(nranks) + 1; }

int TreeBalancer::expected_rounds(int nranks) const {
  const int d = depth(nranks);
  // The two sweeps take 4 rounds a level. The matches overlap the last sweep and then take
  // about one exchange a level (the learner's entry, its pieces back); a subtree matches
  // only once the levels above it matched, so the rounds after the sweeps grow as the
  // depths summed.
  return sweep_rounds(nranks) + d * (d + 1) / 2;
}

std::unique_ptr<RankProtocol> TreeBalancer::make_protocol(RankWork work, const ProtocolContext& ctx) const {
  return std::make_unique<TreeProtocol>(std::move(work), params_, ctx);
}

}  // namespace lbbench
