#pragma once
// What one generation of a search did, as the run record keeps it (run/run_record.hpp) and run.xml
// stores it: its case, the original's timing there, and each individual's outcome. Down here so a
// strategy's part of the report (search/strategy_table.hpp) can read its run's generations.
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"

namespace gi {

// Exact equality, NaN equal to NaN (records are compared after a checkpoint round trip).
bool operator==(const Timing& a, const Timing& b);

struct IndividualRecord {
    std::string genome;
    EvalStatus status = EvalStatus::Ok;
    double error = 0;
    Timing time;
    std::string detail;
    bool accepted = false;
    double speedup = 0;
    bool repeat = false;  // same program as an earlier member of its generation: measured once
    double temperature = 0;  // anneal: the temperature of the draw that made it (0: not drawn)
    friend bool operator==(const IndividualRecord&, const IndividualRecord&) = default;
};

struct GenerationRecord {
    int index = 0;
    int case_index = 0;
    Timing original;
    int evaluated = 0;    // individuals
    int distinct = 0;     // programs sent to the evaluator
    int compiled = 0;     // individuals whose status is not CompileError
    int accepted = 0;
    double best_speedup = 0;  // best accepted in this generation (0 when none)
    std::string best_genome;
    std::vector<IndividualRecord> individuals;
};

bool operator==(const GenerationRecord& a, const GenerationRecord& b);

}  // namespace gi
