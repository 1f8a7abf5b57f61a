// vt's LBStatsfile, read for the rank-load imbalance it recorded per phase (see trace.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>

#include "meshes/trace/trace.hpp"

namespace lbbench {

// What the reader keeps of one LBStatsfile.
struct StatsFile {
  std::string file;
  std::string statistic;                                    // see TraceStats
  std::map<std::int64_t, std::optional<double>> imbalance;  // per phase id; none where vt wrote no number
};

// The document's type is LBStatsfile: its metadata's where it has one, else the top
// level's (as the data reader reads an LBDatafile's).
bool is_stats_document(const nlohmann::json& doc);

// Checks the file against vt's LBStatsfile schema as far as the replay reads it (each
// level's keys, types, a phase's id and pre-LB statistics) and keeps the pre-LB rank-load
// `imb` per phase. Throws InputError naming the file, the JSON path and what was expected.
StatsFile read_stats_file(const nlohmann::json& doc, const std::string& path);

// The statistics per phase of the trace; `note` says which phases only one side has, or
// stays empty.
TraceStats align_stats(const StatsFile& stats, std::span<const std::int64_t> phase_ids, std::string& note);

}  // namespace lbbench
