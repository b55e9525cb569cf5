#pragma once
// Two recordings of the same launch compared: the original program's, and the same program's
// with a variant compiled in (the end-to-end acceptance of an evolved entry, issue 15). Replay can
// only show a variant right on the recorded inputs; the program itself runs the variant with the
// launch geometry its host code derives from the variant's parameters, on its own data, and may
// feed one launch's outputs into the next. So the acceptance runs the program and compares what
// it recorded with what the original recorded under the same arguments.
#include <string>
#include <vector>

#include "compare/tolerance.hpp"
#include "testcase/test_case.hpp"

namespace gi {

// The names a --tolerance NAME: setting may use for buffer `buffer` of `tc`: the kernel
// parameters pointing into it (`arg_names[i]` and "argI"), and the module variable it is.
std::vector<std::string> tolerance_names(const TestCase& tc, std::size_t buffer, const std::vector<std::string>& arg_names);

struct RecordedComparison {
    bool same = true;
    std::string detail;  // why not: which launch, buffer, how many elements, how far
    std::uint64_t elements = 0;
    double worst_error = 0;
};

// Compares the outputs (the "after" bytes of every buffer a launch may write) of `candidate` with
// those of `reference`, buffer by buffer, within `tolerance` (by tolerance_names). Device
// addresses held in buffers (EmbeddedPointer) are not compared: they differ from run to run.
// Differences in what the two launches are (kernel, argument count, buffer sizes) are reported
// as such. `label` names the launch in the detail. Needs both cases' data. Pure.
RecordedComparison compare_recorded_outputs(const TestCase& reference, const TestCase& candidate,
                                            const ToleranceSpec& tolerance, const std::vector<std::string>& arg_names,
                                            const std::string& label);

}  // namespace gi
