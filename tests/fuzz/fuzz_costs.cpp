// The costs file reader on arbitrary files.
#include "fuzz_input.hpp"
#include "scenario/costs_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = lbbench::fuzz::as_file(data, size, "costs.json");
  return lbbench::fuzz::expecting_input_errors([&] { (void)lbbench::read_costs_file(path); });
}
