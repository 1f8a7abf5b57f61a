// Reading and checking an LBDatafile trace (see trace.hpp).
//
// The checks follow vt's LBDatafile schema, which LBAF's validator loads: the keys each
// level may have, which are required, and their types; then what a replay needs on top:
// ids that refer to tasks of the trace, a task recorded once per phase (so on one rank),
// an entity that stays migratable or not, times that are not negative. Three departures,
// all lenient: a JSON integer is taken where the schema asks for a float (`"time": 1`),
// newer vt's habit of recording a communication in both the sender's and the receiver's
// file is undone (a record seen again in another file is counted once), and a `home` that
// changes between phases (LBAF writes a migrated task's new rank there) keeps the first
// phase's, with a note. A file typed LBStatsfile among them is vt's statistics of the run
// (read_stats.cpp), kept beside the trace rather than refused.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <glob.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <unordered_map>

#include "core/blocks.hpp"
#include "core/error.hpp"
#include "meshes/trace/json_text.hpp"
#include "meshes/trace/stats_file.hpp"
#include "meshes/trace/trace.hpp"

namespace lbbench {

namespace {

namespace fs = std::filesystem;

// Subphase ids run 0..kMaxSubphases-1: every task holds a time per id and phase.
constexpr int kMaxSubphases = 256;

// --- the files -------------------------------------------------------------------------------

// The last number in a file's name (data.12.json -> 12), or -1.
std::int64_t rank_in_name(const std::string& path) {
  static const std::regex number(R"((\d+))");
  const std::string name = fs::path(path).filename().string();
  std::int64_t last = -1;
  for (auto it = std::sregex_iterator(name.begin(), name.end(), number); it != std::sregex_iterator(); ++it) {
    try {
      last = std::stoll(it->str());
    } catch (const std::out_of_range&) {
      last = -1;
    }
  }
  return last;
}

// The name with its rank number replaced by %r: files of one data set share it.
std::string data_set_of(const std::string& path) {
  static const std::regex last_number(R"((\d+)(\D*)$)");
  return std::regex_replace(fs::path(path).filename().string(), last_number, "%r$2");
}

void sort_by_rank(std::vector<std::string>& files) {
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    const auto ra = rank_in_name(a), rb = rank_in_name(b);
    return ra != rb ? ra < rb : a < b;
  });
}

std::vector<std::string> files_of_pattern(const std::string& pattern) {
  std::vector<std::string> out;
  for (std::int64_t r = 0;; ++r) {
    std::string path = pattern;
    for (auto at = path.find("%r"); at != std::string::npos; at = path.find("%r", at))
      path.replace(at, 2, std::to_string(r));
    std::error_code error;
    if (!fs::exists(path, error)) break;
    out.push_back(path);
  }
  if (out.empty()) {
    std::string first = pattern;
    first.replace(first.find("%r"), 2, "0");
    throw InputError(fmt::format("{}: no trace file for rank 0 ({} does not exist)", pattern, first));
  }
  return out;
}

std::vector<std::string> files_of_glob(const std::string& pattern) {
  glob_t found{};
  const int status = ::glob(pattern.c_str(), 0, nullptr, &found);
  std::vector<std::string> out;
  if (status == 0) {
    for (std::size_t i = 0; i < found.gl_pathc; ++i) {
      std::error_code error;
      if (fs::is_regular_file(found.gl_pathv[i], error)) out.emplace_back(found.gl_pathv[i]);
    }
  }
  globfree(&found);
  if (out.empty()) throw InputError(fmt::format("{}: no trace file matches", pattern));
  return out;
}

bool is_json_name(const std::string& name) { return name.ends_with(".json") || name.ends_with(".json.br"); }

std::string only_stats_message(const std::string& where, const std::vector<std::string>& stats) {
  std::vector<std::string> names;
  names.reserve(stats.size());
  for (const auto& f : stats) names.push_back(fs::path(f).filename().string());
  return fmt::format(
      "{}: holds only vt's load statistics (LBStatsfile: {}) and no LBDatafile; a replay needs the data files "
      "(vt's --vt_lb_data writes them, data.<rank>.json)",
      where, fmt::join(names, ", "));
}

// The folder's data sets (files named alike but for their rank number), each with its
// files, and vt's statistics set aside: a set is statistics when its first file's type
// says so. Types are looked at only when there is more than one set, the one case that was
// an error before statistics were recognized, so a plain folder is read as it was.
struct FolderSets {
  std::map<std::string, std::vector<std::string>> data;
  std::vector<std::string> stats;
};

