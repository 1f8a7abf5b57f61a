// What one gossiping rank knows of the underloaded ranks: a list of (rank, load), sorted by
// rank, as compact as a list that every rank holds can be.
//
// The model engine and SMPI hold every rank's list in one process, and with a message limit
// a list grows to about fanout x info_limit x rounds entries, so at a million ranks 16-byte
// structs would not fit in a large node's memory. Packed, each entry is the gap to the
// previous rank and the load (zigzagged, so negative loads survive), each in as many bits
// as the list's largest needs. Fixed widths, not varints, so that reading an entry takes
// no branch: every gossip round reads every rank's whole list.
//
// The packed entries are never changed while another copy reads them: a merge packs anew,
// and the few loads a rank learns or guesses while transferring (an answer's real load, an
// offer it expects to be taken) are kept apart, in a short sorted list that overrides the
// packed entries. So a copy of the list shares the packed entries, which the engines'
// timing needs: every round of a rank runs twice, the first time on a copy of its state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace lbbench {

// What a rank knows of one underloaded rank.
struct Known {
  std::int32_t rank;
  std::int64_t load;
  friend bool operator==(const Known&, const Known&) = default;
};

class KnownRanks {
 public:
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  void clear();

  // Changes the load known for a rank already known.
  void update(int rank, std::int64_t load);

  // Adds the entries of a list sorted by rank, with no rank twice; what is already known
  // stays (during gossip every entry of one rank carries that rank's own load, so either
  // copy would do). Leaves every entry of the merged list in `merged`, in rank order.
  void merge(std::span<const Known> incoming, std::vector<Known>& merged);

  // `count` entries of a list (at most all), drawn so that every subset of that size is
  // equally likely, in rank order: Floyd's algorithm over the positions, the draw for
  // position j being hash_more(draws, j). A draw per entry drawn, not per entry known.
  [[nodiscard]] static std::vector<Known> sample(std::span<const Known> entries, std::size_t count,
                                                 std::uint64_t draws);

  // Appends every entry, in rank order.
  void append_to(std::vector<Known>& into) const;

  // Calls visit(entry) for every entry in rank order, until it returns true; says whether
  // it did.
  template <class Visit>
  bool visit_until(Visit&& visit) const;

  // Bytes the packed entries take.
  [[nodiscard]] std::size_t packed_bytes() const { return packed_ ? packed_->size() : 0; }

 private:
  class Reader;
  void pack(std::span<const Known> entries);

  std::shared_ptr<std::vector<std::uint8_t>> packed_;
  int gap_bits_ = 0;
  int load_bits_ = 0;
  std::vector<Known> overrides_;  // sorted by rank, all of them known; win over the packed loads
  std::size_t size_ = 0;
};

// Reads the packed entries in order.
class KnownRanks::Reader {
 public:
  explicit Reader(const KnownRanks& list)
      : data_(list.packed_ ? list.packed_->data() : nullptr),
        left_(list.size_),
        gap_bits_(list.gap_bits_),
        load_bits_(list.load_bits_),
        entry_bits_(gap_bits_ + load_bits_),
        gap_mask_((std::uint64_t{1} << gap_bits_) - 1) {}
  [[nodiscard]] bool done() const { return left_ == 0; }
  Known next() {
    --left_;
    std::uint64_t gap = 0;
    std::uint64_t z = 0;
    if (entry_bits_ <= 64) {  // the usual case: both fields in one read
      const std::uint64_t both = bits(entry_bits_);
      gap = both & gap_mask_;
      z = both >> gap_bits_;
    } else {
      gap = bits(gap_bits_);
      z = bits(load_bits_);
    }
    rank_ += static_cast<std::int64_t>(gap);
    return Known{static_cast<std::int32_t>(rank_),
                 static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1)};
  }

 private:
  // The next `width` bits (the packed bytes end in padding, so the 9 bytes read are there).
  std::uint64_t bits(int width) {
    const std::uint8_t* at = data_ + (bit_ >> 3);
    const unsigned shift = bit_ & 7;
    std::uint64_t word = 0;
    std::memcpy(&word, at, sizeof word);
    word >>= shift;
    if (shift + static_cast<unsigned>(width) > 64) word |= static_cast<std::uint64_t>(at[8]) << (64 - shift);
    bit_ += static_cast<std::size_t>(width);
    return width == 64 ? word : word & ((std::uint64_t{1} << width) - 1);
  }

  const std::uint8_t* data_;
  std::size_t left_;
  int gap_bits_;  // 1 to 32 (ranks increase), 0 for an empty list
  int load_bits_;
  int entry_bits_;
  std::uint64_t gap_mask_;
  std::size_t bit_ = 0;
  std::int64_t rank_ = -1;
};

template <class Visit>
bool KnownRanks::visit_until(Visit&& visit) const {
  Reader packed(*this);
  auto over = overrides_.begin();
  while (!packed.done()) {
    Known k = packed.next();
    if (over != overrides_.end() && over->rank == k.rank) k.load = (over++)->load;
    if (visit(k)) return true;
  }
  return false;
}

}  // namespace lbbench
