// A plugin's strategy as a balancer of its shape (see plugin_balancers.hpp).
#include "balancers/plugin_balancers.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "balancers/plugins.hpp"
#include "balancers/sdk/centralized.hpp"
#include "balancers/sdk/plugin.hpp"
#include "balancers/sdk/protocol.hpp"
#include "core/error.hpp"

namespace lbbench {

namespace {

// "plugin strategy 'name' (path)", for every message about it.
std::string who(const BalancerConfig& config) {
  const plugin::Declaration* d = config.info().plugin;
  for (const auto& p : loaded_plugins()) {
    if (p.declaration == d) return fmt::format("plugin strategy '{}' ({})", d->name, p.path);
  }
  return fmt::format("plugin strategy '{}'", d->name);
}

// Runs the plugin's code; what it throws stops the run, naming it.
template <class Code>
auto guarded(const std::string& name, const char* what, Code&& code) -> decltype(code()) {
  try {
    return code();
  } catch (const RunError&) {
    throw;
  } catch (const std::exception& e) {
    throw RunError(fmt::format("{}: {} threw: {}", name, what, e.what()));
  }
}

// Every object keeps a place, and every place is a rank.
void check_owners(const std::string& name, const char* what, const std::vector<Rank>& owners, std::size_t objects,
                  int nranks) {
  if (owners.size() != objects) {
    throw RunError(fmt::format("{}: {} gave {} owners for {} objects (an object would be lost)", name, what,
                               owners.size(), objects));
  }
  for (std::size_t i = 0; i < owners.size(); ++i) {
    if (owners[i].value() < 0 || owners[i].value() >= nranks) {
      throw RunError(fmt::format("{}: {} put object {} on rank {}, and the ranks are 0..{}", name, what, i,
                                 owners[i].value(), nranks - 1));
    }
  }
}

class PluginCentralized final : public CentralizedBalancer {
 public:
  PluginCentralized(std::unique_ptr<plugin::Centralized> strategy, std::string name)
      : strategy_(std::move(strategy)), needs_(strategy_->needs()), name_(std::move(name)) {}

  [[nodiscard]] Assignment solve(const GlobalProblem& problem) const override {
    Assignment a = guarded(name_, "solve()", [&] { return strategy_->solve(problem); });
    check_owners(name_, "solve()", a, problem.size(), problem.nranks);
    return a;
  }
  [[nodiscard]] bool needs_graph() const override { return needs_.graph; }
  [[nodiscard]] bool needs_vectors() const override { return needs_.vectors; }
  [[nodiscard]] bool needs_coords() const override { return needs_.coords; }

 private:
  std::unique_ptr<plugin::Centralized> strategy_;
  plugin::Needs needs_;
  std::string name_;
};

// One rank's side of a plugin's protocol, checked as it goes.
class CheckedProtocol final : public RankProtocol {
 public:
  CheckedProtocol(std::unique_ptr<RankProtocol> inner, std::size_t units, int nranks, const std::string* name)
      : inner_(std::move(inner)), units_(units), nranks_(nranks), name_(name) {}

  Outbox step(const Inbox& inbox) override {
    return guarded(*name_, "its protocol's step()", [&] { return inner_->step(inbox); });
  }
  [[nodiscard]] bool finished() const override { return inner_->finished(); }
  [[nodiscard]] std::vector<Rank> owners() const override {
    std::vector<Rank> out = guarded(*name_, "its protocol's owners()", [&] { return inner_->owners(); });
    check_owners(*name_, "its protocol's owners()", out, units_, nranks_);
    return out;
  }
  [[nodiscard]] std::int64_t largest_list() const override { return inner_->largest_list(); }
  [[nodiscard]] std::unique_ptr<RankProtocol> clone() const override {
    return std::make_unique<CheckedProtocol>(inner_->clone(), units_, nranks_, name_);
  }

 private:
  std::unique_ptr<RankProtocol> inner_;
  std::size_t units_;
  int nranks_;
  const std::string* name_;  // the balancer's, which outlives its protocols
};

class PluginProtocol final : public DistributedBalancer {
 public:
  PluginProtocol(std::unique_ptr<plugin::Protocol> strategy, std::string name)
      : strategy_(std::move(strategy)), name_(std::move(name)) {}

  [[nodiscard]] std::unique_ptr<RankProtocol> make_protocol(RankWork work, const ProtocolContext& ctx) const override {
    const std::size_t units = work.units();
    const int nranks = work.nranks;
    auto inner = guarded(name_, "make_protocol()", [&] { return strategy_->make_protocol(std::move(work), ctx); });
    if (!inner) throw RunError(fmt::format("{}: make_protocol() made no protocol", name_));
    return std::make_unique<CheckedProtocol>(std::move(inner), units, nranks, &name_);
  }
  [[nodiscard]] bool needs_locality() const override { return strategy_->needs_locality(); }

 private:
  std::unique_ptr<plugin::Protocol> strategy_;
  std::string name_;
};

class PluginGeneral final : public Balancer {
 public:
  PluginGeneral(std::unique_ptr<plugin::General> strategy, std::string name)
      : strategy_(std::move(strategy)), name_(std::move(name)) {}

  MigrationPlan plan(const LoadView& view, MPI_Comm comm) override {
    MigrationPlan out = guarded(name_, "plan()", [&] { return strategy_->plan(view, comm); });
    for (const Move& m : out.moves) {
      if (m.vertex < 0 || m.vertex >= view.graph.num_local() || m.to.value() < 0 || m.to.value() >= view.nranks) {
        throw RunError(
            fmt::format("{}: plan() on rank {} moves local vertex {} of {} to rank {}, and the ranks are "
                        "0..{}",
                        name_, view.rank.value(), m.vertex, view.graph.num_local(), m.to.value(), view.nranks - 1));
      }
    }
    return out;
  }

 private:
  std::unique_ptr<plugin::General> strategy_;
  std::string name_;
};

}  // namespace

std::unique_ptr<Balancer> make_plugin_balancer(const BalancerConfig& config) {
  const plugin::Declaration& d = *config.info().plugin;
  const plugin::Params& params = plugin_params(config);
  std::string name = who(config);
  switch (d.shape) {
    case plugin::Shape::centralized:
      return std::make_unique<PluginCentralized>(guarded(name, "its maker", [&] { return d.make_centralized(params); }),
                                                 std::move(name));
    case plugin::Shape::protocol:
      return std::make_unique<PluginProtocol>(guarded(name, "its maker", [&] { return d.make_protocol(params); }),
                                              std::move(name));
    case plugin::Shape::general:
      return std::make_unique<PluginGeneral>(guarded(name, "its maker", [&] { return d.make_general(params); }),
                                             std::move(name));
  }
  throw std::logic_error("make_plugin_balancer: a shape without a case");
}

}  // namespace lbbench
