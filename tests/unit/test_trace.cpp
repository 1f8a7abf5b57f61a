// Recorded runs (vt's LBDatafile): reading, checking, the graph and the times they give,
// and the scenario keys that replay them. The error cases write small traces of their own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/error.hpp"
#include "meshes/trace/json_text.hpp"
#include "meshes/trace/trace.hpp"
#include "scenario/scenario.hpp"
#include "workload/load_field.hpp"

namespace lbbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A folder of trace files made by a test, removed after it.
class TraceFolder {
 public:
  explicit TraceFolder(const std::string& name) : dir_(fs::temp_directory_path() / ("lbbench-trace-" + name)) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TraceFolder() { fs::remove_all(dir_); }
  TraceFolder(const TraceFolder&) = delete;
  TraceFolder& operator=(const TraceFolder&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  [[nodiscard]] std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

std::string entity(int id, int home, bool migratable = true) {
  return "{\"type\": \"object\", \"id\": " + std::to_string(id) + ", \"home\": " + std::to_string(home) +
         ", \"migratable\": " + (migratable ? "true" : "false") + "}";
}

std::string task(int id, int node, double time, bool migratable = true, const std::string& extra = "") {
  return "{\"entity\": " + entity(id, node, migratable) + ", \"node\": " + std::to_string(node) +
         ", \"resource\": \"cpu\", \"time\": " + std::to_string(time) + extra + "}";
}

std::string comm(int from, int to, double bytes, int messages = 1, int from_home = 0, int to_home = 0) {
  return "{\"type\": \"SendRecv\", \"from\": " + entity(from, from_home) + ", \"to\": " + entity(to, to_home) +
         ", \"messages\": " + std::to_string(messages) + ", \"bytes\": " + std::to_string(bytes) + "}";
}

std::string file_of(int rank, const std::string& phases) {
  return "{\"metadata\": {\"type\": \"LBDatafile\", \"rank\": " + std::to_string(rank) + "}, \"phases\": [" + phases +
         "]}";
}

std::string phase(int id, const std::string& tasks, const std::string& comms = "") {
  std::string out = "{\"id\": " + std::to_string(id) + ", \"tasks\": [" + tasks + "]";
  if (!comms.empty()) out += ", \"communications\": [" + comms + "]";
  return out + "}";
}

// Two ranks, two phases: rank 0 runs tasks 10 and 11 and the object group 90 (pinned),
// rank 1 runs task 20; 10 and 20 talk both ways, 11 talks to itself and to 90.
void write_small_trace(const TraceFolder& t) {
  const std::string subphases = R"(, "subphases": [{"id": 0, "time": 0.25}, {"id": 1, "time": 0.5}])";
  t.write(
      "data.0.json",
      file_of(0, phase(1, task(10, 0, 1.0, true, subphases) + "," + task(11, 0, 2.0) + "," + task(90, 0, 0.5, false),
                       comm(10, 20, 100, 2, 0, 1) + "," + comm(11, 11, 7) + "," + comm(11, 90, 30)) +
                     "," + phase(5, task(10, 0, 3.0) + "," + task(90, 0, 0.25, false), comm(10, 20, 300, 1, 0, 1))));
  t.write("data.1.json", file_of(1, phase(1, task(20, 1, 4.0), comm(20, 10, 60, 1, 1, 0)) + "," +
                                        phase(5, task(20, 1, 5.0) + "," + task(21, 1, 6.0))));
}

std::int64_t vertex_of(const TraceLayout& l, std::int64_t id) {
  for (std::int64_t v = 0; v < l.vertices(); ++v) {
    if (l.entity[static_cast<std::size_t>(v)].id == id) return v;
  }
  return -1;
}

TEST(Trace, ReadsTasksPhasesAndEdges) {
  const TraceFolder t("small");
  write_small_trace(t);
  const Trace trace = read_trace(t.path());
  const TraceLayout& l = *trace.layout;
  EXPECT_EQ(trace.files.size(), 2U);
  EXPECT_EQ(l.ranks, 2);
  EXPECT_EQ(l.phase_ids, (std::vector<std::int64_t>{1, 5}));
  EXPECT_EQ(l.subphases, 2);
  ASSERT_EQ(l.vertices(), 5);
  // Migratable tasks first, by (first rank, id); the object group last.
  EXPECT_EQ(l.pinned_from, 4);
  EXPECT_EQ(vertex_of(l, 10), 0);
  EXPECT_EQ(vertex_of(l, 11), 1);
  EXPECT_EQ(vertex_of(l, 20), 2);
  EXPECT_EQ(vertex_of(l, 21), 3);
  EXPECT_EQ(vertex_of(l, 90), 4);
  EXPECT_TRUE(l.is_pinned(VertexId{4}));
  EXPECT_FALSE(l.is_pinned(VertexId{3}));
  // Times per phase, absent tasks at zero; subphases and the rest.
  EXPECT_DOUBLE_EQ(l.time(VertexId{0}, 0, TraceLayout::time_slot()), 1.0);
  EXPECT_DOUBLE_EQ(l.time(VertexId{0}, 1, TraceLayout::time_slot()), 3.0);
  EXPECT_DOUBLE_EQ(l.time(VertexId{0}, 0, TraceLayout::subphase_slot(1)), 0.5);
  EXPECT_DOUBLE_EQ(l.time(VertexId{0}, 0, l.rest_slot()), 0.25);
  EXPECT_DOUBLE_EQ(l.time(VertexId{0}, 1, l.rest_slot()), 3.0);  // no subphases that phase: all rest
  EXPECT_DOUBLE_EQ(l.time(VertexId{3}, 0, TraceLayout::time_slot()), 0.0);
  EXPECT_DOUBLE_EQ(l.time(VertexId{3}, 1, TraceLayout::time_slot()), 6.0);
  // 10-20: (100 + 60 + 300) bytes over 2 phases, both directions: 115 per message. 11-90:
  // 30 / 4. The self-message of 11 is no edge.
  EXPECT_EQ(trace.edges, (std::vector<TraceEdge>{{0, 2, 115}, {1, 4, 8}}));
  EXPECT_EQ(trace.self_communications, 1);
  EXPECT_EQ(trace.communications, 5);
  EXPECT_EQ(trace.messages, 6);
}

TEST(Trace, BrotliIsToldByContentNotByName) {
  const TraceFolder t("brotli");
  write_small_trace(t);
  const Trace plain = read_trace(t.path());
  for (const char* name : {"data.0.json", "data.1.json"}) {
    std::ifstream in(t.path() + "/" + name);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    t.write(name, brotli_compress(text));
  }
  const Trace compressed = read_trace(t.path());
  EXPECT_EQ(compressed.edges, plain.edges);
  EXPECT_EQ(compressed.layout->times, plain.layout->times);
  EXPECT_EQ(compressed.layout->entity, plain.layout->entity);
}

TEST(Trace, SerializedTraceReadsBackTheSame) {
  const TraceFolder t("bytes");
  write_small_trace(t);
  const Trace trace = read_trace(t.path());
  const Trace again = deserialize_trace(serialize_trace(trace));
  EXPECT_EQ(again.edges, trace.edges);
  EXPECT_EQ(again.layout->times, trace.layout->times);
  EXPECT_EQ(again.layout->entity, trace.layout->entity);
  EXPECT_EQ(again.layout->movable_begin, trace.layout->movable_begin);
  EXPECT_EQ(again.files, trace.files);
}

TEST(Trace, RecordedRanksMapOntoTheRunsByBlocks) {
  const TraceFolder t("mapping");
  write_small_trace(t);
  const Trace trace = read_trace(t.path());
  const TraceLayout& l = *trace.layout;
  auto starts = [&](int nranks) {
    std::vector<int> out;
    for (std::int64_t v = 0; v < l.vertices(); ++v) out.push_back(l.start_rank(VertexId{v}, nranks).value());
    return out;
  };
  EXPECT_EQ(starts(2), (std::vector<int>{0, 0, 1, 1, 0}));  // one to one
  EXPECT_EQ(starts(1), (std::vector<int>{0, 0, 0, 0, 0}));  // both onto one
  // Four ranks: rank 0's two migratable tasks split over ranks 0 and 1, its pinned one on
  // 0; rank 1's over 2 and 3.
  EXPECT_EQ(starts(4), (std::vector<int>{0, 1, 2, 3, 0}));
}

TEST(Trace, ANodeEndIsAPinnedVertexOnThatRank) {
  const TraceFolder t("node");
  t.write("data.0.json", file_of(0, phase(0, task(1, 0, 1.0),
                                          R"({"type": "NodeToCollection", "from": {"type": "node", "id": 1}, "to": )" +
                                              entity(1, 0) + R"(, "messages": 1, "bytes": 40.0})")));
  t.write("data.1.json", file_of(1, phase(0, "")));
  const Trace trace = read_trace(t.path());
  const TraceLayout& l = *trace.layout;
  ASSERT_EQ(l.vertices(), 2);
  EXPECT_EQ(l.pinned_from, 1);
  EXPECT_EQ(l.entity[1].type, "node");
  EXPECT_EQ(l.start_rank(VertexId{1}, 2), Rank{1});
  EXPECT_EQ(trace.edges, (std::vector<TraceEdge>{{0, 1, 20}}));
}

TEST(Trace, ACommunicationInBothFilesCountsOnce) {
  const TraceFolder t("twice");
  t.write("data.0.json", file_of(0, phase(0, task(1, 0, 1.0), comm(1, 2, 80, 1, 0, 1))));
  t.write("data.1.json", file_of(1, phase(0, task(2, 1, 1.0), comm(1, 2, 80, 1, 0, 1))));
  EXPECT_EQ(read_trace(t.path()).edges, (std::vector<TraceEdge>{{0, 1, 40}}));
}

// A task recorded with home h on rank `node` (LBAF writes a migrated task's new rank as home).
std::string task_at_home(int id, int node, int home, double time) {
  return "{\"entity\": " + entity(id, home) + ", \"node\": " + std::to_string(node) +
         ", \"resource\": \"cpu\", \"time\": " + std::to_string(time) + "}";
}

// LBAF's way: phase 2 has tasks 1 and 2 where its balancer put them, their home rewritten.
// Task 2's phase-2 record is read first (data.0.json), yet its phase-1 home is the one kept.
TEST(Trace, AHomeThatChangesKeepsTheFirstPhasesWithOneNote) {
  const TraceFolder t("rehomed");
  t.write("data.0.json", file_of(0, phase(1, task(1, 0, 1.0) + "," + task(3, 0, 2.0)) + "," +
                                        phase(2, task_at_home(2, 0, 0, 4.0) + "," + task(3, 0, 2.0))));
  t.write("data.1.json", file_of(1, phase(1, task(2, 1, 4.0)) + "," + phase(2, task_at_home(1, 1, 1, 1.0))));
  const Trace trace = read_trace(t.path());
  const TraceLayout& l = *trace.layout;
  const std::int64_t one = vertex_of(l, 1);
  const std::int64_t two = vertex_of(l, 2);
  EXPECT_EQ(l.entity[static_cast<std::size_t>(one)].home, 0);
  EXPECT_EQ(l.entity[static_cast<std::size_t>(two)].home, 1);
  EXPECT_EQ(l.first_rank[static_cast<std::size_t>(two)], 1);
  // Where each phase ran them.
  EXPECT_EQ(l.node(VertexId{one}, 0), 0);
  EXPECT_EQ(l.node(VertexId{one}, 1), 1);
  EXPECT_EQ(l.node(VertexId{two}, 1), 0);
  // Work per rank: phase 1 {1 + 2, 4}, phase 2 {4 + 2, 1}.
  EXPECT_EQ(recorded_rank_work(l, 0), (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ(recorded_rank_work(l, 1), (std::vector<double>{6.0, 1.0}));
  EXPECT_DOUBLE_EQ(recorded_imbalance(l, 1), 6.0 / 3.5 - 1.0);
  ASSERT_EQ(trace.notes.size(), 2U);
  EXPECT_THAT(trace.notes[0], AllOf(HasSubstr("data.%r.json: 2 of the 3 tasks change home between phases"),
                                    HasSubstr("first at " + t.path() + "/data.1.json: phases[1].tasks[0]"),
                                    HasSubstr("each keeps the home of its first phase")));
  EXPECT_THAT(trace.notes[1], AllOf(HasSubstr("2 tasks run on another rank in a later phase than in their first"),
                                    HasSubstr("0.1429 at phase 1, 0.7143 at phase 2")));
}

TEST(Trace, ARunThatKeepsItsHomesAndRanksHasNoNote) {
  const TraceFolder t("quiet");
  write_small_trace(t);
  EXPECT_THAT(read_trace(t.path()).notes, ::testing::IsEmpty());
}

// The message of reading a trace whose files are these texts.
std::string error_of(const std::vector<std::string>& files, const std::string& name) {
  const TraceFolder t(name);
  for (std::size_t r = 0; r < files.size(); ++r) t.write("data." + std::to_string(r) + ".json", files[r]);
  try {
    (void)read_trace(t.path());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TraceErrors, NameTheFileTheJsonPathAndWhatWasExpected) {
  const std::string good = task(1, 0, 1.0);
  EXPECT_THAT(error_of({file_of(0, phase(0, R"({"entity": )" + entity(1, 0) +
                                                R"(, "node": 0, "resource": "cpu", "time": "fast"})"))},
                       "type"),
              AllOf(HasSubstr("data.0.json: phases[0].tasks[0].time: expected a number, got the string \"fast\"")));
  EXPECT_THAT(
      error_of(
          {file_of(0, phase(0, R"({"entity": )" + entity(1, 0) + R"(, "node": 0, "resource": "cpu", "tme": 1.0})"))},
          "unknown"),
      AllOf(HasSubstr("phases[0].tasks[0].tme: unknown key 'tme' in a task. Did you mean 'time'?")));
  EXPECT_THAT(
      error_of({file_of(0, phase(0, R"({"entity": )" + entity(1, 0) + R"(, "node": 0, "time": 1.0})"))}, "missing"),
      HasSubstr("phases[0].tasks[0]: missing the required key 'resource'"));
  EXPECT_THAT(error_of({R"({"phases": []})"}, "untyped"),
              HasSubstr("(top level): missing 'type': expected \"LBDatafile\""));
  EXPECT_THAT(error_of({R"({"type": "LBStatsfile", "phases": []})"}, "stats"),
              HasSubstr("holds only vt's load statistics (LBStatsfile: data.0.json) and no LBDatafile"));
  EXPECT_THAT(error_of({file_of(0, phase(0, task(1, 0, -1.0)))}, "negative"),
              HasSubstr("phases[0].tasks[0].time: a task's time is never negative"));
  EXPECT_THAT(error_of({"{\"type\": \"LBDatafile\",\n \"phases\": [}"}, "syntax"),
              HasSubstr("data.0.json:2:13: not valid JSON"));
  EXPECT_THAT(error_of({"\x01\x02 neither"}, "binary"), HasSubstr("plain JSON or brotli-compressed JSON"));
  EXPECT_THAT(error_of({file_of(0, phase(0, good)), file_of(1, phase(0, task(1, 1, 1.0)))}, "twice"),
              AllOf(HasSubstr("data.1.json: phases[0].tasks[0]: the task with id 1 of phase 0 is recorded again on "
                              "rank 1 (first at "),
                    HasSubstr("data.0.json: phases[0].tasks[0], on rank 0): a task runs on one rank in a phase")));
  EXPECT_THAT(error_of({file_of(0, phase(0, good + "," + good))}, "same-rank"),
              HasSubstr("phases[0].tasks[1]: the task with id 1 of phase 0 is recorded again (first at "));
  // LBAF may rewrite a home; nothing else of an entity changes.
  EXPECT_THAT(error_of({file_of(0, phase(0, good) + "," +
                                       phase(1, R"({"entity": {"type": "object", "id": 1, "home": 0, )"
                                                R"("migratable": true, "collection_id": 4}, "node": 0, )"
                                                R"("resource": "cpu", "time": 1.0})"))},
                       "collection"),
              HasSubstr("phases[1].tasks[0]: the entity with id 1 differs from its first record at "));
  EXPECT_THAT(error_of({R"({"metadata": {"type": "LBDatafile", "rank_alpha": -0.5}, "phases": []})"}, "alpha"),
              HasSubstr("metadata.rank_alpha: a rank's alpha is never negative, got -0.5"));
  EXPECT_THAT(error_of({file_of(0, phase(0, good, comm(1, 7, 10)))}, "dangling"),
              HasSubstr("phases[0].communications[0]: to: the entity with id 7 is no task of the trace"));
  EXPECT_THAT(error_of({file_of(0, phase(0, good) + "," + phase(1, task(1, 0, 1.0, false)))}, "flip"),
              HasSubstr("phases[1].tasks[0]: the entity with id 1 differs from its first record"));
  EXPECT_THAT(error_of({file_of(0, phase(0, R"({"entity": {"type": "object", "seq_id": 3, "home": 0, )"
                                            R"("migratable": true}, "node": 0, "resource": "cpu", "time": 1.0})"))},
                       "seq"),
              HasSubstr("phases[0].tasks[0].entity: a migratable entity named by seq_id needs a 'collection_id'"));
  EXPECT_THAT(error_of({file_of(0, phase(0, good,
                                         R"({"type": "X", "from": {"type": "node", "id": 5}, "to": )" + entity(1, 0) +
                                             R"(, "messages": 1, "bytes": 1.0})"))},
                       "node"),
              HasSubstr("from: node 5 is not a rank of the trace (0..0)"));
}

// Found by fuzzing: a number beyond double threw something that was no input error.
TEST(TraceErrors, ANumberBeyondDoubleIsNotValidJson) {
  EXPECT_THAT(error_of({R"({"type": "LBDatafile", "phases": [{"id": 1e99999, "tasks": []}]})"}, "overflow"),
              AllOf(HasSubstr("data.0.json: not valid JSON"), HasSubstr("number overflow")));
}

TEST(TraceErrors, ABrotliBombIsRefused) {
  const TraceFolder t("bomb");
  t.write("data.0.json", brotli_compress(std::string(std::size_t{80} << 20, ' ')));  // 80 MB of blanks
  try {
    (void)read_trace(t.path());
    FAIL() << "an 80 MB stream of a few kB was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("decompresses to more than 64 MB"));
  }
}

TEST(TraceErrors, SourcesThatNameNothingOrTooMuch) {
  const TraceFolder t("sources");
  EXPECT_THAT(
      [&] {
        try {
          (void)trace_files(t.path() + "/run.%r.json");
        } catch (const InputError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      HasSubstr("no trace file for rank 0"));
  t.write("a.0.json", file_of(0, phase(0, task(1, 0, 1.0))));
  t.write("b.0.json", file_of(0, phase(0, task(1, 0, 1.0))));
  try {
    (void)trace_files(t.path());
    FAIL() << "a folder of two data sets was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the folder holds 2 data sets (a.%r.json, b.%r.json)"));
  }
  EXPECT_EQ(trace_files(t.path() + "/b.%r.json").size(), 1U);
  EXPECT_EQ(trace_files(t.path() + "/*.0.json").size(), 2U);
}

// --- vt's statistics beside the data -------------------------------------------------------------

// A statistic as vt writes it, all eleven quantities; `imb` is the one the replay reads.
std::string statistic(double imb) {
  return R"({"avg": 1.0, "car": 2.0, "imb": )" + std::to_string(imb) +
         R"(, "kur": 0.0, "max": 2.0, "min": 0.0, "npr": 2.0, "skw": 0.0, "std": 1.0, "sum": 2.0, "var": 1.0})";
}

// A phase's pre-LB statistics: the raw rank loads' imbalance `imb`, the modeled ones' imb
// + 1, so that a test sees which was read.
std::string stats_phase(int id, double imb, bool raw = true) {
  std::string pre = "\"Object_comm\": " + statistic(0.0) + ", \"Rank_load_modeled\": " + statistic(imb + 1.0);
  if (raw) pre += ", \"Rank_load_raw\": " + statistic(imb);
  return "{\"id\": " + std::to_string(id) + ", \"migration count\": 0, \"pre-LB\": {" + pre + "}}";
}

std::string stats_of(const std::string& phases) {
  return R"({"metadata": {"type": "LBStatsfile"}, "phases": [)" + phases + "]}";
}

using Imbalances = std::vector<std::optional<double>>;

TEST(TraceStats, AStatisticsFileBesideTheDataIsSetAsideAndRead) {
  const TraceFolder t("stats");
  write_small_trace(t);  // phases 1 and 5
  t.write("stats.json", stats_of(stats_phase(1, 0.5) + "," + stats_phase(5, 0.25)));
  EXPECT_EQ(trace_files(t.path()).size(), 3U);  // listed, not a second data set
  const Trace trace = read_trace(t.path());
  EXPECT_EQ(trace.files.size(), 2U);  // the data alone
  EXPECT_EQ(trace.layout->files, 2);
  EXPECT_EQ(trace.layout->phase_ids, (std::vector<std::int64_t>{1, 5}));
  ASSERT_TRUE(trace.layout->stats.has_value());
  const TraceStats& s = *trace.layout->stats;
  EXPECT_EQ(s.file, t.path() + "/stats.json");
  EXPECT_EQ(s.statistic, "Rank_load_raw");
  EXPECT_EQ(s.imbalance, (Imbalances{0.5, 0.25}));
  EXPECT_THAT(trace.notes, ::testing::IsEmpty());
  // Sent to the other ranks with the rest.
  EXPECT_EQ(deserialize_trace(serialize_trace(trace)).layout->stats, trace.layout->stats);
  // Without the file, the same trace and no statistics.
  fs::remove(t.path() + "/stats.json");
  const Trace plain = read_trace(t.path());
  EXPECT_FALSE(plain.layout->stats.has_value());
  EXPECT_EQ(plain.layout->times, trace.layout->times);
  EXPECT_EQ(plain.edges, trace.edges);
}

// vt's own name and compression, the type at the top level, and no raw loads: the modeled.
TEST(TraceStats, VtsCompressedFileWithoutRawLoadsGivesTheModeled) {
  const TraceFolder t("stats-vt");
  write_small_trace(t);
  t.write("vt_lb_statistics.2024-05-06-07-08-09.json.br",
          brotli_compress(R"({"type": "LBStatsfile", "phases": [)" + stats_phase(1, 0.5, false) + "," +
                          stats_phase(5, 0.25, false) + "]}"));
  const Trace trace = read_trace(t.path());
  ASSERT_TRUE(trace.layout->stats.has_value());
  EXPECT_EQ(trace.layout->stats->statistic, "Rank_load_modeled");
  EXPECT_EQ(trace.layout->stats->imbalance, (Imbalances{1.5, 1.25}));
}

TEST(TraceStats, PhasesThatDifferAreANoteNotAnError) {
  const TraceFolder t("stats-phases");
  write_small_trace(t);
  t.write("stats.json", stats_of(stats_phase(1, 0.5) + "," + stats_phase(7, 0.25)));
  const Trace trace = read_trace(t.path());
  ASSERT_TRUE(trace.layout->stats.has_value());
  EXPECT_EQ(trace.layout->stats->imbalance, (Imbalances{0.5, std::nullopt}));
  ASSERT_EQ(trace.notes.size(), 1U);
  EXPECT_THAT(trace.notes[0],
              AllOf(HasSubstr(t.path() + "/stats.json: vt's statistics and the data hold different phases"),
                    HasSubstr("1 of the 2 phases of the data have no statistics (5)"),
                    HasSubstr("the statistics' phases 7 are not in the data")));
}

TEST(TraceStats, TwoStatisticsFilesAreComparedWithNone) {
  const TraceFolder t("stats-two");
  write_small_trace(t);
  t.write("stats.json", stats_of(stats_phase(1, 0.5)));
  t.write("vt_lb_statistics.1.json", stats_of(stats_phase(1, 0.75)));
  const Trace trace = read_trace(t.path());
  EXPECT_FALSE(trace.layout->stats.has_value());
  ASSERT_EQ(trace.notes.size(), 1U);
  EXPECT_THAT(trace.notes[0], AllOf(HasSubstr("2 LBStatsfile files"), HasSubstr("compared with none")));
}

TEST(TraceStats, TheTypeIsPeekedAtTheTopOrUnderMetadata) {
  const TraceFolder t("peek");
  EXPECT_EQ(json_document_type(t.write("a.json", R"({"type": "LBStatsfile", "phases": []})")), "LBStatsfile");
  // After an object nested in the metadata, and with the phases cut short after it.
  EXPECT_EQ(json_document_type(t.write("b.json", R"({"metadata": {"shared_node": {"id": 1}, "type": "LBDatafile"},)"
                                                 R"( "phases": [{"id": )")),
            "LBDatafile");
  EXPECT_EQ(json_document_type(t.write("c.json", brotli_compress(stats_of("")))), "LBStatsfile");
  EXPECT_EQ(json_document_type(t.write("d.json", R"({"phases": [{"type": "LBStatsfile"}]})")), std::nullopt);
  EXPECT_EQ(json_document_type(t.write("e.json", "not json")), std::nullopt);
}

// The message of reading the small trace with this text as its stats.json.
std::string stats_error(const std::string& text, const std::string& name) {
  const TraceFolder t(name);
  write_small_trace(t);
  t.write("stats.json", text);
  try {
    (void)read_trace(t.path());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TraceStatsErrors, NameTheFileTheJsonPathAndWhatWasExpected) {
  // Cut short, as by a run that died while writing it: vt writes its type first.
  EXPECT_THAT(stats_error(R"({"metadata": {"type": "LBStatsfile"}, "phases": [{"id": 1, "pre-LB": {)", "s-cut"),
              AllOf(HasSubstr("stats.json:1:"), HasSubstr("not valid JSON")));
  EXPECT_THAT(stats_error(stats_of(R"({"id": 1, "pre-LB": {"Rank_load_raw": {"imb": "high"}}})"), "s-string"),
              HasSubstr("stats.json: phases[0].pre-LB.Rank_load_raw.imb: expected a number, got the string \"high\""));
  EXPECT_THAT(stats_error(stats_of(stats_phase(1, 0.5) + R"(, {"id": 5})"), "s-pre"),
              HasSubstr("stats.json: phases[1]: missing the required key 'pre-LB'"));
  EXPECT_THAT(stats_error(stats_of(R"({"id": 1, "pre-LB": {"Object_comm": )" + statistic(0.0) + "}}"), "s-rank"),
              HasSubstr("phases[0].pre-LB: missing 'Rank_load_modeled' (and 'Rank_load_raw')"));
  EXPECT_THAT(stats_error(stats_of(R"({"id": 1, "pre_LB": {}})"), "s-unknown"),
              HasSubstr("phases[0].pre_LB: unknown key 'pre_LB' in a phase of statistics. Did you mean 'pre-LB'?"));
  EXPECT_THAT(stats_error(stats_of(R"({"id": 1, "pre-LB": {"Rank_load_raw": {"imbalance": 1.0}}})"), "s-quantity"),
              HasSubstr("phases[0].pre-LB.Rank_load_raw.imbalance: unknown key 'imbalance' in a statistic"));
  EXPECT_THAT(stats_error(stats_of(stats_phase(1, 0.5) + "," + stats_phase(1, 0.5)), "s-twice"),
              HasSubstr("stats.json: phases[1].id: phase 1 appears twice in this file"));
  EXPECT_THAT(stats_error(R"({"type": "LBDatafile", "metadata": {"type": "LBStatsfile"}, "phases": []})", "s-type"),
              HasSubstr("stats.json: type: expected \"LBStatsfile\", got \"LBDatafile\""));
}

TEST(TraceStatsErrors, StatisticsAloneAreNoTrace) {
  const TraceFolder t("stats-alone");
  t.write("stats.json", stats_of(stats_phase(1, 0.5)));
  const std::string expected = "holds only vt's load statistics (LBStatsfile: ";
  try {
    (void)read_trace(t.path());
    FAIL() << "a folder of statistics alone was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(t.path() + ": " + expected + "stats.json) and no LBDatafile"),
                                HasSubstr("a replay needs the data files")));
  }
  // Two of them are two sets by name: the folder's listing finds them both statistics.
  t.write("vt_lb_statistics.1.json", stats_of(stats_phase(1, 0.5)));
  try {
    (void)trace_files(t.path());
    FAIL() << "a folder of statistics alone was listed";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr(expected + "stats.json, vt_lb_statistics.1.json) and no LBDatafile"));
  }
}

TEST(TraceStatsErrors, TwoDataSetsBesideStatisticsAreStillTwo) {
  const TraceFolder t("stats-sets");
  t.write("a.0.json", file_of(0, phase(0, task(1, 0, 1.0))));
  t.write("b.0.json", file_of(0, phase(0, task(1, 0, 1.0))));
  t.write("stats.json", stats_of(stats_phase(0, 0.0)));
  try {
    (void)trace_files(t.path());
    FAIL() << "a folder of two data sets was read";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the folder holds 2 data sets (a.%r.json, b.%r.json)"));
  }
  EXPECT_EQ(read_trace(t.path() + "/a.%r.json").layout->stats, std::nullopt);  // a pattern names the data alone
}

// --- scenarios ------------------------------------------------------------------------------------

Scenario scenario_of(const std::string& yaml) { return parse_scenario(YAML::Load(yaml), "test.yaml"); }

std::string scenario_error(const std::string& yaml) {
  try {
    (void)scenario_of(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TraceScenario, ARecordedRunDefaultsToItsOwnTimesPlacesAndBytes) {
  const TraceFolder t("scenario");
  const Scenario s = scenario_of("name: t\nsteps: 3\nmesh: {file: " + t.path() + ", format: lbdatafile}\n");
  EXPECT_TRUE(std::holds_alternative<TraceWeights>(s.workload.weights));
  EXPECT_TRUE(std::holds_alternative<TraceEvolution>(s.workload.evolution));
  EXPECT_TRUE(std::get<TraceEvolution>(s.workload.evolution).repeat);
  EXPECT_EQ(s.distribution.kind, DistributionKind::trace);
  EXPECT_EQ(s.workload.edge_bytes, 1);
  const Scenario other = scenario_of("name: t\nsteps: 3\nmesh: {file: " + t.path() +
                                     ", format: lbdatafile}\nworkload: {weights: {model: uniform}}\n");
  EXPECT_TRUE(std::holds_alternative<StaticEvolution>(other.workload.evolution));
}

TEST(TraceScenario, TraceKeysNeedARecordedRun) {
  const TraceFolder t("keys");
  const std::string mesh = "mesh: {file: " + t.path() + ", format: lbdatafile}\n";
  EXPECT_THAT(scenario_error("name: t\nsteps: 1\nmesh: {generator: grid2d, nx: 2, ny: 2}\n"
                             "workload: {weights: {model: trace}}\n"),
              HasSubstr("workload.weights: the trace weight model replays a recorded run; the mesh needs format: "
                        "lbdatafile"));
  EXPECT_THAT(scenario_error("name: t\nsteps: 1\n" + mesh + "workload: {evolution: static}\n"),
              HasSubstr("trace weights replay the recorded phases; write evolution: trace (not static)"));
  EXPECT_THAT(scenario_error("name: t\nsteps: 1\n" + mesh +
                             "workload: {weights: {model: uniform}, evolution: {kind: trace}}\n"),
              HasSubstr("it needs weights.model trace (not uniform)"));
  EXPECT_THAT(scenario_error("name: t\nsteps: 1\nmesh: {generator: grid2d, nx: 2, ny: 2}\ndistribution: trace\n"),
              HasSubstr("a trace distribution places a recorded run's tasks"));
  EXPECT_THAT(scenario_error("name: t\nsteps: 1\n" + mesh + "workload: {weights: {model: trace, subphase: many}}\n"),
              HasSubstr("workload.weights.subphase: expected a subphase id"));
  EXPECT_THAT(scenario_error("name: t\nsteps: 1\nmesh: {file: no-such-trace, format: lbdatafile}\n"),
              AllOf(HasSubstr("test.yaml:3:"), HasSubstr("mesh.file: no trace at no-such-trace")));
}

TEST(TraceScenario, TracesAreFoundInTheTracesFolderToo) {
  const TraceFolder t("elsewhere");
  t.write("data.0.json", file_of(0, phase(0, task(1, 0, 1.0))));
  setenv("LBBENCH_TRACES_DIR", fs::path(t.path()).parent_path().c_str(), 1);
  const std::string name = fs::path(t.path()).filename().string();
  const Scenario s = scenario_of("name: t\nsteps: 1\nmesh: {file: " + name + ", format: lbdatafile}\n");
  EXPECT_EQ(std::get<MeshFileSpec>(s.mesh).resolved, t.path());
  EXPECT_EQ(std::get<MeshFileSpec>(s.mesh).path, name);  // the record keeps it as written
  unsetenv("LBBENCH_TRACES_DIR");
}

TEST(TraceScenario, TheTraceShortcutReplaysEveryPhaseOnce) {
  const TraceFolder t("shortcut");
  write_small_trace(t);
  const std::vector<std::string> sets{"balancer=greedy"};
  const Scenario s = load_run_scenario("", t.path(), sets);
  EXPECT_EQ(s.steps, 2);
  EXPECT_EQ(s.name, "lbbench-trace-shortcut");
  EXPECT_EQ(s.balancer.name(), "greedy");
  EXPECT_EQ(trace_ranks(t.path()), 2);
}

// --- the load field ---------------------------------------------------------------------------

TEST(TraceLoads, StepsReplayPhasesRepeatingOrHolding) {
  const TraceFolder t("loads");
  write_small_trace(t);
  const Trace trace = read_trace(t.path());
  LocalGraph g;
  g.global_vertices = trace.layout->vertices();
  WorkloadSpec w;
  w.unit_seconds = 0.5;
  w.weights = TraceWeights{};
  w.evolution = TraceEvolution{.repeat = true};
  const LoadField repeat(w, g, 1, trace.layout);
  // Task 10 (vertex 0): 1 s, then 3 s, then 1 s again; weights are seconds / unit.
  EXPECT_DOUBLE_EQ(repeat.weight(VertexId{0}, {}, {}, 0), 2.0);
  EXPECT_DOUBLE_EQ(repeat.weight(VertexId{0}, {}, {}, 1), 6.0);
  EXPECT_DOUBLE_EQ(repeat.weight(VertexId{0}, {}, {}, 2), 2.0);
  w.evolution = TraceEvolution{.repeat = false};
  const LoadField hold(w, g, 1, trace.layout);
  EXPECT_DOUBLE_EQ(hold.weight(VertexId{0}, {}, {}, 2), 6.0);
  w.weights = TraceWeights{.part = TraceWeights::Part::subphase, .subphase = 1, .scale = 2.0};
  EXPECT_DOUBLE_EQ(LoadField(w, g, 1, trace.layout).weight(VertexId{0}, {}, {}, 0), 2.0);  // 2 x 0.5 s / 0.5
  w.weights = TraceWeights{.part = TraceWeights::Part::rest};
  EXPECT_DOUBLE_EQ(LoadField(w, g, 1, trace.layout).weight(VertexId{0}, {}, {}, 0), 0.5);
  w.weights = TraceWeights{.part = TraceWeights::Part::subphase, .subphase = 2};
  EXPECT_THROW(LoadField(w, g, 1, trace.layout), InputError);  // the trace records subphases 0 and 1
}

// --- the shared traces ----------------------------------------------------------------------------

std::string shared_traces() {
  const fs::path dir = fs::path(LBBENCH_SOURCE_DIR) / ".." / "shared" / "traces";
  return fs::is_directory(dir) ? dir.lexically_normal().string() : "";
}

TEST(SharedTraces, LbafsVtRunReadsWhole) {
  const std::string dir = shared_traces();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent: LBAF's vt run cannot be read here";
  const Trace trace = read_trace(dir + "/lbaf-vt-16ranks");
  const TraceLayout& l = *trace.layout;
  EXPECT_EQ(trace.files.size(), 32U);
  EXPECT_EQ(l.ranks, 32);
  EXPECT_EQ(l.phases(), 10);
  EXPECT_EQ(l.subphases, 14);
  EXPECT_EQ(l.vertices(), 480);
  EXPECT_EQ(l.vertices() - l.pinned_from, 224);  // 7 object groups and handlers per rank
  EXPECT_EQ(trace.communications, 11709);
  // Every rank ran 15 tasks in the first phase, where it has them at the start.
  std::vector<int> per_rank(32, 0);
  for (std::int64_t v = 0; v < l.vertices(); ++v) ++per_rank[static_cast<std::size_t>(l.first_rank[v])];
  EXPECT_EQ(per_rank, std::vector<int>(32, 15));
  // vt keeps homes and ranks alike: nothing to note.
  EXPECT_THAT(trace.notes, ::testing::IsEmpty());
}

double total_work(const TraceLayout& l, int phase) {
  double total = 0;
  for (const double w : recorded_rank_work(l, phase)) total += w;
  return total;
}

// LBAF's figures for the first phase of the vt run: rank works summing to 0.638841 s, imbalance 4.94672.
TEST(SharedTraces, TheVtRunsFirstPhaseHasLbafsImbalance) {
  const std::string dir = shared_traces();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent: LBAF's figures for the vt run cannot be checked here";
  const Trace trace = read_trace(dir + "/lbaf-vt-16ranks");
  EXPECT_NEAR(total_work(*trace.layout, 0), 0.638841, 5e-7);
  EXPECT_NEAR(recorded_imbalance(*trace.layout, 0), 4.94672, 5e-6);
}

// LBAF's output after balancing the vt run: phase 1 is the vt run's placement, phase 2
// LBAF's, for which it reported an imbalance of 4.2845. Read as lbbench reads it, each
// phase's placement gives LBAF's figure, and the tasks are the vt run's.
TEST(SharedTraces, LbafsBalancedOutputReadsWithLbafsImbalancePerPhase) {
  const std::string dir = shared_traces();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent: LBAF's balanced output cannot be read here";
  const Trace lbaf = read_trace(dir + "/lbaf-balanced-32ranks");
  const TraceLayout& l = *lbaf.layout;
  ASSERT_EQ(l.phases(), 2);
  EXPECT_EQ(l.ranks, 32);
  EXPECT_EQ(l.vertices(), 480);
  EXPECT_NEAR(total_work(l, 0), 0.638841, 5e-7);
  EXPECT_NEAR(total_work(l, 1), 0.638841, 5e-7);  // LBAF moves work, it does not change it
  EXPECT_NEAR(recorded_imbalance(l, 0), 4.94672, 5e-6);
  EXPECT_NEAR(recorded_imbalance(l, 1), 4.2845, 5e-5);
  ASSERT_EQ(lbaf.notes.size(), 2U);
  EXPECT_THAT(lbaf.notes[0], HasSubstr("out.%r.json: 35 of the 480 tasks change home between phases"));
  EXPECT_THAT(lbaf.notes[1], HasSubstr("35 tasks run on another rank in a later phase"));
  // The homes kept are vt's own, and the tasks start where the vt run had them.
  const Trace vt = read_trace(dir + "/lbaf-vt-16ranks");
  EXPECT_EQ(l.entity, vt.layout->entity);
  EXPECT_EQ(l.first_rank, vt.layout->first_rank);
}

TEST(SharedTraces, LbafsSyntheticBlocksReadByPattern) {
  const std::string dir = shared_traces();
  if (dir.empty()) GTEST_SKIP() << "../shared/traces is absent: LBAF's synthetic data set cannot be read here";
  const Trace trace = read_trace(dir + "/lbaf-synthetic-blocks/synthetic-dataset-blocks.%r.json");
  EXPECT_EQ(trace.layout->ranks, 4);  // the fourth rank runs no task
  EXPECT_EQ(trace.layout->vertices(), 9);
  double total = 0;
  for (std::int64_t v = 0; v < trace.layout->vertices(); ++v) total += trace.layout->time(VertexId{v}, 0, 0);
  EXPECT_DOUBLE_EQ(total, 8.0);
}

}  // namespace
}  // namespace lbbench
