// Zoltan through its C API (see zoltan.hpp).
//
// The callbacks hand Zoltan this rank's vertices (ids, loads), their edges with the
// neighbor's owner and the bytes each carries per step, coordinates for the geometric
// methods, and each vertex's true migration size (adjacency, coordinates, weights and the
// element_bytes payload), so REPARTITION weighs real migration volume against the cut.
// Parts are ranks; Zoltan's export lists become the migration plan.
#include "balancers/global/zoltan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <mutex>

#include "comm/mpi.hpp"
#include "core/error.hpp"

#ifdef LBBENCH_HAVE_ZOLTAN
#include <zoltan.h>
#endif

namespace lbbench {

#ifdef LBBENCH_HAVE_ZOLTAN

bool zoltan_available() { return true; }

namespace {

struct CallbackData {
  const LoadView* view = nullptr;
  std::int64_t element_bytes = 0;
  // Zoltan's ids are 32-bit here: a mesh with sparse ids (one that regrids, whose block ids
  // grow past 2^32) names each vertex by two entries, its id's low and high halves.
  int gid_entries = 1;
};

void put_gid(ZOLTAN_ID_PTR at, std::int64_t id, int entries) {
  const auto u = static_cast<std::uint64_t>(id);
  at[0] = static_cast<ZOLTAN_ID_TYPE>(entries == 1 ? u : u & 0xffffffffU);
  if (entries == 2) at[1] = static_cast<ZOLTAN_ID_TYPE>(u >> 32);
}

int num_obj(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<CallbackData*>(data)->view->graph.num_local();
}

void obj_list(void* data, int /*num_gid*/, int /*num_lid*/, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
              float* weights, int* ierr) {
  const auto& d = *static_cast<CallbackData*>(data);
  const LoadView& view = *d.view;
  for (LocalIndex v = 0; v < view.graph.num_local(); ++v) {
    put_gid(gids + static_cast<std::ptrdiff_t>(v) * d.gid_entries, view.graph.gid[v].value(), d.gid_entries);
    lids[v] = static_cast<ZOLTAN_ID_TYPE>(v);
    if (wdim > 0) weights[v] = static_cast<float>(view.vertex_load[static_cast<std::size_t>(v)].seconds());
  }
  *ierr = ZOLTAN_OK;
}

void num_edges(void* data, int /*num_gid*/, int /*num_lid*/, int num, ZOLTAN_ID_PTR /*gids*/, ZOLTAN_ID_PTR lids,
               int* counts, int* ierr) {
  const LocalGraph& g = static_cast<CallbackData*>(data)->view->graph;
  for (int i = 0; i < num; ++i) {
    const auto v = static_cast<LocalIndex>(lids[i]);
    int count = 0;
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) count += g.is_fixed_neighbor(e) ? 0 : 1;
    counts[i] = count;  // Zoltan's objects only: a pinned neighbor is none of them
  }
  *ierr = ZOLTAN_OK;
}

void edge_list(void* data, int /*num_gid*/, int /*num_lid*/, int num, ZOLTAN_ID_PTR /*gids*/, ZOLTAN_ID_PTR lids,
               int* /*counts*/, ZOLTAN_ID_PTR nbor_gids, int* nbor_procs, int wdim, float* ewgts, int* ierr) {
  const auto& d = *static_cast<CallbackData*>(data);
  const LoadView& view = *d.view;
  const LocalGraph& g = view.graph;
  std::size_t k = 0;
  for (int i = 0; i < num; ++i) {
    const auto v = static_cast<LocalIndex>(lids[i]);
    for (std::int64_t e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      if (g.is_fixed_neighbor(e)) continue;
      put_gid(nbor_gids + static_cast<std::ptrdiff_t>(k) * d.gid_entries, g.adj[e].value(), d.gid_entries);
      nbor_procs[k] = g.adj_owner[e].value();
      if (wdim > 0) ewgts[k] = static_cast<float>(std::max<std::int64_t>(1, view.edge_bytes * g.edge_weight(e)));
      ++k;
    }
  }
  *ierr = ZOLTAN_OK;
}

int num_geom(void* data, int* ierr) {
  *ierr = ZOLTAN_OK;
  return static_cast<CallbackData*>(data)->view->graph.dim;
}

void geom_multi(void* data, int /*num_gid*/, int /*num_lid*/, int num, ZOLTAN_ID_PTR /*gids*/, ZOLTAN_ID_PTR lids,
                int dim, double* xyz, int* ierr) {
  const LocalGraph& g = static_cast<CallbackData*>(data)->view->graph;
  for (int i = 0; i < num; ++i) {
    const auto c = g.coords_of(static_cast<LocalIndex>(lids[i]));
    for (int a = 0; a < dim; ++a) xyz[i * dim + a] = c[static_cast<std::size_t>(a)];
  }
  *ierr = ZOLTAN_OK;
}

void obj_size(void* data, int /*num_gid*/, int /*num_lid*/, int num, ZOLTAN_ID_PTR /*gids*/, ZOLTAN_ID_PTR lids,
              int* bytes, int* ierr) {
  const auto& d = *static_cast<CallbackData*>(data);
  const LocalGraph& g = d.view->graph;
  for (int i = 0; i < num; ++i) {
    const auto v = static_cast<LocalIndex>(lids[i]);
    const std::int64_t per_edge = 8 + 4 + (g.has_edge_weights ? 4 : 0);
    const std::int64_t size = 8 + 4 + static_cast<std::int64_t>(g.degree(v)) * per_edge +
                              std::int64_t{8} * (g.dim + g.ncon) + 8 + d.element_bytes;
    bytes[i] = static_cast<int>(std::min<std::int64_t>(size, INT_MAX));
  }
  *ierr = ZOLTAN_OK;
}

std::string zoltan_method(const ZoltanParams& p) {
  if (p.method == "graph") return "GRAPH";
  if (p.method == "hypergraph") return "HYPERGRAPH";
  if (p.method == "rcb") return "RCB";
  if (p.method == "rib") return "RIB";
  if (p.method == "hsfc") return "HSFC";
  if (p.method == "block") return "BLOCK";
  return "RANDOM";
}

void set(Zoltan_Struct* zz, const char* name, const std::string& value) {
  if (Zoltan_Set_Param(zz, name, value.c_str()) == ZOLTAN_FATAL) {
    throw AgreedRunError(fmt::format("zoltan: parameter {}={} was refused", name, value));
  }
}

void configure(Zoltan_Struct* zz, const ZoltanParams& p, int nranks, int gid_entries) {
  // DEBUG_LEVEL first, or Zoltan prints banners while the rest is set.
  set(zz, "DEBUG_LEVEL", "0");
  set(zz, "LB_METHOD", zoltan_method(p));
  set(zz, "LB_APPROACH",
      p.approach == "partition"     ? "PARTITION"
      : p.approach == "repartition" ? "REPARTITION"
                                    : "REFINE");
  set(zz, "NUM_GID_ENTRIES", std::to_string(gid_entries));
  set(zz, "NUM_LID_ENTRIES", "1");
  set(zz, "OBJ_WEIGHT_DIM", "1");
  set(zz, "EDGE_WEIGHT_DIM", p.method == "graph" || p.method == "hypergraph" ? "1" : "0");
  set(zz, "RETURN_LISTS", "EXPORT");
  set(zz, "NUM_GLOBAL_PARTS", std::to_string(nranks));
  set(zz, "IMBALANCE_TOL", fmt::format("{}", p.imbalance_tol));
  set(zz, "SEED", std::to_string(p.seed));
  if (p.method == "graph") set(zz, "GRAPH_PACKAGE", p.graph_package == "scotch" ? "SCOTCH" : "PHG");
  if (p.method == "hypergraph") set(zz, "HYPERGRAPH_PACKAGE", "PHG");
  if (p.method == "graph" || p.method == "hypergraph") {
    set(zz, "PHG_REPART_MULTIPLIER", fmt::format("{}", p.repart_multiplier));
  }
  if (p.method == "rcb" || p.method == "rib") set(zz, "KEEP_CUTS", "0");
}

// With a background load (objects that never move, which the callbacks do not list),
// this rank's part is sized to what balances it: the mean rank load less its background.
// Zoltan scales the sizes the ranks give to their sum.
void size_part_for_background(Zoltan_Struct* zz, const LoadView& view) {
  double background = 0;
  for (const Load l : view.background) background += l.seconds();
  int part = view.rank.value();
  int weight = 0;
  float size = static_cast<float>(std::max(1e-9, view.total_load.seconds() / view.nranks - background));
  Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &part, &weight, &size);
}

}  // namespace

