// One table per enumeration, pairing each value with the one string that names it, so that
// parsing, normalizing and messages all read the same strings.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lbbench {

template <class E>
struct Named {
  E value;
  std::string_view name;
};

template <class E, std::size_t N>
using NameTable = std::array<Named<E>, N>;

template <class E, std::size_t N>
constexpr std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// The names in table order, for choices and "did you mean".
template <class E, std::size_t N>
std::vector<std::string> names_of(const NameTable<E, N>& table) {
  std::vector<std::string> out;
  out.reserve(N);
  for (const auto& entry : table) out.emplace_back(entry.name);
  return out;
}

// The value a name stands for; the name must be one the table lists (parsers check it
// against names_of first, with a located error).
template <class E, std::size_t N>
E value_named(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& entry : table) {
    if (entry.name == name) return entry.value;
  }
  throw std::invalid_argument("no value is named '" + std::string(name) + "'");
}

}  // namespace lbbench