FolderSets sets_of_folder(const std::vector<std::string>& files) {
  FolderSets out;
  for (const auto& f : files) out.data[data_set_of(f)].push_back(f);
  if (out.data.size() == 1) return out;
  for (auto it = out.data.begin(); it != out.data.end();) {
    auto& set = it->second;
    std::sort(set.begin(), set.end());
    if (json_document_type(set.front()) != "LBStatsfile") {
      ++it;
      continue;
    }
    out.stats.insert(out.stats.end(), set.begin(), set.end());
    it = out.data.erase(it);
  }
  return out;
}

std::vector<std::string> files_of_folder(const std::string& folder) {
  std::vector<std::string> out;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    std::error_code kind_error;
    if (it->is_regular_file(kind_error) && is_json_name(it->path().filename().string()))
      out.push_back(it->path().string());
  }
  if (error) throw InputError(fmt::format("{}: cannot list the folder: {}", folder, error.message()));
  if (out.empty()) throw InputError(fmt::format("{}: the folder holds no .json or .json.br trace file", folder));
  const FolderSets sets = sets_of_folder(out);
  if (sets.data.empty()) throw InputError(only_stats_message(folder, sets.stats));
  if (sets.data.size() > 1) {
    std::vector<std::string> names;
    for (const auto& [name, files] : sets.data) names.push_back(name);
    throw InputError(fmt::format("{}: the folder holds {} data sets ({}); name one with a pattern, for example {}",
                                 folder, names.size(), fmt::join(names, ", "),
                                 (fs::path(folder) / names.front()).string()));
  }
  return out;  // the statistics too: the reader sets them aside by their type
}

// --- one file's records --------------------------------------------------------------------------

// How the trace names an entity: by its bit-packed id, its sequential id, or (for
// communications with a whole rank) the rank's number.
enum class KeyKind : std::uint8_t { id, seq_id, node };
struct Key {
  KeyKind kind = KeyKind::id;
  std::int64_t value = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 flags the 0 a defaulted <=> compares with
  friend auto operator<=>(const Key&, const Key&) = default;
};

// Where a record is: a file and a JSON path, kept compactly and written out on error.
struct Where {
  int file = 0;
  std::int32_t phase = 0;  // index in the file's phases array
  std::int32_t item = 0;   // index in the phase's tasks or communications
};

struct RawTask {
  Key key;
  TraceEntity entity;
  std::int64_t phase_id = 0;
  int node = 0;
  double time = 0;
  std::vector<std::pair<int, double>> subphases;
  Where where;
};

struct RawEnd {
  Key key;
  std::optional<Key> other;  // an entity named by both id and seq_id
};

struct RawComm {
  std::int64_t phase_id = 0;
  std::string type;
  RawEnd from, to;
  double bytes = 0;
  std::int64_t messages = 0;
  Where where;
};

struct FileRecords {
  std::vector<RawTask> tasks;
  std::vector<RawComm> comms;
  std::optional<std::int64_t> rank;  // metadata.rank
};

// The schema's rule for entities and communication ends: an id or a seq_id, and a
// collection for a migratable entity named by seq_id.
void check_ids(const JsonAt& e) {
  if (!e.has("id") && !e.has("seq_id")) e.fail("needs an 'id' (bit-packed) or a 'seq_id'");
  if (e.has("seq_id") && !e.has("collection_id") && e.find("migratable") && e.at("migratable").boolean())
    e.fail("a migratable entity named by seq_id needs a 'collection_id'");
}

std::vector<std::int64_t> read_index(const JsonAt& at) {
  std::vector<std::int64_t> out;
  for (const auto& i : at.elements("an index (a list of integers)")) out.push_back(i.integer());
  return out;
}

TraceEntity read_entity(const JsonAt& e) {
  e.expect_object("an entity", {"home", "type", "migratable", "id", "seq_id", "collection_id", "index", "objgroup_id"});
  check_ids(e);
  TraceEntity out;
  if (auto id = e.find("id")) out.id = id->integer();
  if (auto seq = e.find("seq_id")) out.seq_id = seq->integer();
  const std::int64_t home = e.at("home").integer();
  if (home < 0 || home > INT_MAX) e.at("home").fail(fmt::format("expected a rank number, got {}", home));
  out.home = static_cast<int>(home);
  out.type = e.at("type").string();
  out.migratable = e.at("migratable").boolean();
  if (auto c = e.find("collection_id")) out.collection_id = c->integer();
  if (auto o = e.find("objgroup_id")) out.objgroup_id = o->integer();
  if (auto i = e.find("index")) out.index = read_index(*i);
  return out;
}

Key key_of(const TraceEntity& e) { return e.id ? Key{KeyKind::id, *e.id} : Key{KeyKind::seq_id, *e.seq_id}; }

