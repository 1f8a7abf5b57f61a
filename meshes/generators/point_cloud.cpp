// Point clouds in the unit box joined within a cutoff radius: `geometric` (uniform, like a
// molecular-dynamics liquid) and `droplets` (clustered, like a condensing vapor).
//
// Fully distributed: the box is cut into cells no smaller than the cutoff, cells are dealt
// to ranks in contiguous chunks, and each cell holds a number of points proportional to the
// density's mass in it, placed uniformly inside the cell by hashing (seed, cell, j). Point
// ids run cell by cell, so a cell's first id is the rounded cumulative mass before it. A
// rank computes only its own cells and asks the owners of the neighboring cells for their
// (first id, count); no rank ever holds all points. Within a cell the placement is uniform,
// so the density is resolved at the scale of the cutoff radius.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <unordered_map>

#include "comm/mpi.hpp"
#include "comm/sparse_exchange.hpp"
#include "core/blocks.hpp"
#include "core/error.hpp"
#include "core/hash.hpp"
#include "meshes/build.hpp"

namespace lbbench {

namespace {

struct CellGrid {
  int dim = 2;
  std::int64_t k = 1;  // cells per axis
  std::int64_t count = 1;
  double side = 1.0;

  std::array<std::int64_t, 3> coords(std::int64_t c) const { return {c % k, (c / k) % k, c / (k * k)}; }
  std::int64_t index(const std::array<std::int64_t, 3>& p) const { return p[0] + k * (p[1] + k * p[2]); }

  // Cells whose points may lie within one side of cell c, c included, in index order.
  std::vector<std::int64_t> stencil(std::int64_t c) const {
    const auto p = coords(c);
    std::vector<std::int64_t> out;
    const std::int64_t dz = dim == 3 ? 1 : 0;
    for (std::int64_t z = p[2] - dz; z <= p[2] + dz; ++z) {
      for (std::int64_t y = p[1] - 1; y <= p[1] + 1; ++y) {
        for (std::int64_t x = p[0] - 1; x <= p[0] + 1; ++x) {
          if (x < 0 || y < 0 || z < 0 || x >= k || y >= k || (dim == 3 && z >= k)) continue;
          out.push_back(index({x, y, z}));
        }
      }
    }
    return out;
  }
};

CellGrid make_cells(std::int64_t n, int dim, double radius) {
  CellGrid g;
  g.dim = dim;
  const auto by_radius = static_cast<std::int64_t>(std::floor(1.0 / radius));
  // No more cells than points, or most cells would be empty and the id order would follow
  // the cell order instead of space.
  auto by_points = static_cast<std::int64_t>(std::floor(std::pow(static_cast<double>(n), 1.0 / dim)));
  while (by_points > 1 && std::pow(static_cast<double>(by_points), dim) > static_cast<double>(n)) --by_points;
  g.k = std::max<std::int64_t>(1, std::min(by_radius, by_points));
  g.count = dim == 2 ? g.k * g.k : g.k * g.k * g.k;
  g.side = 1.0 / static_cast<double>(g.k);
  return g;
}

// Mass of the density in the cell [lo, lo+side)^dim, up to a constant factor.
using Density = std::function<double(const std::array<double, 3>& lo, double side)>;

struct CellSpan {
  std::int64_t first = 0;  // id of the cell's first point
  std::int64_t count = 0;
};

class PointCloud {
 public:
  PointCloud(std::int64_t n, int dim, double radius, std::uint64_t seed, const Density& density, MPI_Comm comm)
      : n_(n), radius_(radius), seed_(seed), cells_(make_cells(n, dim, radius)), comm_(comm) {
    me_ = comm_rank(comm);
    nranks_ = comm_size(comm);
    cell_begin_ = block_begin(me_, cells_.count, nranks_);
    cell_end_ = block_begin(me_ + 1, cells_.count, nranks_);
    count_local_cells(density);
    fetch_halo_spans();
  }

