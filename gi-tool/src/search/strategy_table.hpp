#pragma once
// The search strategies (`--strategy NAME`), one entry each, holding all the rest of gi-tool knows of
// one: evolve makes it by name (run/evolve_run.cpp), the command line lists it in --help and
// declares its options (CommandLine::add_strategy_options), and the run report draws the charts it
// asks for (report/html_report.cpp). gi-tool's own are the rows of
// search/strategies.def, walked here as llvm-reduce walks its DeltaPasses.def: adding a strategy
// is its own files and one row there. Like Kernel Tuner's strategies, each owns its options.
// register_strategy() adds one from elsewhere (tests/search/strategy_table_test.cpp does).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fitness/generation_record.hpp"
#include "search/strategy.hpp"
#include "util/line_chart.hpp"

namespace gi {

// An integer option of one strategy's own (Kernel Tuner's strategy options, on gi-tool's command line).
struct StrategyOption {
    std::string name;  // "--anneal-batch"; no two strategies' options share one
    std::string help;  // --help prints it after "STRATEGY: "
    long long min = 0, max = 0;
    long long default_value = 0;
};

struct StrategyEntry {
    std::string name;     // --strategy NAME; also the history database's strategy column
    std::string summary;  // what --help says of it: "Langdon's generational GP"
    std::vector<StrategyOption> options;
    std::function<std::unique_ptr<Strategy>(StrategyContext)> make;
    // Its part of the run report: charts of the run's generations, shown under "Progress" (none
    // when not set). A pure function of the record, as `gi-tool report` reads it from run.xml.
    std::function<std::vector<LineChart>(const std::vector<GenerationRecord>&)> charts;
};

// StrategyEntry::make for a strategy class constructed from its context alone.
template <class Kind>
std::function<std::unique_ptr<Strategy>(StrategyContext)> strategy_factory() {
    return [](StrategyContext context) -> std::unique_ptr<Strategy> { return std::make_unique<Kind>(std::move(context)); };
}

// Every strategy in table order: strategies.def's (the default, gp, first), then those registered.
const std::vector<StrategyEntry>& strategy_table();

// The entry named `name`, or null.
const StrategyEntry* find_strategy(const std::string& name);

// Adds `entry` at the table's end. Throws gi::Error when its name or an option's name is taken,
// an option's default is outside its range, or it has no `make`.
void register_strategy(StrategyEntry entry);
// Takes out an entry register_strategy added (a test's, when it is done). Throws gi::Error for a
// name the table does not hold or one of strategies.def's.
void unregister_strategy(const std::string& name);

// Every name, sorted (for "known: ..." in errors).
std::vector<std::string> strategy_names();

// The strategy `name` makes from `context`, its settings reduced to the strategy's own options
// (those not in context.settings at their defaults). Throws gi::UsageError for an unknown name
// (listing the known ones), a population below 2 or a setting outside its option's range, and
// gi::Error when the strategy made calls itself by another name.
std::unique_ptr<Strategy> make_strategy(const std::string& name, StrategyContext context);

}  // namespace gi