RawEnd read_end(const JsonAt& e) {
  e.expect_object("a communication end",
                  {"type", "id", "seq_id", "home", "collection_id", "migratable", "index", "objgroup_id"});
  check_ids(e);
  // Check every key's type, even those the replay does not need.
  for (const char* k : {"home", "collection_id", "objgroup_id"}) {
    if (auto v = e.find(k)) (void)v->integer();
  }
  if (auto m = e.find("migratable")) (void)m->boolean();
  if (auto i = e.find("index")) (void)read_index(*i);
  RawEnd out;
  const bool has_id = e.has("id");
  const bool has_seq = e.has("seq_id");
  const std::int64_t id = has_id ? e.at("id").integer() : 0;
  const std::int64_t seq = has_seq ? e.at("seq_id").integer() : 0;
  if (e.at("type").string() == "node") {
    if (!has_id) e.fail("a node end names its rank with 'id'");
    out.key = Key{KeyKind::node, id};
    return out;
  }
  out.key = has_id ? Key{KeyKind::id, id} : Key{KeyKind::seq_id, seq};
  if (has_id && has_seq) out.other = Key{KeyKind::seq_id, seq};
  return out;
}

RawTask read_task(const JsonAt& t) {
  t.expect_object("a task", {"entity", "node", "resource", "time", "subphases", "user_defined", "attributes"});
  RawTask out;
  out.entity = read_entity(t.at("entity"));
  out.key = key_of(out.entity);
  const std::int64_t node = t.at("node").integer();
  if (node < 0 || node > INT_MAX) t.at("node").fail(fmt::format("expected a rank number, got {}", node));
  out.node = static_cast<int>(node);
  (void)t.at("resource").string();
  out.time = t.at("time").number();
  if (out.time < 0) t.at("time").fail(fmt::format("a task's time is never negative, got {}", out.time));
  if (auto subs = t.find("subphases")) {
    std::set<std::int64_t> seen;
    for (const auto& s : subs->elements("a list of subphases ({id, time})")) {
      s.expect_object("a subphase", {"id", "time"});
      const std::int64_t id = s.at("id").integer();
      if (id < 0 || id >= kMaxSubphases)
        s.at("id").fail(fmt::format("expected a subphase id in 0..{}, got {}", kMaxSubphases - 1, id));
      if (!seen.insert(id).second) s.at("id").fail(fmt::format("subphase {} is listed twice for this task", id));
      const double time = s.at("time").number();
      if (time < 0) s.at("time").fail(fmt::format("a subphase's time is never negative, got {}", time));
      out.subphases.emplace_back(static_cast<int>(id), time);
    }
  }
  for (const char* k : {"user_defined", "attributes"}) {
    if (auto v = t.find(k); v && !v->value().is_object())
      v->fail(fmt::format("expected an object, got {}", describe_json(v->value())));
  }
  return out;
}

RawComm read_comm(const JsonAt& c) {
  c.expect_object("a communication", {"type", "from", "to", "messages", "bytes"});
  RawComm out;
  out.type = c.at("type").string();
  out.from = read_end(c.at("from"));
  out.to = read_end(c.at("to"));
  out.messages = c.at("messages").integer();
  if (out.messages < 0) c.at("messages").fail(fmt::format("a message count is never negative, got {}", out.messages));
  out.bytes = c.at("bytes").number();
  if (out.bytes < 0) c.at("bytes").fail(fmt::format("a byte count is never negative, got {}", out.bytes));
  return out;
}

void check_phase_list(const JsonAt& l) {
  l.expect_object("a phase list ({list, range})", {"list", "range"});
  for (const auto& i : l.at("list").elements("a list of phase ids")) (void)i.integer();
  for (const auto& r : l.at("range").elements("a list of [first, last] phase ranges")) (void)read_index(r);
}

std::optional<std::int64_t> read_metadata(const JsonAt& m) {
  m.expect_object("the metadata", {"type", "rank", "rank_alpha", "shared_node", "phases", "attributes"});
  std::optional<std::int64_t> rank;
  if (auto r = m.find("rank")) {
    rank = r->integer();
    if (*rank < 0 || *rank > INT_MAX) r->fail(fmt::format("expected a rank number, got {}", *rank));
  }
  // vt's schema allows a rank's speed factor; the replay gives every rank the machine's.
  if (auto a = m.find("rank_alpha"); a && a->number() < 0)
    a->fail(fmt::format("a rank's alpha is never negative, got {}", a->number()));
  if (auto s = m.find("shared_node")) {
    s->expect_object("the shared node", {"id", "size", "rank", "num_nodes"});
    for (const char* k : {"id", "size", "rank", "num_nodes"}) (void)s->at(k).integer();
  }
  if (auto p = m.find("phases")) {
    p->expect_object("the phase metadata", {"count", "skipped", "identical_to_previous"});
    if (auto c = p->find("count")) (void)c->integer();
    check_phase_list(p->at("skipped"));
    check_phase_list(p->at("identical_to_previous"));
  }
  if (auto a = m.find("attributes"); a && !a->value().is_object())
    a->fail(fmt::format("expected an object, got {}", describe_json(a->value())));
  return rank;
}

