// A trace as bytes and back, for sending it from the rank that read it (see trace.hpp).
#include <stdexcept>

#include "core/bytes.hpp"
#include "meshes/trace/trace.hpp"

namespace lbbench {

namespace {

template <class T>
void put_vector(ByteWriter& w, const std::vector<T>& v) {
  w.put<std::uint64_t>(v.size());
  w.put_span(std::span<const T>(v));
}

template <class T>
std::vector<T> get_vector(ByteReader& r) {
  std::vector<T> out;
  r.get_into(out, static_cast<std::size_t>(r.get<std::uint64_t>()));
  return out;
}

void put_string(ByteWriter& w, const std::string& s) {
  w.put<std::uint64_t>(s.size());
  w.put_span(std::span<const char>(s.data(), s.size()));
}

std::string get_string(ByteReader& r) {
  const auto bytes = r.take(static_cast<std::size_t>(r.get<std::uint64_t>()));
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

void put_optional(ByteWriter& w, const std::optional<std::int64_t>& v) {
  w.put<std::uint8_t>(v ? 1 : 0);
  w.put<std::int64_t>(v.value_or(0));
}

std::optional<std::int64_t> get_optional(ByteReader& r) {
  const bool has = r.get<std::uint8_t>() != 0;
  const auto v = r.get<std::int64_t>();
  return has ? std::optional(v) : std::nullopt;
}

void put_entity(ByteWriter& w, const TraceEntity& e) {
  put_optional(w, e.id);
  put_optional(w, e.seq_id);
  put_string(w, e.type);
  w.put<int>(e.home);
  w.put<std::uint8_t>(e.migratable ? 1 : 0);
  put_optional(w, e.collection_id);
  put_optional(w, e.objgroup_id);
  put_vector(w, e.index);
}

TraceEntity get_entity(ByteReader& r) {
  TraceEntity e;
  e.id = get_optional(r);
  e.seq_id = get_optional(r);
  e.type = get_string(r);
  e.home = r.get<int>();
  e.migratable = r.get<std::uint8_t>() != 0;
  e.collection_id = get_optional(r);
  e.objgroup_id = get_optional(r);
  e.index = get_vector<std::int64_t>(r);
  return e;
}

void put_stats(ByteWriter& w, const std::optional<TraceStats>& s) {
  w.put<std::uint8_t>(s ? 1 : 0);
  if (!s) return;
  put_string(w, s->file);
  put_string(w, s->statistic);
  w.put<std::uint64_t>(s->imbalance.size());
  for (const auto& imb : s->imbalance) {
    w.put<std::uint8_t>(imb ? 1 : 0);
    w.put<double>(imb.value_or(0.0));
  }
}

std::optional<TraceStats> get_stats(ByteReader& r) {
  if (r.get<std::uint8_t>() == 0) return std::nullopt;
  TraceStats s;
  s.file = get_string(r);
  s.statistic = get_string(r);
  const auto phases = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < phases; ++i) {
    const bool has = r.get<std::uint8_t>() != 0;
    const auto imb = r.get<double>();
    s.imbalance.push_back(has ? std::optional(imb) : std::nullopt);
  }
  return s;
}

}  // namespace

std::vector<std::byte> serialize_trace(const Trace& trace) {
  Bytes out;
  ByteWriter w(out);
  const TraceLayout& l = *trace.layout;
  w.put<int>(l.ranks);
  w.put<int>(l.files);
  w.put<int>(l.subphases);
  w.put<std::int64_t>(l.pinned_from);
  put_vector(w, l.phase_ids);
  put_vector(w, l.first_rank);
  put_vector(w, l.movable_begin);
  put_vector(w, l.times);
  put_vector(w, l.nodes);
  w.put<std::uint64_t>(l.entity.size());
  for (const auto& e : l.entity) put_entity(w, e);
  put_stats(w, l.stats);
  put_vector(w, trace.edges);
  w.put<std::uint64_t>(trace.files.size());
  for (const auto& f : trace.files) put_string(w, f);
  w.put<std::int64_t>(trace.communications);
  w.put<std::int64_t>(trace.self_communications);
  w.put<std::int64_t>(trace.messages);
  return out;
}

Trace deserialize_trace(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  auto layout = std::make_shared<TraceLayout>();
  layout->ranks = r.get<int>();
  layout->files = r.get<int>();
  layout->subphases = r.get<int>();
  layout->pinned_from = r.get<std::int64_t>();
  layout->phase_ids = get_vector<std::int64_t>(r);
  layout->first_rank = get_vector<int>(r);
  layout->movable_begin = get_vector<std::int64_t>(r);
  layout->times = get_vector<double>(r);
  layout->nodes = get_vector<int>(r);
  const auto entities = r.get<std::uint64_t>();
  layout->entity.reserve(static_cast<std::size_t>(entities));
  for (std::uint64_t i = 0; i < entities; ++i) layout->entity.push_back(get_entity(r));
  layout->stats = get_stats(r);
  Trace trace;
  trace.edges = get_vector<TraceEdge>(r);
  const auto files = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < files; ++i) trace.files.push_back(get_string(r));
  trace.communications = r.get<std::int64_t>();
  trace.self_communications = r.get<std::int64_t>();
  trace.messages = r.get<std::int64_t>();
  if (!r.done()) throw std::runtime_error("a trace's bytes end in something unread");
  trace.layout = std::move(layout);
  return trace;
}

}  // namespace lbbench
