// The usual helper for std::visit with one lambda per alternative.
#pragma once

namespace lbbench {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};

}  // namespace lbbench
