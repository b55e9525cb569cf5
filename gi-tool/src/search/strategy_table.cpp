#include "search/strategy_table.hpp"

#include <algorithm>
#include <set>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {

#define GI_STRATEGY(entry_function) StrategyEntry entry_function();
#include "search/strategies.def"
#undef GI_STRATEGY

namespace {

void check_entry(const std::vector<StrategyEntry>& table, const StrategyEntry& entry) {
    const std::string where = "strategy '" + entry.name + "'";
    if (entry.name.empty()) throw Error("a strategy entry without a name");
    if (!entry.make) throw Error(where + ": the entry has no factory (StrategyEntry::make)");
    std::set<std::string> taken;
    for (const StrategyEntry& other : table) {
        if (other.name == entry.name) throw Error(where + " is in the strategy table already");
        for (const StrategyOption& option : other.options) taken.insert(option.name);
    }
    for (const StrategyOption& option : entry.options) {
        if (option.name.rfind("--", 0) != 0)
            throw Error(where + ": option '" + option.name + "' must start with --");
        if (!taken.insert(option.name).second)
            throw Error(where + ": option " + option.name + " is another strategy's (or this one's twice)");
        if (option.min > option.max || option.default_value < option.min || option.default_value > option.max)
            throw Error(where + ": option " + option.name + "'s default " + std::to_string(option.default_value) +
                        " is outside its range " + std::to_string(option.min) + ".." + std::to_string(option.max));
    }
}

constexpr std::size_t kOwnStrategies = 0
#define GI_STRATEGY(entry_function) +1
#include "search/strategies.def"
#undef GI_STRATEGY
    ;

// Static libraries drop object files nothing refers to, registrars included, so the table is
// built here from strategies.def's rows rather than by statics in the strategies' own files.
std::vector<StrategyEntry>& table() {
    static std::vector<StrategyEntry> entries = [] {
        std::vector<StrategyEntry> built;
        for (StrategyEntry entry : {
#define GI_STRATEGY(entry_function) entry_function(),
#include "search/strategies.def"
#undef GI_STRATEGY
             }) {
            check_entry(built, entry);
            built.push_back(std::move(entry));
        }
        return built;
    }();
    return entries;
}

}  // namespace

long long StrategyContext::setting(const std::string& option) const {
    const auto it = settings.find(option);
    if (it == settings.end()) throw Error("strategy option " + option + " is not one the strategy declares");
    return it->second;
}

const std::vector<StrategyEntry>& strategy_table() { return table(); }

const StrategyEntry* find_strategy(const std::string& name) {
    for (const StrategyEntry& entry : table())
        if (entry.name == name) return &entry;
    return nullptr;
}

void register_strategy(StrategyEntry entry) {
    check_entry(table(), entry);
    table().push_back(std::move(entry));
}

void unregister_strategy(const std::string& name) {
    std::vector<StrategyEntry>& entries = table();
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const StrategyEntry& e) { return e.name == name; });
    if (it == entries.end()) throw Error("unregister_strategy: no strategy '" + name + "' in the table");
    if (it - entries.begin() < static_cast<std::ptrdiff_t>(kOwnStrategies))
        throw Error("unregister_strategy: '" + name + "' is one of gi-tool's own (search/strategies.def)");
    entries.erase(it);
}

std::vector<std::string> strategy_names() {
    std::vector<std::string> names;
    for (const StrategyEntry& entry : table()) names.push_back(entry.name);
    std::sort(names.begin(), names.end());
    return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name, StrategyContext context) {
    const StrategyEntry* entry = find_strategy(name);
    if (entry == nullptr)
        throw UsageError("--strategy: unknown strategy '" + name + "' (known: " + join(strategy_names(), ", ") + ")");
    if (context.grammar == nullptr) throw Error("make_strategy: no grammar given");
    if (context.population < 2) throw UsageError("--population must be at least 2, got " + std::to_string(context.population));
    StrategySettings own;
    for (const StrategyOption& option : entry->options) {
        const auto given = context.settings.find(option.name);
        const long long value = given != context.settings.end() ? given->second : option.default_value;
        if (value < option.min || value > option.max)
            throw UsageError(option.name + " must be between " + std::to_string(option.min) + " and " +
                             std::to_string(option.max) + ", got " + std::to_string(value));
        own[option.name] = value;
    }
    context.settings = std::move(own);
    std::unique_ptr<Strategy> strategy = entry->make(std::move(context));
    // The history's rows carry Strategy::name(), the run record and the report the entry's: one name.
    if (strategy->name() != entry->name)
        throw Error("strategy '" + entry->name + "': its factory made a strategy named '" + strategy->name() + "'");
    return strategy;
}

}  // namespace gi