  LocalGraph build() {
    LocalGraph g;
    g.dim = cells_.dim;
    std::vector<std::pair<VertexId, Rank>> nbrs;
    std::vector<VertexId> ids;
    std::vector<Rank> owners;
    for (std::int64_t c = cell_begin_; c < cell_end_; ++c) {
      const CellSpan own = span_of(c);
      const auto stencil = cells_.stencil(c);
      const auto& mine = points_of(c);
      for (std::int64_t j = 0; j < own.count; ++j) {
        const auto& p = mine[static_cast<std::size_t>(j)];
        nbrs.clear();
        for (std::int64_t c2 : stencil) {
          const CellSpan other = span_of(c2);
          const auto& theirs = points_of(c2);
          const Rank owner{block_owner(c2, cells_.count, nranks_)};
          for (std::int64_t j2 = 0; j2 < other.count; ++j2) {
            if (c2 == c && j2 == j) continue;
            if (distance2(p, theirs[static_cast<std::size_t>(j2)]) < radius_ * radius_) {
              nbrs.emplace_back(VertexId{other.first + j2}, owner);
            }
          }
        }
        std::sort(nbrs.begin(), nbrs.end());
        ids.clear();
        owners.clear();
        for (const auto& [id, owner] : nbrs) {
          ids.push_back(id);
          owners.push_back(owner);
        }
        g.add_vertex(VertexId{own.first + j}, ids, owners, {}, std::span(p).first(static_cast<std::size_t>(cells_.dim)),
                     {});
      }
    }
    finish_graph(g, comm_);
    return g;
  }

 private:
  void count_local_cells(const Density& density) {
    std::vector<double> mass;
    for (std::int64_t c = cell_begin_; c < cell_end_; ++c) {
      const auto p = cells_.coords(c);
      const std::array<double, 3> lo{p[0] * cells_.side, p[1] * cells_.side, p[2] * cells_.side};
      mass.push_back(density(lo, cells_.side));
    }
    const double local_sum = std::accumulate(mass.begin(), mass.end(), 0.0);
    std::vector<double> sums(static_cast<std::size_t>(nranks_));
    MPI_Allgather(&local_sum, 1, MPI_DOUBLE, sums.data(), 1, MPI_DOUBLE, comm_);
    // Every rank sums in the same order, so chunk boundaries agree bit for bit and the
    // counts telescope to exactly n.
    double start = 0.0;
    for (int r = 0; r < me_; ++r) start += sums[static_cast<std::size_t>(r)];
    const double total = std::accumulate(sums.begin(), sums.end(), 0.0);
    // Every rank sees the same total, so every rank throws: no agreement needed.
    if (!(total > 0.0)) throw AgreedInputError("point cloud: the density has no mass in the unit box");
    auto cumulative = [&](double m) { return static_cast<std::int64_t>(std::floor(double(n_) * m / total + 0.5)); };
    double next_start = start + local_sum;
    const std::int64_t first = me_ == 0 ? 0 : cumulative(start);
    const std::int64_t last = me_ == nranks_ - 1 ? n_ : cumulative(next_start);
    std::int64_t at = first;
    double running = start;
    for (std::size_t i = 0; i < mass.size(); ++i) {
      running += mass[i];
      const bool final_cell = i + 1 == mass.size();
      const std::int64_t end = final_cell ? last : std::clamp(cumulative(running), at, last);
      local_spans_.push_back({at, end - at});
      at = end;
    }
  }

  void fetch_halo_spans() {
    std::unordered_map<int, std::vector<std::int64_t>> wanted;
    for (std::int64_t c = cell_begin_; c < cell_end_; ++c) {
      for (std::int64_t c2 : cells_.stencil(c)) {
        if (c2 >= cell_begin_ && c2 < cell_end_) continue;
        if (halo_.emplace(c2, CellSpan{}).second) wanted[block_owner(c2, cells_.count, nranks_)].push_back(c2);
      }
    }
    std::unordered_map<int, Bytes> requests;
    for (const auto& [peer, cells] : wanted) ByteWriter(requests[peer]).put_span<std::int64_t>(cells);
    SparseExchange exchange(comm_);
    std::vector<Message> replies;
    for (const auto& request : exchange.exchange(to_messages(requests))) {
      ByteReader in(request.data);
      Message reply{request.peer, {}};
      ByteWriter out(reply.data);
      while (!in.done()) {
        const auto c = in.get<std::int64_t>();
        out.put(c);
        out.put(span_of(c));
      }
      replies.push_back(std::move(reply));
    }
    for (const auto& reply : exchange.exchange(replies)) {
      ByteReader in(reply.data);
      while (!in.done()) {
        const auto c = in.get<std::int64_t>();
        halo_[c] = in.get<CellSpan>();
      }
    }
  }

