// Shared pieces of the vector strategies (see vector_problem.hpp).
#include "balancers/vector/vector_problem.hpp"

#include <algorithm>

namespace lbbench {

int vector_dims(const GlobalProblem& problem) { return problem.load_vec.empty() ? 1 : problem.dims; }

ObjectVectors::ObjectVectors(const GlobalProblem& problem) : dims_(vector_dims(problem)) {
  const std::vector<Load>& source = problem.load_vec.empty() ? problem.load : problem.load_vec;
  values_.reserve(source.size());
  for (Load l : source) values_.push_back(l.seconds());
}

double ObjectVectors::largest_component(std::size_t object) const {
  const auto v = of(object);
  return *std::max_element(v.begin(), v.end());
}

int ObjectVectors::largest_dimension(std::size_t object) const {
  const auto v = of(object);
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());  // first of equals
}

std::vector<double> background_loads(const GlobalProblem& problem, int dims) {
  const auto d = static_cast<std::size_t>(dims);
  std::vector<double> out(static_cast<std::size_t>(problem.nranks) * d, 0.0);
  if (problem.rank_background_vec.size() == out.size()) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = problem.rank_background_vec[i].seconds();
  } else {
    for (int r = 0; r < problem.nranks; ++r) out[static_cast<std::size_t>(r) * d] = problem.background(r);
  }
  return out;
}

std::vector<double> rank_vector_times(const GlobalProblem& problem, const Assignment& assignment) {
  const ObjectVectors objects(problem);
  const auto d = static_cast<std::size_t>(objects.dims());
  std::vector<double> t = background_loads(problem, objects.dims());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const auto r = static_cast<std::size_t>(assignment[i].value());
    for (std::size_t k = 0; k < d; ++k) t[r * d + k] += objects.at(i, static_cast<int>(k));
  }
  for (int r = 0; r < problem.nranks; ++r) {
    for (std::size_t k = 0; k < d; ++k) t[static_cast<std::size_t>(r) * d + k] /= problem.speed(r);
  }
  return t;
}

double objective_of(std::span<const double> times, int dims) {
  const auto d = static_cast<std::size_t>(dims);
  std::vector<double> worst(d, 0.0);
  for (std::size_t i = 0; i < times.size(); ++i) worst[i % d] = std::max(worst[i % d], times[i]);
  double sum = 0;
  for (double w : worst) sum += w;
  return sum;
}

double vector_objective(const GlobalProblem& problem, const Assignment& assignment) {
  return objective_of(rank_vector_times(problem, assignment), vector_dims(problem));
}

double vector_lower_bound(const GlobalProblem& problem) {
  const ObjectVectors objects(problem);
  const auto d = static_cast<std::size_t>(objects.dims());
  double speed_sum = 0, fastest = 0;
  for (int r = 0; r < problem.nranks; ++r) {
    speed_sum += problem.speed(r);
    fastest = std::max(fastest, problem.speed(r));
  }
  std::vector<double> total(d, 0.0), biggest(d, 0.0);
  const std::vector<double> background = background_loads(problem, objects.dims());
  for (std::size_t i = 0; i < background.size(); ++i) total[i % d] += background[i];
  for (std::size_t i = 0; i < objects.size(); ++i) {
    for (std::size_t k = 0; k < d; ++k) {
      total[k] += objects.at(i, static_cast<int>(k));
      biggest[k] = std::max(biggest[k], objects.at(i, static_cast<int>(k)));
    }
  }
  double bound = 0;
  for (std::size_t k = 0; k < d; ++k) bound += std::max(total[k] / speed_sum, biggest[k] / fastest);
  return bound;
}

}  // namespace lbbench
