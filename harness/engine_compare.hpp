// `lbbench report RESULTS --engines REF`: the same cases run on several engines, side by
// side. A case here is a scenario, a rank count and the sweep axes other than the balancer,
// the engine and the machine (a real run's machine may be `local`, its simulated twin's a
// preset). Each balancer's row gives, per engine, the median total, compute, wait and LB
// cost (decision plus migration) over its runs, with the reference engine's range, and
// every other engine's median over the reference's; each case says whether the engines
// order the balancers alike by total.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"

namespace lbbench {

// One engine's runs of a balancer in a case, part by part.
struct EngineRuns {
  std::vector<double> total;
  std::vector<double> compute;
  std::vector<double> wait;
  std::vector<double> lb;  // decision plus migration
};

struct EngineRow {
  std::string balancer;
  std::map<std::string, EngineRuns> by_engine;
};

struct EngineCase {
  std::string scenario;
  int ranks = 0;
  std::string axes;
  std::vector<EngineRow> rows;
};

std::vector<EngineCase> compare_engines(const std::vector<Json>& records);

// Markdown tables against `reference` (an engine every case has runs of). Throws
// InputError when no case has runs of the reference and of another engine.
std::string engines_markdown(const std::vector<EngineCase>& cases, const std::string& reference);

}  // namespace lbbench
