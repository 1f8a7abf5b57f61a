// The sweep file reader on arbitrary files, next to a small valid scenario they may name
// (base.yaml), so expansion and validation run too.
#include "fuzz_input.hpp"
#include "harness/sweep.hpp"

namespace {

constexpr const char* kBase = R"(name: base
steps: 2
mesh: {generator: grid2d, nx: 4, ny: 4}
balancer: {name: greedy, period: 1}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string base =
      lbbench::fuzz::as_file(reinterpret_cast<const std::uint8_t*>(kBase), std::string_view(kBase).size(), "base.yaml");
  (void)base;
  const std::string path = lbbench::fuzz::as_file(data, size, "sweep.yaml");
  return lbbench::fuzz::expecting_input_errors([&] { (void)lbbench::load_sweep(path); });
}