// The file says what it is, at the top or under metadata (vt writes it there).
void check_type(const JsonAt& top) {
  std::optional<JsonAt> type = top.find("type");
  if (auto m = top.find("metadata"); m && m->value().is_object() && m->has("type")) type = m->at("type");
  if (!type) top.fail("missing 'type': expected \"LBDatafile\" at the top level or under 'metadata'");
  const std::string t = type->string();
  if (t != "LBDatafile") type->fail(fmt::format("expected \"LBDatafile\", got \"{}\"", t));
  if (auto top_type = top.find("type"); top_type && top_type->string() != "LBDatafile")
    top_type->fail(fmt::format("expected \"LBDatafile\", got \"{}\"", top_type->string()));
}

// The tasks and communications of one phase (or of one of its lb_iterations, which are
// checked and not replayed).
void read_phase_body(const JsonAt& p, std::int64_t phase_id, Where where, FileRecords* out) {
  const auto tasks = p.at("tasks").elements("a list of tasks");
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    RawTask t = read_task(tasks[i]);
    if (!out) continue;
    t.phase_id = phase_id;
    t.where = Where{where.file, where.phase, static_cast<std::int32_t>(i)};
    out->tasks.push_back(std::move(t));
  }
  if (auto comms = p.find("communications")) {
    const auto list = comms->elements("a list of communications");
    for (std::size_t i = 0; i < list.size(); ++i) {
      RawComm c = read_comm(list[i]);
      if (!out) continue;
      c.phase_id = phase_id;
      c.where = Where{where.file, where.phase, static_cast<std::int32_t>(i)};
      out->comms.push_back(std::move(c));
    }
  }
  if (auto u = p.find("user_defined"); u && !u->value().is_object())
    u->fail(fmt::format("expected an object, got {}", describe_json(u->value())));
}

FileRecords read_file_records(const nlohmann::json& doc, const std::string& path, int file_index) {
  const JsonAt top(doc, path);
  top.expect_object("an LBDatafile (an object with 'phases')", {"type", "metadata", "phases"});
  check_type(top);
  FileRecords out;
  if (auto m = top.find("metadata")) out.rank = read_metadata(*m);
  const auto phases = top.at("phases").elements("a list of phases");
  std::set<std::int64_t> ids;
  for (std::size_t k = 0; k < phases.size(); ++k) {
    const JsonAt& p = phases[k];
    p.expect_object("a phase", {"id", "tasks", "communications", "user_defined", "lb_iterations"});
    const std::int64_t id = p.at("id").integer();
    if (!ids.insert(id).second) p.at("id").fail(fmt::format("phase {} appears twice in this file", id));
    const Where where{file_index, static_cast<std::int32_t>(k), 0};
    read_phase_body(p, id, where, &out);
    if (auto iterations = p.find("lb_iterations")) {
      for (const auto& it : iterations->elements("a list of LB iterations")) {
        it.expect_object("an LB iteration", {"id", "tasks", "communications", "user_defined"});
        (void)it.at("id").integer();
        read_phase_body(it, id, where, nullptr);
      }
    }
  }
  return out;
}

// --- the whole trace -----------------------------------------------------------------------------

class TraceBuilder {
 public:
  explicit TraceBuilder(std::vector<std::string> files) : given_(std::move(files)) {}

  Trace build() {
    std::vector<FileRecords> records = read_files();
    collect_phases(records);
    collect_tasks(records);
    note_home_changes();
    count_ranks(records);
    collect_comms(records);
    Trace out = assemble();
    note_moves(out);
    out.notes = notes_;
    return out;
  }

  // The data files' records, in the order given; files typed LBStatsfile are read as the
  // statistics instead, and files_ keeps the data files alone.
  std::vector<FileRecords> read_files() {
    std::vector<FileRecords> records;
    records.reserve(given_.size());
    for (const std::string& path : given_) {
      const nlohmann::json doc = read_json_document(path);
      if (is_stats_document(doc)) {
        stats_.push_back(read_stats_file(doc, path));
        continue;
      }
      records.push_back(read_file_records(doc, path, static_cast<int>(files_.size())));
      files_.push_back(path);
    }
    if (files_.empty()) {
      std::vector<std::string> stats;
      for (const auto& s : stats_) stats.push_back(s.file);
      const fs::path folder = fs::path(given_.front()).parent_path();
      throw InputError(only_stats_message(folder.empty() ? given_.front() : folder.string(), stats));
    }
    return records;
  }