  CellSpan span_of(std::int64_t c) const {
    if (c >= cell_begin_ && c < cell_end_) return local_spans_[static_cast<std::size_t>(c - cell_begin_)];
    return halo_.at(c);
  }

  // The points of cell c, generated once; references stay valid as the cache grows.
  const std::vector<std::array<double, 3>>& points_of(std::int64_t c) {
    auto [it, inserted] = points_.try_emplace(c);
    if (!inserted) return it->second;
    const auto p = cells_.coords(c);
    const CellSpan span = span_of(c);
    for (std::int64_t j = 0; j < span.count; ++j) {
      std::array<double, 3> x{0, 0, 0};
      for (int a = 0; a < cells_.dim; ++a) {
        const double u = uniform01({seed_, tag(Stream::point_position), static_cast<std::uint64_t>(c),
                                    static_cast<std::uint64_t>(j), static_cast<std::uint64_t>(a)});
        x[a] = (static_cast<double>(p[a]) + u) * cells_.side;
      }
      it->second.push_back(x);
    }
    return it->second;
  }

  static double distance2(const std::array<double, 3>& a, const std::array<double, 3>& b) {
    double d = 0;
    for (int i = 0; i < 3; ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
    return d;
  }

  std::int64_t n_;
  double radius_;
  std::uint64_t seed_;
  CellGrid cells_;
  MPI_Comm comm_;
  int me_ = 0;
  int nranks_ = 1;
  std::int64_t cell_begin_ = 0;
  std::int64_t cell_end_ = 0;
  std::vector<CellSpan> local_spans_;
  std::unordered_map<std::int64_t, CellSpan> halo_;
  std::unordered_map<std::int64_t, std::vector<std::array<double, 3>>> points_;
};

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

LocalGraph generate_geometric(const GeometricSpec& spec, std::uint64_t seed, MPI_Comm comm) {
  const Density uniform = [](const std::array<double, 3>&, double) { return 1.0; };
  return PointCloud(spec.n, spec.dim, spec.radius, seed, uniform, comm).build();
}

// Droplets are truncated Gaussians (sigma = droplet_radius / 2) centered uniformly at
// random at least one droplet radius from the walls; a share `fraction` of the points sits
// in them, equally split, and the rest is uniform vapor.
LocalGraph generate_droplets(const DropletsSpec& spec, std::uint64_t seed, MPI_Comm comm) {
  const int dim = spec.dim;
  const double sigma = spec.droplet_radius / 2.0;
  const double margin = std::min(spec.droplet_radius, 0.5);
  std::vector<std::array<double, 3>> centers(static_cast<std::size_t>(spec.droplets));
  std::vector<double> norm(static_cast<std::size_t>(spec.droplets), 1.0);
  for (int k = 0; k < spec.droplets; ++k) {
    for (int a = 0; a < dim; ++a) {
      const double u =
          uniform01({seed, tag(Stream::droplet_center), static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(a)});
      centers[k][a] = margin + u * (1.0 - 2.0 * margin);
      norm[k] *= normal_cdf((1.0 - centers[k][a]) / sigma) - normal_cdf(-centers[k][a] / sigma);
    }
  }
  const Density density = [&](const std::array<double, 3>& lo, double side) {
    const double volume = std::pow(side, dim);
    double droplet_mass = 0.0;
    for (std::size_t k = 0; k < centers.size(); ++k) {
      double m = 1.0;
      for (int a = 0; a < dim; ++a) {
        m *= normal_cdf((lo[a] + side - centers[k][a]) / sigma) - normal_cdf((lo[a] - centers[k][a]) / sigma);
      }
      droplet_mass += m / norm[k];
    }
    return (1.0 - spec.fraction) * volume + spec.fraction * droplet_mass / static_cast<double>(centers.size());
  };
  return PointCloud(spec.n, dim, spec.radius, seed, density, comm).build();
}

}  // namespace lbbench