MigrationPlan ZoltanBalancer::plan(const LoadView& view, MPI_Comm comm) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    float version = 0;
    Zoltan_Initialize(0, nullptr, &version);
  });
  if (params_.geometric() && view.graph.dim == 0) {
    // graph.dim is the same on every rank, so every rank throws.
    throw AgreedInputError(
        fmt::format("zoltan: method {} is geometric and needs coordinates, but this mesh has none "
                    "(give mesh.coords, or use method graph or hypergraph)",
                    params_.method));
  }
  if (view.graph.global_vertices > static_cast<std::int64_t>(UINT_MAX)) {
    throw AgreedInputError("zoltan: more vertices than Zoltan's 32-bit global ids can name");
  }
  CallbackData data{&view, view.element_bytes, view.graph.sparse_ids && sizeof(ZOLTAN_ID_TYPE) < 8 ? 2 : 1};
  Zoltan_Struct* zz = Zoltan_Create(comm);
  configure(zz, params_, view.nranks, data.gid_entries);
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, &data);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, &data);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges, &data);
  Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list, &data);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, &data);
  Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, &data);
  Zoltan_Set_Obj_Size_Multi_Fn(zz, obj_size, &data);
  if (!view.background.empty()) size_part_for_background(zz, view);

  int changes = 0, num_gid = 0, num_lid = 0, num_import = 0, num_export = 0;
  ZOLTAN_ID_PTR import_gids = nullptr, import_lids = nullptr, export_gids = nullptr, export_lids = nullptr;
  int *import_procs = nullptr, *import_parts = nullptr, *export_procs = nullptr, *export_parts = nullptr;
  const int rc =
      Zoltan_LB_Partition(zz, &changes, &num_gid, &num_lid, &num_import, &import_gids, &import_lids, &import_procs,
                          &import_parts, &num_export, &export_gids, &export_lids, &export_procs, &export_parts);
  MigrationPlan out;
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN) {
    for (int i = 0; i < num_export; ++i) {
      out.moves.push_back({static_cast<LocalIndex>(export_lids[i]), Rank{export_parts[i]}});
    }
  }
  Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
  Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
  Zoltan_Destroy(&zz);
  collectively(comm, [&] {
    if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) {
      throw RunError(fmt::format("zoltan: Zoltan_LB_Partition failed with code {} (method {}, approach {})", rc,
                                 params_.method, params_.approach));
    }
  });
  return out;
}

#else

bool zoltan_available() { return false; }

MigrationPlan ZoltanBalancer::plan(const LoadView&, MPI_Comm) {
  throw AgreedInputError("zoltan is not available in this build");
}

#endif

}  // namespace lbbench