  // vt writes one statistics file a run; with several, which one the data belong to is
  // not known, so the replay is compared with none of them.
  [[nodiscard]] std::optional<TraceStats> trace_stats() {
    if (stats_.size() > 1) {
      std::vector<std::string> names;
      for (const auto& s : stats_) names.push_back(s.file);
      notes_.push_back(
          fmt::format("{}: {} LBStatsfile files ({}); the replay is compared with none (keep the one of "
                      "the recorded run beside the data)",
                      data_set(), stats_.size(), fmt::join(names, ", ")));
    }
    if (stats_.size() != 1) return std::nullopt;
    std::string note;
    TraceStats out = align_stats(stats_.front(), phase_ids_, note);
    // A note, not an error: vt writes statistics at its LB points (every vt_lb_interval
    // phases) and data for the phases asked, so they often differ; the data alone are replayed.
    if (!note.empty()) notes_.push_back(note);
    return out;
  }

 private:
  struct Task {
    TraceEntity entity;  // with the home of its first phase
    int first_phase = INT_MAX;
    int first_rank = 0;
    Where first_where;                                    // the record read first: the others must agree with it
    std::vector<std::pair<int, const RawTask*>> records;  // (phase index, record)
  };
  struct Link {
    double bytes = 0;
    std::int64_t messages = 0;
  };

  [[nodiscard]] std::string where_text(const Where& w, std::string_view list) const {
    return fmt::format("{}: phases[{}].{}[{}]", files_[static_cast<std::size_t>(w.file)], w.phase, list, w.item);
  }
  [[noreturn]] void fail_at(const Where& w, std::string_view list, const std::string& message) const {
    throw InputError(fmt::format("{}: {}", where_text(w, list), message));
  }

  void collect_phases(const std::vector<FileRecords>& records) {
    std::set<std::int64_t> ids;
    for (const auto& r : records) {
      for (const auto& t : r.tasks) ids.insert(t.phase_id);
      for (const auto& c : r.comms) ids.insert(c.phase_id);
    }
    phase_ids_.assign(ids.begin(), ids.end());
    if (phase_ids_.empty()) throw InputError(fmt::format("{}: the trace records no task in any phase", files_.front()));
  }

  [[nodiscard]] int phase_index(std::int64_t id) const {
    return static_cast<int>(std::lower_bound(phase_ids_.begin(), phase_ids_.end(), id) - phase_ids_.begin());
  }

  // A task runs on one rank in a phase: a second record of it is an error, which says
  // where each has it when they disagree.
  void check_recorded_once(std::map<std::pair<Key, int>, const RawTask*>& seen, const RawTask& raw, int phase) const {
    auto [it, fresh] = seen.emplace(std::pair(raw.key, phase), &raw);
    if (fresh) return;
    const RawTask& first = *it->second;
    const std::string again = first.node == raw.node
                                  ? fmt::format("(first at {})", where_text(first.where, "tasks"))
                                  : fmt::format(
                                        "on rank {} (first at {}, on rank {}): a task runs on one rank in a "
                                        "phase",
                                        raw.node, where_text(first.where, "tasks"), first.node);
    fail_at(raw.where, "tasks",
            fmt::format("the task {} of phase {} is recorded again {}", describe(raw.key), raw.phase_id, again));
  }

  void collect_tasks(const std::vector<FileRecords>& records) {
    std::map<std::pair<Key, int>, const RawTask*> seen;  // (entity, phase) -> its record
    for (const auto& r : records) {
      for (const auto& raw : r.tasks) {
        const int phase = phase_index(raw.phase_id);
        check_recorded_once(seen, raw, phase);
        auto [pos, fresh] = index_.emplace(raw.key, tasks_.size());
        if (fresh) {
          tasks_.push_back(Task{.entity = raw.entity, .first_where = raw.where, .records = {}});
          if (raw.entity.id && raw.entity.seq_id) alias_.emplace(Key{KeyKind::seq_id, *raw.entity.seq_id}, raw.key);
        }
        Task& task = tasks_[pos->second];
        check_same_entity(task, raw);
        task.records.emplace_back(phase, &raw);
        if (phase < task.first_phase) {
          task.first_phase = phase;
          task.first_rank = raw.node;
          task.entity.home = raw.entity.home;
        }
        max_subphase_ = std::max(max_subphase_, raw.subphases.empty() ? -1 : max_subphase_of(raw));
      }
    }
  }

  static int max_subphase_of(const RawTask& t) {
    int m = -1;
    for (const auto& [id, time] : t.subphases) m = std::max(m, id);
    return m;
  }

