// "Did you mean" for misspelled keys and names.
#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace lbbench {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    const std::size_t dist = edit_distance(word, c);
    if (!best || dist < best_distance) {
      best = c;
      best_distance = dist;
    }
  }
  // A third of the word's length, at least 2, separates typos from different words.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  if (best && best_distance <= limit && best_distance < std::max(word.size(), best->size())) return best;
  return std::nullopt;
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  if (auto m = closest_match(word, candidates)) return " Did you mean '" + *m + "'?";
  return {};
}

}  // namespace lbbench
