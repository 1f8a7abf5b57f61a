// A centralized strategy written in Python (see python.hpp).
#include "balancers/global/python.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <pybind11/embed.h>
#include <pybind11/numpy.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "comm/mpi.hpp"
#include "core/error.hpp"

namespace py = pybind11;

namespace lbbench {

namespace {

// Extension modules (NumPy's) take the interpreter's symbols from the process's global
// scope, where a binary loaded as a library (lbbench-smpi, which smpirun loads) does not
// put its own libraries: put libpython there.
void make_libpython_global() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Py_InitializeEx), &info) == 0 || info.dli_fname == nullptr) return;
  if (void* self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL)) dlclose(self);
}

// The interpreter starts before the first Python solve and lives as long as the process:
// NumPy cannot be imported again into a restarted one.
// Isolated from the environment (PYTHONPATH, PYTHONHOME, a pyenv's python3 first on the
// PATH): its paths are those of the interpreter lbbench was built with, whose NumPy it
// imports. It leaves the signals to lbbench.
void start_interpreter() {
  if (Py_IsInitialized()) return;
  make_libpython_global();
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.install_signal_handlers = 0;
  const PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, LBBENCH_PYTHON_EXECUTABLE);
  if (PyStatus_Exception(status) != 0) {
    PyConfig_Clear(&config);
    throw RunError(fmt::format("cannot start the embedded Python ({}): {}", LBBENCH_PYTHON_EXECUTABLE,
                               status.err_msg != nullptr ? status.err_msg : "no reason given"));
  }
  py::initialize_interpreter(&config, 0, nullptr, false);
}

// A read-only NumPy view of `values` (no copy): `owner` keeps the data alive as long as
// the array, and the arrays live only during the call.
template <class T>
py::array view(const T* values, std::vector<py::ssize_t> shape, const py::object& owner) {
  std::vector<py::ssize_t> strides(shape.size(), static_cast<py::ssize_t>(sizeof(T)));
  for (std::size_t k = shape.size() - 1; k > 0; --k) strides[k - 1] = strides[k] * shape[k];
  py::array a(py::dtype::of<T>(), std::move(shape), std::move(strides), values, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

template <class T>
py::array view(const std::vector<T>& values, const py::object& owner) {
  return view(values.data(), {static_cast<py::ssize_t>(values.size())}, owner);
}

// A per-rank table, or its default for every rank where the problem has none.
template <class T>
std::vector<T> per_rank(const std::vector<T>& table, int nranks, T fallback) {
  return table.empty() ? std::vector<T>(static_cast<std::size_t>(nranks), fallback) : table;
}

// Strong ids and loads are their value: the same bytes as the plain type.
static_assert(sizeof(Load) == sizeof(double) && sizeof(Rank) == sizeof(int) && sizeof(VertexId) == 8);

}  // namespace

// A strong reference to the function (PyObject*: pybind11's own types are hidden).
struct PythonBalancer::Function {
  PyObject* function = nullptr;
};

PythonBalancer::PythonBalancer(PythonParams params) : params_(std::move(params)) {}

PythonBalancer::~PythonBalancer() {
  if (function_ && Py_IsInitialized()) Py_DECREF(function_->function);
}

std::string PythonBalancer::who() const {
  return fmt::format("python strategy {}:{}", params_.module_resolved, params_.function);
}

void PythonBalancer::load_function() const {
  if (function_) return;
  start_interpreter();
  try {
    const py::module_ util = py::module_::import("importlib.util");
    const std::filesystem::path file(params_.module_resolved);
    const std::string name = file.stem().string();
    // Modules beside it import as they would beside a script.
    py::module_::import("sys").attr("path").attr("insert")(0, file.parent_path().string());
    const py::object spec = util.attr("spec_from_file_location")(name, params_.module_resolved);
    const py::object module = util.attr("module_from_spec")(spec);
    spec.attr("loader").attr("exec_module")(module);
    py::object function = module.attr(params_.function.c_str());
    function_ = std::make_unique<Function>(Function{function.release().ptr()});
  } catch (const py::error_already_set& e) {
    throw RunError(fmt::format("{}: the module could not be loaded:\n{}", who(), e.what()));
  }
}

void PythonBalancer::prepare(MPI_Comm comm) {
  if (comm_rank(comm) == 0) load_function();
}

Assignment PythonBalancer::solve(const GlobalProblem& p) const {
  load_function();
  const std::string who = this->who();
  try {
    const auto n = static_cast<py::ssize_t>(p.size());
    const std::vector<double> speed = per_rank(p.rank_speed, p.nranks, 1.0);
    const std::vector<int> node = per_rank(p.rank_node, p.nranks, 0);
    const std::vector<int> site = per_rank(p.rank_site, p.nranks, 0);
    const py::object keep = py::none();  // the views borrow; this call outlives them
    py::dict problem;
    problem["nranks"] = p.nranks;
    problem["load"] = view(reinterpret_cast<const double*>(p.load.data()), {n}, keep);
    problem["owner"] = view(reinterpret_cast<const int*>(p.owner.data()), {n}, keep);
    problem["id"] = view(reinterpret_cast<const std::int64_t*>(p.id.data()), {n}, keep);
    if (!p.load_vec.empty()) {
      problem["load_vec"] = view(reinterpret_cast<const double*>(p.load_vec.data()), {n, p.dims}, keep);
    }
    if (!p.coords.empty()) problem["coords"] = view(p.coords.data(), {n, p.coord_dims}, keep);
    if (p.has_graph()) {
      problem["xadj"] = view(p.xadj, keep);
      problem["adjncy"] = view(p.adjncy, keep);
      problem["adj_bytes"] = view(p.adj_bytes, keep);
    }
    problem["rank_speed"] = view(speed, keep);
    problem["rank_node"] = view(node, keep);
    problem["rank_site"] = view(site, keep);
    if (p.has_background())
      problem["rank_background"] =
          view(reinterpret_cast<const double*>(p.rank_background.data()), {static_cast<py::ssize_t>(p.nranks)}, keep);
    py::dict kwargs;
    for (const auto& [key, value] : params_.args.items()) {
      if (value.is_boolean()) {
        kwargs[py::str(key)] = value.get<bool>();
      } else if (value.is_number_integer()) {
        kwargs[py::str(key)] = value.get<std::int64_t>();
      } else if (value.is_number()) {
        kwargs[py::str(key)] = value.get<double>();
      } else {
        kwargs[py::str(key)] = value.get<std::string>();
      }
    }
    const py::object result = py::reinterpret_borrow<py::object>(function_->function)(problem, **kwargs);
    const auto owners = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(result);
    if (!owners || owners.ndim() != 1 || owners.shape(0) != n) {
      throw RunError(fmt::format("{}: returned {}, not an array of {} owners (one rank per object)", who,
                                 py::str(py::type::of(result)).cast<std::string>(), n));
    }
    Assignment out(static_cast<std::size_t>(n));
    for (py::ssize_t i = 0; i < n; ++i) {
      const std::int64_t r = owners.at(i);
      if (r < 0 || r >= p.nranks) {
        throw RunError(fmt::format("{}: put object {} on rank {}, and the ranks are 0..{}", who, i, r, p.nranks - 1));
      }
      out[static_cast<std::size_t>(i)] = Rank{static_cast<int>(r)};
    }
    return out;
  } catch (const py::error_already_set& e) {
    throw RunError(fmt::format("{} raised:\n{}", who, e.what()));
  }
}

}  // namespace lbbench
