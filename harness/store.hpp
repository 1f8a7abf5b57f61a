// The record store: JSON Lines files that only ever grow by whole lines.
//
// A record is appended with one write() on a file opened O_APPEND, then fsync'd, so a
// sweep killed at any moment leaves either the whole line or none of it. A line cut short
// anyway (a crash of the machine mid-write) is removed, with a warning, the next time the
// file is opened for appending; every complete line before it is kept.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/json_yaml.hpp"

namespace lbbench {

// Appends records to one file.
class RecordStore {
 public:
  // Creates the file (and its folder) if needed, and cuts an incomplete last line.
  explicit RecordStore(std::filesystem::path file);
  void append(const Json& record) const;
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  // How many bytes of an incomplete last line were cut when the store was opened.
  [[nodiscard]] std::size_t repaired_bytes() const { return repaired_bytes_; }

 private:
  std::filesystem::path file_;
  std::size_t repaired_bytes_ = 0;
};

// Every record in a file, or in every *.jsonl file under a folder (recursively, in path
// order). Lines that are not JSON objects are skipped and counted in `skipped`.
struct RecordSet {
  std::vector<Json> records;
  std::vector<std::string> skipped;  // "file:line: why"
};
RecordSet read_records(const std::filesystem::path& file_or_folder);

// Sweep run ids seen in the records: "ok" when any record of the id finished, "failed"
// when only failures were recorded.
std::map<std::string, std::string> run_statuses(const std::vector<Json>& records);

// run_statuses of every record under a sweep's results folder; empty if it does not exist.
std::map<std::string, std::string> recorded_statuses(const std::filesystem::path& results);

// The last `lines` lines of a text file (for failure records).
std::vector<std::string> tail_lines(const std::filesystem::path& file, std::size_t lines);

}  // namespace lbbench
