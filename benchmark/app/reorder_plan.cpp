// `lbbench reorder` (see reorder_plan.hpp).
#include "app/reorder_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "balancers/reorder/reorder.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

double parse_number(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty()) throw InputError(fmt::format("{}: '{}' is not a number", what, text));
  return value;
}

int parse_count(const std::string& text, const std::string& what) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1) {
    throw InputError(fmt::format("{}: '{}' is not a positive count", what, text));
  }
  return value;
}

// "4x20,2x20,1x24" is twenty 4s, twenty 2s and twenty-four 1s; a bare "3" is one 3.
std::vector<double> expand_runs(const std::string& list, const std::string& option) {
  std::vector<double> out;
  std::stringstream in(list);
  std::string token;
  while (std::getline(in, token, ',')) {
    const std::string what = fmt::format("{} '{}'", option, token);
    const auto x = token.find('x');
    const double value = parse_number(token.substr(0, x), what);
    const int count = x == std::string::npos ? 1 : parse_count(token.substr(x + 1), what);
    out.insert(out.end(), static_cast<std::size_t>(count), value);
  }
  if (out.empty())
    throw InputError(fmt::format("{} is empty; write it as VALUExCOUNT,... e.g. 4x20,2x20,1x24", option));
  return out;
}

// One or more numbers per line, separated by spaces or commas; '#' starts a comment.
std::vector<double> read_loads_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read the loads file", path));
  std::vector<double> loads;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::stringstream words(line);
    std::string word;
    while (words >> word) loads.push_back(parse_number(word, fmt::format("{}:{}", path, number)));
  }
  if (loads.empty()) throw InputError(fmt::format("{}: no loads in the file", path));
  return loads;
}

std::vector<double> loads_of(const ReorderRequest& r) {
  if (r.loads.empty() == r.loads_file.empty())
    throw InputError("give the loads with exactly one of --loads and --loads-file");
  return r.loads.empty() ? read_loads_file(r.loads_file) : expand_runs(r.loads, "--loads");
}

// Processes per core: --per-core-list, --per-core, or n spread as evenly as it goes.
std::vector<int> processes_per_core(const ReorderRequest& r, int n) {
  if (r.per_core && !r.per_core_list.empty()) throw InputError("give at most one of --per-core and --per-core-list");
  std::vector<int> counts;
  if (!r.per_core_list.empty()) {
    for (double c : expand_runs(r.per_core_list, "--per-core-list")) {
      if (c < 1 || c != static_cast<int>(c))
        throw InputError(fmt::format("--per-core-list: {} is not a process count", c));
      counts.push_back(static_cast<int>(c));
    }
    if (r.cores && r.cores != static_cast<int>(counts.size())) {
      throw InputError(fmt::format("--cores {} but --per-core-list describes {} cores", r.cores, counts.size()));
    }
  } else {
    if (r.cores < 1) throw InputError("give --cores P (or --per-core-list)");
    if (r.per_core) {
      counts.assign(static_cast<std::size_t>(r.cores), r.per_core);
    } else {
      for (int c = 0; c < r.cores; ++c) counts.push_back(n / r.cores + (c < n % r.cores ? 1 : 0));
    }
  }
  const int slots = std::accumulate(counts.begin(), counts.end(), 0);
  if (slots != n) {
    throw InputError(
        fmt::format("there are {} loads but the cores hold {} processes; give one load per process", n, slots));
  }
  if (std::find(counts.begin(), counts.end(), 0) != counts.end()) {
    throw InputError(fmt::format("{} processes cannot fill {} cores; use at most {} cores", n, counts.size(), n));
  }
  return counts;
}

reorder::Method method_of(const std::string& name) {
  try {
    return reorder::parse_method(name);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("--method: {}", e.what()));
  }
}

std::string describe_cores(const reorder::SlotLayout& layout) {
  const int low = layout.capacity.front(), high = layout.capacity.back();
  if (low == high) return fmt::format("{} per core", low);
  return fmt::format("{} to {} per core", low, high);
}