  static std::string describe(const Key& k) {
    switch (k.kind) {
      case KeyKind::id: return fmt::format("with id {}", k.value);
      case KeyKind::seq_id: return fmt::format("with seq_id {}", k.value);
      case KeyKind::node: return fmt::format("node {}", k.value);
    }
    return "?";
  }

  // The home may change (see note_home_changes); what the entity is may not.
  void check_same_entity(const Task& task, const RawTask& raw) const {
    const TraceEntity& a = task.entity;
    const TraceEntity& b = raw.entity;
    if (a.migratable != b.migratable || a.collection_id != b.collection_id || a.objgroup_id != b.objgroup_id) {
      fail_at(raw.where, "tasks",
              fmt::format("the entity {} differs from its first record at {} (migratable, collection or object "
                          "group changed)",
                          describe(raw.key), where_text(task.first_where, "tasks")));
    }
  }

  // vt keeps a task's home; LBAF writes a migrated task's new rank there. Either way the
  // first phase's is the home, and one note says how many tasks had another.
  void note_home_changes() {
    std::int64_t changed = 0;
    const RawTask* example = nullptr;
    for (const Task& t : tasks_) {
      const auto other = std::find_if(t.records.begin(), t.records.end(),
                                      [&](const auto& r) { return r.second->entity.home != t.entity.home; });
      if (other == t.records.end()) continue;
      ++changed;
      if (!example) example = other->second;
    }
    if (changed == 0) return;
    notes_.push_back(fmt::format(
        "{}: {} of the {} tasks change home between phases (as LBAF writes a migrated task; first at {}); each keeps "
        "the home of its first phase",
        data_set(), changed, tasks_.size(), where_text(example->where, "tasks")));
  }

  // The replay starts every task where it ran first; one note says when the recorded run
  // had moved some later, and what its own placement's imbalance was.
  void note_moves(const Trace& trace) {
    const TraceLayout& l = *trace.layout;
    std::int64_t moved = 0;
    for (std::int64_t v = 0; v < l.pinned_from; ++v) {
      for (int p = 0; p < l.phases(); ++p) {
        const int node = l.node(VertexId{v}, p);
        if (node >= 0 && node != l.first_rank[static_cast<std::size_t>(v)]) {
          ++moved;
          break;
        }
      }
    }
    if (moved == 0) return;
    const int last = l.phases() - 1;
    notes_.push_back(fmt::format(
        "{}: {} tasks run on another rank in a later phase than in their first; the replay starts each where it ran "
        "first and leaves the rest to its balancer (the recorded placement's imbalance, max/avg - 1: {:.4f} at phase "
        "{}, {:.4f} at phase {})",
        data_set(), moved, recorded_imbalance(l, 0), l.phase_ids.front(), recorded_imbalance(l, last),
        l.phase_ids.back()));
  }

  // The files as one name: their folder and the rank pattern of the first's name.
  [[nodiscard]] std::string data_set() const {
    const fs::path first(files_.front());
    return (first.parent_path() / data_set_of(files_.front())).string();
  }

  void count_ranks(const std::vector<FileRecords>& records) {
    ranks_ = static_cast<std::int64_t>(files_.size());
    for (const auto& t : tasks_) ranks_ = std::max<std::int64_t>(ranks_, t.first_rank + 1);
    for (const auto& r : records) {
      if (r.rank) ranks_ = std::max(ranks_, *r.rank + 1);
      for (const auto& t : r.tasks) ranks_ = std::max<std::int64_t>(ranks_, t.node + 1);
    }
    if (ranks_ > (1 << 24)) throw InputError(fmt::format("{}: the trace names rank {}", files_.front(), ranks_ - 1));
  }

  // The task an end names, or a new pinned vertex for a node end.
  std::size_t resolve(const RawEnd& end, const RawComm& c, std::string_view side) {
    if (end.key.kind == KeyKind::node) {
      if (end.key.value < 0 || end.key.value >= ranks_)
        fail_at(c.where, "communications",
                fmt::format("{}: node {} is not a rank of the trace (0..{})", side, end.key.value, ranks_ - 1));
      auto [pos, fresh] = index_.emplace(end.key, tasks_.size());
      if (fresh) {
        TraceEntity node;
        node.id = end.key.value;
        node.type = "node";
        node.home = static_cast<int>(end.key.value);
        node.migratable = false;
        tasks_.push_back(
            Task{.entity = node, .first_phase = 0, .first_rank = node.home, .first_where = c.where, .records = {}});
      }
      return pos->second;
    }
    for (const std::optional<Key>& k : {std::optional(end.key), end.other}) {
      if (!k) continue;
      if (auto it = index_.find(*k); it != index_.end()) return it->second;
      if (auto a = alias_.find(*k); a != alias_.end()) return index_.at(a->second);
    }
    fail_at(
        c.where, "communications",
        fmt::format("{}: the entity {} is no task of the trace (in no phase of any file)", side, describe(end.key)));
  }

