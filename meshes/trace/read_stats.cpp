// Reading vt's LBStatsfile beside a trace (see stats_file.hpp).
//
// The checks follow the LBStatsfile schema of vt's validator: a `phases` list, each phase
// an `id`, its `pre-LB` statistics, optionally `post-LB` ones and a `migration count`; a
// statistic (Rank_load_modeled, Object_comm, ...) holds avg, car, imb, kur, max, min, npr,
// skw, std, sum and var. Two leniencies, as the data reader's: an integer is taken for a
// float, and only the rank-load statistic the replay compares with is required.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "meshes/trace/json_text.hpp"
#include "meshes/trace/stats_file.hpp"

namespace lbbench {

namespace {

constexpr std::string_view kRaw = "Rank_load_raw";
constexpr std::string_view kModeled = "Rank_load_modeled";

// The statistic's quantities; `imb` is max/avg - 1.
void check_statistic(const JsonAt& s) {
  s.expect_object("a statistic ({avg, car, imb, kur, max, min, npr, skw, std, sum, var})",
                  {"avg", "car", "imb", "kur", "max", "min", "npr", "skw", "std", "sum", "var"});
  for (const auto& [key, value] : s.value().items()) {
    // nlohmann, which vt writes with, writes a NaN (the imbalance of a phase with no load) as null.
    if (!value.is_null()) (void)s.at(key).number();
  }
}

void check_statistics(const JsonAt& at) {
  at.expect_object("the statistics of a phase",
                   {"Object_comm", "Object_load_modeled", "Object_load_raw", "Object_strategy_specific_load_modeled",
                    "Rank_comm", "Rank_load_modeled", "Rank_load_raw", "Rank_strategy_specific_load_modeled"});
  for (const auto& [key, value] : at.value().items()) check_statistic(at.at(key));
}

void check_stats_type(const JsonAt& top) {
  for (const std::optional<JsonAt>& where : {top.find("type"), top.find("metadata")}) {
    if (!where) continue;
    const bool metadata = where->path() == "metadata";
    if (metadata) where->expect_object("the metadata", {"type"});
    const std::optional<JsonAt> type = metadata ? where->find("type") : where;
    if (type && type->string() != "LBStatsfile")
      type->fail(fmt::format("expected \"LBStatsfile\", got \"{}\"", type->string()));
  }
}

// A phase's pre-LB imbalance of `statistic`; none where vt wrote null.
std::optional<double> imbalance_of(const JsonAt& pre, std::string_view statistic) {
  const JsonAt imb = pre.at(statistic).at("imb");
  if (imb.value().is_null()) return std::nullopt;
  return imb.number();
}

// "1, 2, 3, 4, 5, ... (12 in all)": the first few ids of a list.
std::string id_list(const std::vector<std::int64_t>& ids) {
  constexpr std::size_t kShown = 5;
  if (ids.size() <= kShown) return fmt::format("{}", fmt::join(ids, ", "));
  return fmt::format("{}, ... ({} in all)", fmt::join(ids.begin(), ids.begin() + kShown, ", "), ids.size());
}

}  // namespace

bool is_stats_document(const nlohmann::json& doc) {
  if (!doc.is_object()) return false;
  const auto metadata = doc.find("metadata");
  const nlohmann::json& holder =
      metadata != doc.end() && metadata->is_object() && metadata->contains("type") ? *metadata : doc;
  const auto type = holder.find("type");
  return type != holder.end() && type->is_string() && type->get<std::string>() == "LBStatsfile";
}

StatsFile read_stats_file(const nlohmann::json& doc, const std::string& path) {
  const JsonAt top(doc, path);
  top.expect_object("an LBStatsfile (an object with 'phases')", {"type", "metadata", "phases"});
  check_stats_type(top);
  const auto phases = top.at("phases").elements("a list of phases");
  // vt's raw loads are the measured ones; it falls back on the modeled where it has none.
  const bool raw = std::all_of(phases.begin(), phases.end(), [](const JsonAt& p) {
    const auto pre = p.value().find("pre-LB");
    return pre != p.value().end() && pre->is_object() && pre->contains(kRaw);
  });
  StatsFile out{.file = path, .statistic = std::string(raw ? kRaw : kModeled), .imbalance = {}};
  for (const JsonAt& p : phases) {
    p.expect_object("a phase of statistics", {"id", "migration count", "pre-LB", "post-LB"});
    const std::int64_t id = p.at("id").integer();
    if (auto m = p.find("migration count")) (void)m->integer();
    const JsonAt pre = p.at("pre-LB");
    check_statistics(pre);
    if (auto post = p.find("post-LB")) check_statistics(*post);
    if (!pre.has(out.statistic))
      pre.fail(fmt::format("missing '{}' (and '{}'): no rank load to compare", kModeled, kRaw));
    if (!out.imbalance.emplace(id, imbalance_of(pre, out.statistic)).second)
      p.at("id").fail(fmt::format("phase {} appears twice in this file", id));
  }
  return out;
}

TraceStats align_stats(const StatsFile& stats, std::span<const std::int64_t> phase_ids, std::string& note) {
  TraceStats out{.file = stats.file, .statistic = stats.statistic, .imbalance = {}};
  std::vector<std::int64_t> without;  // the data's phases the statistics lack
  for (const std::int64_t id : phase_ids) {
    const auto it = stats.imbalance.find(id);
    out.imbalance.push_back(it == stats.imbalance.end() ? std::nullopt : it->second);
    if (it == stats.imbalance.end()) without.push_back(id);
  }
  std::vector<std::int64_t> beyond;  // the statistics' phases the data lack
  for (const auto& [id, imb] : stats.imbalance) {
    if (!std::binary_search(phase_ids.begin(), phase_ids.end(), id)) beyond.push_back(id);
  }
  note.clear();
  if (without.empty() && beyond.empty()) return out;
  note = fmt::format(
      "{}: vt's statistics and the data hold different phases: {} of the {} phases of the data have no "
      "statistics{}{}; the replay is compared with vt's where both have the phase",
      stats.file, without.size(), phase_ids.size(), without.empty() ? "" : fmt::format(" ({})", id_list(without)),
      beyond.empty() ? "" : fmt::format(", and the statistics' phases {} are not in the data", id_list(beyond)));
  return out;
}

}  // namespace lbbench