void print_plan(const std::vector<double>& loads, const reorder::SlotLayout& layout, const std::vector<int>& plan,
                reorder::Method method, double seconds) {
  const auto sums = reorder::core_loads(loads, layout, plan);
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  fmt::print("rank reorder · {} processes on {} cores ({}) · method {}\n", layout.slots(), layout.cores(),
             describe_cores(layout), reorder::method_name(method));
  fmt::print("  max core load {:g}; lower bound {:g}; average {:g}; without reordering {:g}; planned in {:.3g} ms\n",
             *std::max_element(sums.begin(), sums.end()), reorder::lower_bound(loads, layout), total / layout.cores(),
             reorder::max_core_load(loads, layout, reorder::plan_identity(layout)), 1e3 * seconds);
  fmt::print("  {:>4}  {:>9}  {:>8}  {}\n", "core", "processes", "load", "process -> new rank (load)");
  const auto slots_of_core = layout.slots_by_core();
  for (int c = 0; c < layout.cores(); ++c) {
    std::string members;
    for (int s : slots_of_core[static_cast<std::size_t>(c)]) {
      const int rank = plan[static_cast<std::size_t>(s)];
      members +=
          fmt::format("{}{} -> {} ({:g})", members.empty() ? "" : ", ", s, rank, loads[static_cast<std::size_t>(rank)]);
    }
    fmt::print("  {:>4}  {:>9}  {:>8g}  {}\n", c, slots_of_core[static_cast<std::size_t>(c)].size(),
               sums[static_cast<std::size_t>(c)], members);
  }
  std::string perm;
  for (int rank : plan) perm += fmt::format(" {}", rank);
  fmt::print("  permutation, new rank of process 0..{}:{}\n", layout.slots() - 1, perm);
}

// What the exact search proved, when it could not prove its plan optimal.
std::string unproven_note(const reorder::ExactResult& r, const std::vector<double>& loads,
                          const reorder::SlotLayout& layout) {
  if (r.proven) return "";
  const double found = reorder::max_core_load(loads, layout, r.plan);
  return fmt::format(
      "not proven optimal: the search stopped after {} nodes; the best plan found is {:.2f}% above the "
      "lower bound {:g}",
      r.nodes, r.lower_bound > 0 ? 100 * (found / r.lower_bound - 1) : 0.0, r.lower_bound);
}

// A method's plan, and for the exact search whether it proved it optimal.
reorder::ExactResult plan_with_proof(reorder::Method m, const std::vector<double>& loads,
                                     const reorder::SlotLayout& layout, const reorder::PlanOptions& options) {
  if (m == reorder::Method::exact) return reorder::search_exact(loads, layout, options.max_nodes);
  return {.plan = reorder::make_plan(m, loads, layout, options)};
}

void print_comparison(const std::vector<double>& loads, const reorder::SlotLayout& layout,
                      const reorder::PlanOptions& options) {
  fmt::print("  {:>8}  {:>14}  {:>12}\n", "method", "max core load", "planned in");
  for (std::string_view name : reorder::method_names()) {
    const reorder::Method m = reorder::parse_method(name);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = plan_with_proof(m, loads, layout, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("  {:>8}  {:>14g}  {:>9.3g} ms{}\n", name, reorder::max_core_load(loads, layout, r.plan), 1e3 * seconds,
               r.proven ? "" : "  (not proven optimal)");
  }
}

}  // namespace

int plan_reorder(const ReorderRequest& request) {
  const std::vector<double> loads = loads_of(request);
  const reorder::SlotLayout layout =
      reorder::layout_from_counts(processes_per_core(request, static_cast<int>(loads.size())));
  const reorder::Method method = method_of(request.method);
  reorder::PlanOptions options;
  options.levels = request.levels;
  options.seed = request.seed;
  options.max_nodes = request.max_nodes;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const reorder::ExactResult r = plan_with_proof(method, loads, layout, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_plan(loads, layout, r.plan, method, seconds);
    if (!r.proven) fmt::print("  {}\n", unproven_note(r, loads, layout));
    if (request.compare) print_comparison(loads, layout, options);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  return 0;
}

}  // namespace lbbench