  void collect_comms(const std::vector<FileRecords>& records) {
    // (phase, type, from, to) -> (bytes, messages, file): the same record in two files is
    // one communication (newer vt writes it at both ends).
    std::map<std::tuple<int, std::string, std::size_t, std::size_t>, std::pair<Link, int>> unique;
    for (const auto& r : records) {
      for (const auto& c : r.comms) {
        ++communications_;
        const std::size_t from = resolve(c.from, c, "from");
        const std::size_t to = resolve(c.to, c, "to");
        messages_ += c.messages;
        if (from == to) {
          ++self_;
          continue;
        }
        auto key = std::tuple(phase_index(c.phase_id), c.type, from, to);
        auto [it, fresh] = unique.emplace(key, std::pair(Link{c.bytes, c.messages}, c.where.file));
        if (!fresh && it->second.second != c.where.file) {
          it->second.first.bytes = std::max(it->second.first.bytes, c.bytes);
          it->second.first.messages = std::max(it->second.first.messages, c.messages);
        } else if (!fresh) {
          it->second.first.bytes += c.bytes;
          it->second.first.messages += c.messages;
        }
      }
    }
    for (const auto& [key, link] : unique) {
      auto [phase, type, from, to] = key;
      auto& l = links_[std::minmax(from, to)];
      l.bytes += link.first.bytes;
      l.messages += link.first.messages;
    }
  }

  Trace assemble() {
    // Vertex order: migratable tasks by (first rank, key), then the pinned ones likewise.
    std::vector<std::size_t> order(tasks_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<Key> keys(tasks_.size());
    for (const auto& [key, i] : index_) keys[i] = key;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Task& ta = tasks_[a];
      const Task& tb = tasks_[b];
      if (ta.entity.migratable != tb.entity.migratable) return ta.entity.migratable;
      if (ta.first_rank != tb.first_rank) return ta.first_rank < tb.first_rank;
      return keys[a] < keys[b];
    });
    std::vector<std::int64_t> vertex_of(tasks_.size());
    for (std::size_t v = 0; v < order.size(); ++v) vertex_of[order[v]] = static_cast<std::int64_t>(v);

    auto layout = std::make_shared<TraceLayout>();
    layout->ranks = static_cast<int>(ranks_);
    layout->files = static_cast<int>(files_.size());
    layout->phase_ids = phase_ids_;
    layout->subphases = max_subphase_ + 1;
    layout->stats = trace_stats();
    const auto n = tasks_.size();
    const auto phases = phase_ids_.size();
    const auto slots = static_cast<std::size_t>(layout->slots_per_phase());
    layout->first_rank.resize(n);
    layout->entity.resize(n);
    layout->times.assign(n * phases * slots, 0.0);
    layout->nodes.assign(n * phases, -1);
    layout->pinned_from = static_cast<std::int64_t>(n);
    layout->movable_begin.assign(static_cast<std::size_t>(ranks_) + 1, 0);
    for (std::size_t v = 0; v < n; ++v) {
      const Task& t = tasks_[order[v]];
      layout->first_rank[v] = t.first_rank;
      layout->entity[v] = t.entity;
      if (!t.entity.migratable && layout->pinned_from == static_cast<std::int64_t>(n))
        layout->pinned_from = static_cast<std::int64_t>(v);
      if (t.entity.migratable) ++layout->movable_begin[static_cast<std::size_t>(t.first_rank) + 1];
      for (const auto& [phase, raw] : t.records) {
        layout->nodes[v * phases + static_cast<std::size_t>(phase)] = raw->node;
        double* at = &layout->times[(v * phases + static_cast<std::size_t>(phase)) * slots];
        at[TraceLayout::time_slot()] = raw->time;
        double in_subphases = 0;
        for (const auto& [id, time] : raw->subphases) {
          at[TraceLayout::subphase_slot(id)] = time;
          in_subphases += time;
        }
        at[layout->rest_slot()] = std::max(0.0, raw->time - in_subphases);
      }
    }
    for (std::size_t r = 0; r < static_cast<std::size_t>(ranks_); ++r)
      layout->movable_begin[r + 1] += layout->movable_begin[r];

