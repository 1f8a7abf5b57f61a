#include "balancers/gossip/known_ranks.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/hash.hpp"

namespace lbbench {

namespace {

// Room after the last entry, so that reading any entry's bits, or writing the last word,
// stays inside the buffer.
constexpr std::size_t kPaddingBytes = 16;

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

// Writes fields of given widths one after another, 64 bits at a time.
class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* out) : out_(out) {}
  void put(std::uint64_t v, int width) {  // v < 2^width
    if (width == 0) return;
    word_ |= v << used_;
    const int total = used_ + width;
    if (total < 64) {
      used_ = total;
      return;
    }
    store();
    word_ = used_ == 0 ? 0 : v >> (64 - used_);
    used_ = total - 64;
  }
  void flush() {
    if (used_ > 0) store();
  }

 private:
  void store() {
    std::memcpy(out_, &word_, sizeof word_);
    out_ += sizeof word_;
  }

  std::uint8_t* out_;
  std::uint64_t word_ = 0;
  int used_ = 0;
};

}  // namespace

void KnownRanks::clear() {
  packed_.reset();
  overrides_.clear();
  size_ = 0;
}

void KnownRanks::update(int rank, std::int64_t load) {
  const auto it =
      std::lower_bound(overrides_.begin(), overrides_.end(), rank, [](const Known& k, int r) { return k.rank < r; });
  if (it != overrides_.end() && it->rank == rank) {
    it->load = load;
  } else {
    overrides_.insert(it, Known{static_cast<std::int32_t>(rank), load});
  }
}

void KnownRanks::merge(std::span<const Known> incoming, std::vector<Known>& merged) {
  merged.clear();
  merged.reserve(size_ + incoming.size());
  auto in = incoming.begin();
  visit_until([&](const Known& k) {
    for (; in != incoming.end() && in->rank < k.rank; ++in) merged.push_back(*in);
    if (in != incoming.end() && in->rank == k.rank) ++in;
    merged.push_back(k);
    return false;
  });
  merged.insert(merged.end(), in, incoming.end());
  pack(merged);
}

void KnownRanks::pack(std::span<const Known> entries) {
  std::uint64_t widest_gap = 0;
  std::uint64_t widest_load = 0;
  std::int64_t last = -1;
  for (const auto& [rank, load] : entries) {
    widest_gap |= static_cast<std::uint64_t>(rank - last);
    widest_load |= zigzag(load);
    last = rank;
  }
  gap_bits_ = std::bit_width(widest_gap);
  load_bits_ = std::bit_width(widest_load);
  const std::size_t bits = entries.size() * static_cast<std::size_t>(gap_bits_ + load_bits_);
  const std::size_t bytes = (bits + 7) / 8 + kPaddingBytes;
  // Packed in place when no copy shares the bytes, else anew; at exactly the size needed
  // when it grows (as assign does), since every rank's list is held at once.
  if (packed_ && packed_.use_count() == 1) {
    packed_->assign(bytes, 0);
  } else {
    packed_ = std::make_shared<std::vector<std::uint8_t>>(bytes, 0);
  }
  BitWriter out(packed_->data());
  last = -1;
  const int entry_bits = gap_bits_ + load_bits_;
  for (const auto& [rank, load] : entries) {
    const auto gap = static_cast<std::uint64_t>(rank - last);
    if (entry_bits <= 64) {  // the same bits as two puts, in one
      out.put(gap | zigzag(load) << gap_bits_, entry_bits);
    } else {
      out.put(gap, gap_bits_);
      out.put(zigzag(load), load_bits_);
    }
    last = rank;
  }
  out.flush();
  overrides_.clear();
  size_ = entries.size();
}

void KnownRanks::append_to(std::vector<Known>& into) const {
  into.reserve(into.size() + size_);
  visit_until([&](const Known& k) {
    into.push_back(k);
    return false;
  });
}

std::vector<Known> KnownRanks::sample(std::span<const Known> entries, std::size_t count, std::uint64_t draws) {
  if (count >= entries.size()) return {entries.begin(), entries.end()};
  std::vector<Known> out;
  if (count == 0) return out;
  thread_local std::vector<std::size_t> picked;
  thread_local std::vector<bool> taken;
  picked.clear();
  taken.assign(entries.size(), false);
  for (std::size_t j = entries.size() - count; j < entries.size(); ++j) {
    const auto t = static_cast<std::size_t>(hash_more(draws, j) % (j + 1));
    const std::size_t pick = taken[t] ? j : t;
    taken[pick] = true;
    picked.push_back(pick);
  }
  std::sort(picked.begin(), picked.end());
  out.reserve(count);
  for (const std::size_t at : picked) out.push_back(entries[at]);
  return out;
}

}  // namespace lbbench
