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

// Writes one entry: its gap and its zigzagged load, one field after the other.
void put_entry(BitWriter& out, std::uint64_t gap, std::uint64_t load, int gap_bits, int load_bits) {
  if (gap_bits + load_bits <= 64) {  // the same bits as two puts, in one
    out.put(gap | load << gap_bits, gap_bits + load_bits);
  } else {
    out.put(gap, gap_bits);
    out.put(load, load_bits);
  }
}

// Copies `count` bits of `from`, starting at bit `bit`, 64 at a time.
void copy_bits(BitWriter& out, const std::uint8_t* from, std::size_t bit, std::size_t count) {
  for (; count >= 64; count -= 64, bit += 64) out.put(read_bits(from, bit, 64), 64);
  if (count > 0) out.put(read_bits(from, bit, static_cast<int>(count)), static_cast<int>(count));
}

}  // namespace

// Reads the ranks of the packed entries in order, skipping their loads.
class KnownRanks::RankWalk {
 public:
  explicit RankWalk(const KnownRanks& list)
      : data_(list.packed_ ? list.packed_->data() : nullptr),
        gap_bits_(list.gap_bits_),
        entry_bits_(static_cast<std::size_t>(list.gap_bits_ + list.load_bits_)) {}
  std::int64_t next() {
    rank_ += static_cast<std::int64_t>(read_bits(data_, bit_, gap_bits_));
    bit_ += entry_bits_;
    return rank_;
  }

 private:
  const std::uint8_t* data_;
  int gap_bits_;
  std::size_t entry_bits_;
  std::size_t bit_ = 0;
  std::int64_t rank_ = -1;
};

void KnownRanks::clear() {
  packed_.reset();
  gap_bits_ = 0;
  load_bits_ = 0;
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

void KnownRanks::merge(std::span<const Known> incoming) {
  if (incoming.empty()) return;
  if (!overrides_.empty()) {  // a splice would keep the packed loads they replace
    repack(incoming);
    return;
  }
  thread_local std::vector<Insertion> insertions;
  insertions.clear();
  const Widths widths = plan_merge(incoming, insertions);
  if (insertions.empty()) return;
  if (widths == Widths{gap_bits_, load_bits_}) {
    splice(insertions);
  } else {
    repack(incoming);
  }
}

// Reads the old ranks only: with no overrides every old load stays, so their widest is
// what the old width says.
KnownRanks::Widths KnownRanks::plan_merge(std::span<const Known> incoming, std::vector<Insertion>& insertions) const {
  std::uint64_t widest_gap = 0;
  std::uint64_t widest_new_load = 0;
  std::int64_t last = -1;  // the merged list's rank before the entry at hand
  const auto insert = [&](const Known& k, std::size_t before, std::int64_t next) {
    insertions.push_back({before, k, last, next});
    widest_gap |= static_cast<std::uint64_t>(k.rank - last);
    widest_new_load |= zigzag(k.load);
    last = k.rank;
  };
  auto in = incoming.begin();
  RankWalk old(*this);
  for (std::size_t index = 0; index < size_; ++index) {
    const std::int64_t rank = old.next();
    for (; in != incoming.end() && in->rank < rank; ++in) insert(*in, index, rank);
    if (in != incoming.end() && in->rank == rank) ++in;
    widest_gap |= static_cast<std::uint64_t>(rank - last);
    last = rank;
  }
  for (; in != incoming.end(); ++in) insert(*in, size_, -1);
  return {static_cast<int>(std::bit_width(widest_gap)),
          std::max(load_bits_, static_cast<int>(std::bit_width(widest_new_load)))};
}

void KnownRanks::splice(std::span<const Insertion> insertions) {
  const std::size_t size = size_ + insertions.size();
  const auto entry_bits = static_cast<std::size_t>(gap_bits_ + load_bits_);
  auto spliced = std::make_shared<std::vector<std::uint8_t>>((size * entry_bits + 7) / 8 + kPaddingBytes, 0);
  const std::uint8_t* old = packed_->data();
  BitWriter out(spliced->data());
  std::size_t copied = 0;  // old entries written
  for (std::size_t i = 0; i < insertions.size(); ++i) {
    const Insertion& at = insertions[i];
    copy_bits(out, old, copied * entry_bits, (at.before - copied) * entry_bits);
    copied = at.before;
    put_entry(out, static_cast<std::uint64_t>(at.entry.rank - at.previous), zigzag(at.entry.load), gap_bits_,
              load_bits_);
    const bool last_here = i + 1 == insertions.size() || insertions[i + 1].before != at.before;
    if (last_here && at.before < size_) {  // the old entry after it, with its gap from it
      const std::uint64_t load =
          read_bits(old, at.before * entry_bits + static_cast<std::size_t>(gap_bits_), load_bits_);
      put_entry(out, static_cast<std::uint64_t>(at.next - at.entry.rank), load, gap_bits_, load_bits_);
      ++copied;
    }
  }
  copy_bits(out, old, copied * entry_bits, (size_ - copied) * entry_bits);
  out.flush();
  packed_ = std::move(spliced);
  size_ = size;
}

void KnownRanks::repack(std::span<const Known> incoming) {
  thread_local std::vector<Known> merged;
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
  for (const auto& [rank, load] : entries) {
    put_entry(out, static_cast<std::uint64_t>(rank - last), zigzag(load), gap_bits_, load_bits_);
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

std::vector<Known> KnownRanks::sample(std::size_t count, std::uint64_t draws) const {
  std::vector<Known> out;
  if (count >= size_) {
    append_to(out);
    return out;
  }
  if (count == 0) return out;
  out.reserve(count);
  RankWalk ranks(*this);  // the loads are read at the positions drawn only
  std::size_t walked = 0;
  std::int64_t rank = -1;
  for (const std::size_t at : sample_positions(size_, count, draws)) {
    for (; walked <= at; ++walked) rank = ranks.next();
    out.push_back({static_cast<std::int32_t>(rank), load_at(at, static_cast<std::int32_t>(rank))});
  }
  return out;
}

std::int64_t KnownRanks::load_at(std::size_t index, std::int32_t rank) const {
  const auto over =
      std::lower_bound(overrides_.begin(), overrides_.end(), rank, [](const Known& k, int r) { return k.rank < r; });
  if (over != overrides_.end() && over->rank == rank) return over->load;
  const auto entry_bits = static_cast<std::size_t>(gap_bits_ + load_bits_);
  return unzigzag(read_bits(packed_->data(), index * entry_bits + static_cast<std::size_t>(gap_bits_), load_bits_));
}

std::span<const std::size_t> KnownRanks::sample_positions(std::size_t size, std::size_t count, std::uint64_t draws) {
  thread_local std::vector<std::size_t> picked;
  thread_local std::vector<bool> taken;
  picked.clear();
  taken.assign(size, false);
  for (std::size_t j = size - count; j < size; ++j) {
    const auto t = static_cast<std::size_t>(hash_more(draws, j) % (j + 1));
    const std::size_t pick = taken[t] ? j : t;
    taken[pick] = true;
    picked.push_back(pick);
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace lbbench
