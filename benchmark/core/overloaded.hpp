// The usual helper for std::visit with one lambda per alternative.
#pragma once

namespace lbbench {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
// C++20 deduces this for aggregates, but clang did not until version 17.
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace lbbench
