// The LBDatafile reader on arbitrary files, plain or brotli-compressed.
#include "fuzz_input.hpp"
#include "meshes/trace/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = lbbench::fuzz::as_file(data, size, "data.0.json");
  return lbbench::fuzz::expecting_input_errors([&] { (void)lbbench::read_trace_files({path}); });
}
