// The scenario parser on arbitrary YAML.
#include "fuzz_input.hpp"
#include "scenario/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return lbbench::fuzz::expecting_input_errors([&] {
    const YAML::Node root = lbbench::load_yaml_string(text, "fuzz.yaml");
    (void)lbbench::parse_scenario(root, "fuzz.yaml");
  });
}
