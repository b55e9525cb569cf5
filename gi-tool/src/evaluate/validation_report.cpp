// The validation report's judgement, apart from the cuda evaluator that fills it, so search can ask
// a report whether it passed without depending on any CUDA code.
#include <sstream>

#include "evaluate/cuda_checker.hpp"

namespace gi {

bool ValidationReport::passed() const {
    for (const auto& c : cases)
        if (c.status != EvalStatus::Ok || c.mismatches > 0) return false;
    return true;
}

std::string ValidationReport::summary() const {
    int held = 0;
    for (const auto& c : cases) held += c.held_out ? 1 : 0;
    std::ostringstream out;
    out << "validated " << cases.size() << " case(s) (" << held << " held out): " << elements << " output elements, "
        << mismatches << " beyond tolerance, worst error " << worst_error << (built_by.empty() ? "" : ", built by " + built_by)
        << (passed() ? "" : " -- FAILED");
    return out.str();
}

}  // namespace gi
