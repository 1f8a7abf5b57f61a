// A mesh file reader (METIS, Chaco or Matrix Market, as LBBENCH_FUZZ_FORMAT says) on
// arbitrary files, in one MPI process.
#include <mpi.h>

#include "fuzz_input.hpp"
#include "meshes/build.hpp"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lbbench::MeshFileSpec spec;
  spec.format = lbbench::MeshFormat::LBBENCH_FUZZ_FORMAT;
  spec.path = spec.resolved = lbbench::fuzz::as_file(data, size, "mesh");
  return lbbench::fuzz::expecting_input_errors([&] { (void)lbbench::read_mesh_file(spec, MPI_COMM_SELF); });
}
