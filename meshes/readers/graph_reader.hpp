// Shared pieces of the file readers: the records rank 0 routes, and the checks that run
// after every rank holds its block of vertices.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/local_graph.hpp"

namespace lbbench {

// A graph read in contiguous id blocks, with the file line of every local vertex.
struct ReadGraph {
  LocalGraph graph;
  std::vector<std::int64_t> line;  // per local vertex; 0 when lines do not apply
};

// METIS .graph, or Chaco (same layout; the format code's hundreds digit means "vertex
// numbers lead each line" instead of METIS's "vertex sizes").
ReadGraph read_metis_or_chaco(const std::string& path, bool chaco, MPI_Comm comm);

// Matrix Market coordinate files: the sparsity pattern, off-diagonal, symmetrized.
LocalGraph read_matrix_market(const std::string& path, MPI_Comm comm);

// One line of coordinates per vertex (Chaco .coords / .xyz), attached to the block layout.
void read_coordinates(const std::string& path, LocalGraph& g, MPI_Comm comm);

// Every edge must be listed at both ends with the same weight; the error names both lines.
void check_symmetric(const ReadGraph& read, const std::string& path, MPI_Comm comm);

}  // namespace lbbench