    Trace out;
    out.files = files_;
    out.communications = communications_;
    out.self_communications = self_;
    out.messages = messages_;
    const double per_step = 2.0 * static_cast<double>(phases);
    for (const auto& [pair, link] : links_) {
      auto [a, b] = std::minmax(vertex_of[pair.first], vertex_of[pair.second]);
      const double bytes = std::round(link.bytes / per_step);
      if (bytes > static_cast<double>(INT32_MAX))
        throw InputError(fmt::format("{}: a communication carries {} bytes per step, more than lbbench's 2^31 - 1",
                                     files_.front(), bytes));
      out.edges.push_back(TraceEdge{a, b, static_cast<std::int64_t>(bytes)});
    }
    std::sort(out.edges.begin(), out.edges.end(),
              [](const TraceEdge& x, const TraceEdge& y) { return std::pair(x.a, x.b) < std::pair(y.a, y.b); });
    out.layout = std::move(layout);
    return out;
  }

  std::vector<std::string> given_;  // data and statistics
  std::vector<std::string> files_;  // the data files
  std::vector<StatsFile> stats_;
  std::vector<std::int64_t> phase_ids_;
  std::vector<Task> tasks_;
  std::map<Key, std::size_t> index_;
  std::map<Key, Key> alias_;  // seq_id -> id of tasks named by both
  std::map<std::pair<std::size_t, std::size_t>, Link> links_;
  std::int64_t ranks_ = 1;
  int max_subphase_ = -1;
  std::int64_t communications_ = 0;
  std::int64_t self_ = 0;
  std::int64_t messages_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace

Rank TraceLayout::start_rank(VertexId v, int nranks) const {
  const auto t = static_cast<std::int64_t>(first_rank[static_cast<std::size_t>(v.value())]);
  const std::int64_t p = nranks;
  const std::int64_t first = t * p / ranks;
  const std::int64_t last = (t + 1) * p / ranks;  // exclusive
  if (last - first <= 1 || is_pinned(v)) return Rank{static_cast<int>(first)};
  const std::int64_t begin = movable_begin[static_cast<std::size_t>(t)];
  const std::int64_t count = movable_begin[static_cast<std::size_t>(t) + 1] - begin;
  return Rank{static_cast<int>(first + block_owner(v.value() - begin, count, static_cast<int>(last - first)))};
}

std::vector<double> recorded_rank_work(const TraceLayout& trace, int phase) {
  std::vector<double> out(static_cast<std::size_t>(trace.ranks), 0.0);
  for (std::int64_t v = 0; v < trace.vertices(); ++v) {
    const int node = trace.node(VertexId{v}, phase);
    if (node >= 0) out[static_cast<std::size_t>(node)] += trace.time(VertexId{v}, phase, TraceLayout::time_slot());
  }
  return out;
}

double recorded_imbalance(const TraceLayout& trace, int phase) {
  const std::vector<double> work = recorded_rank_work(trace, phase);
  double total = 0;
  for (const double w : work) total += w;
  const double mean = total / static_cast<double>(work.size());
  return mean > 0 ? *std::max_element(work.begin(), work.end()) / mean - 1.0 : 0.0;
}

std::vector<std::string> trace_files(const std::string& source) {
  std::vector<std::string> files;
  if (source.find("%r") != std::string::npos) {
    files = files_of_pattern(source);
  } else if (source.find_first_of("*?[") != std::string::npos) {
    files = files_of_glob(source);
  } else {
    // The non-throwing overload: a name the system refuses (too long, no permission) is bad input, not a crash.
    std::error_code error;
    const fs::file_status status = fs::status(source, error);
    if (fs::is_directory(status)) {
      files = files_of_folder(source);
    } else if (fs::exists(status)) {
      files = {source};
    } else {
      throw InputError(fmt::format("{}: no such trace file or folder ({})", source,
                                   error ? error.message() : std::string("not found")));
    }
  }
  sort_by_rank(files);
  return files;
}

Trace read_trace(const std::string& source) { return read_trace_files(trace_files(source)); }

std::shared_ptr<const Trace> read_trace_once(const std::string& source) {
  static std::mutex guard;
  static std::map<std::string, std::pair<std::string, std::shared_ptr<const Trace>>> read;
  const std::vector<std::string> files = trace_files(source);
  std::string stamp;  // what the files are now
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = fs::file_size(f, ec);
    const auto time = fs::last_write_time(f, ec).time_since_epoch().count();
    stamp += fmt::format("{}:{}:{};", f, size, time);
  }
  const std::lock_guard lock(guard);
  auto& entry = read[fmt::format("{}", fmt::join(files, "\n"))];  // however the source was written
  if (!entry.second || entry.first != stamp) entry = {stamp, std::make_shared<const Trace>(read_trace_files(files))};
  return entry.second;
}

Trace read_trace_files(const std::vector<std::string>& files) { return TraceBuilder(files).build(); }

}  // namespace lbbench
