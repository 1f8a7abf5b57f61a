// "Did you mean" for misspelled keys and names.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace lbbench {

// Edit distance with adjacent transpositions (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate, if it is close enough to be a plausible typo.
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

// " Did you mean 'x'?" or the empty string.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);

}  // namespace lbbench
