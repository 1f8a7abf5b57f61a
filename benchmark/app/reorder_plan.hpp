// `lbbench reorder`: plan a rank reorder from the command line, before launching, and
// print the permutation and each core's load.
#pragma once

#include <string>

namespace lbbench {

struct ReorderRequest {
  int cores = 0;                      // --cores
  std::string loads;                  // --loads 4x20,2x20,1x24
  std::string loads_file;             // --loads-file
  int per_core = 0;                   // --per-core K
  std::string per_core_list;          // --per-core-list 3x8,5x8 (processes x cores)
  std::string method = "paper";       // --method
  int levels = 16;                    // --t
  unsigned long long seed = 1;        // --seed
  long long max_nodes = 200'000'000;  // --max-nodes: exact's search budget
  bool compare = false;               // --compare: every method's maximum core load
};

// Throws InputError for bad input; returns the exit code.
int plan_reorder(const ReorderRequest& request);

}  // namespace lbbench
