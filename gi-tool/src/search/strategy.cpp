#include "search/strategy.hpp"

#include <map>

#include "search/anneal.hpp"
#include "search/gp_strategy.hpp"
#include "search/nsga2.hpp"
#include "util/error.hpp"

namespace gi {
namespace {
std::map<std::string, StrategyFactory>& registry() {
    // gp is registered here rather than by a static in its own file: gi_core is a static library,
    // and the linker drops object files nothing refers to, registrars included.
    static std::map<std::string, StrategyFactory> strategies{
        {"gp", [](StrategyContext context) -> std::unique_ptr<Strategy> {
             return std::make_unique<GpStrategy>(std::move(context));
         }},
        {"nsga2", [](StrategyContext context) -> std::unique_ptr<Strategy> {
             return std::make_unique<Nsga2Strategy>(std::move(context));
         }},
        {"anneal", [](StrategyContext context) -> std::unique_ptr<Strategy> {
             return std::make_unique<AnnealStrategy>(std::move(context));
         }}};
    return strategies;
}
}  // namespace

bool register_strategy(const std::string& name, StrategyFactory factory) {
    registry()[name] = std::move(factory);
    return true;
}

std::vector<std::string> strategy_names() {
    std::vector<std::string> names;
    for (const auto& [name, factory] : registry()) names.push_back(name);
    return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, StrategyContext context) {
    auto it = registry().find(name);
    if (it == registry().end()) {
        std::string known;
        for (const std::string& n : strategy_names()) known += (known.empty() ? "" : ", ") + n;
        throw UsageError("--strategy: unknown strategy '" + name + "' (known: " + known + ")");
    }
    if (context.grammar == nullptr) throw Error("make_strategy: no grammar given");
    if (context.population < 2) throw UsageError("--population must be at least 2, got " + std::to_string(context.population));
    return it->second(std::move(context));
}

}  // namespace gi
