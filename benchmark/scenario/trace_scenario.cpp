// The scenario of `lbbench run --trace SOURCE` (see scenario.hpp).
#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "meshes/trace/trace.hpp"
#include "scenario/scenario.hpp"

namespace lbbench {

namespace {

// The name of a trace source: its folder's, or its file's without the rank and suffix.
std::string trace_name(const std::string& source) {
  std::filesystem::path p(source);
  while (!p.empty() && (p.filename().empty() || p.filename() == ".")) p = p.parent_path();
  std::string name = p.filename().string();
  if (name.find("%r") != std::string::npos || name.find_first_of("*?[") != std::string::npos)
    name = p.parent_path().filename().string();
  return name.empty() ? std::string("trace") : name;
}

}  // namespace

std::string trace_scenario_yaml(const std::string& source) {
  const Trace& trace = *read_trace_once(source);
  const nlohmann::json file(source);  // a JSON string is a YAML string, quoted as needed
  return fmt::format(
      "name: {}\n"
      "steps: {}\n"
      "mesh:\n"
      "  file: {}\n"
      "  format: lbdatafile\n",
      nlohmann::json(trace_name(source)).dump(), trace.layout->phases(), file.dump());
}

int trace_ranks(const std::string& source) { return read_trace_once(source)->layout->ranks; }

Scenario scenario_from_trace_yaml(const std::string& yaml, std::span<const std::string> overrides,
                                  SchemaRecorder* recorder) {
  YAML::Node root = load_yaml_string(yaml, kTraceScenarioName);
  for (const auto& o : overrides) apply_override(root, o);
  return parse_scenario(root, kTraceScenarioName, recorder);
}

Scenario load_run_scenario(const std::string& file, const std::string& trace, std::span<const std::string> overrides,
                           SchemaRecorder* recorder) {
  if (trace.empty()) return load_scenario(file, overrides, recorder);
  return scenario_from_trace_yaml(trace_scenario_yaml(trace), overrides, recorder);
}

}  // namespace lbbench
