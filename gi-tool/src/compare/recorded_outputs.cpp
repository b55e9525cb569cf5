#include "compare/recorded_outputs.hpp"

#include <algorithm>

#include "compare/compare.hpp"
#include "util/format.hpp"

namespace gi {

std::vector<std::string> tolerance_names(const TestCase& tc, std::size_t buffer, const std::vector<std::string>& arg_names) {
    std::vector<std::string> names;
    for (std::size_t a = 0; a < tc.args.size(); ++a)
        if (tc.args[a].buffer == static_cast<int>(buffer)) {
            if (a < arg_names.size()) names.push_back(arg_names[a]);
            names.push_back("arg" + std::to_string(a));
        }
    if (buffer < tc.buffers.size() && !tc.buffers[buffer].variable.empty()) names.push_back(tc.buffers[buffer].variable);
    return names;
}

RecordedComparison compare_recorded_outputs(const TestCase& reference, const TestCase& candidate,
                                            const ToleranceSpec& tolerance, const std::vector<std::string>& arg_names,
                                            const std::string& label) {
    RecordedComparison out;
    auto differ = [&](const std::string& why) {
        out.same = false;
        out.detail = label + ": " + why;
        return out;
    };
    if (reference.kernel != candidate.kernel)
        return differ("the original's run launched '" + reference.kernel + "' here, the variant's '" + candidate.kernel + "'");
    if (reference.args.size() != candidate.args.size() || reference.buffers.size() != candidate.buffers.size())
        return differ("the launches differ in their arguments (" + std::to_string(reference.args.size()) + " arguments and " +
                      std::to_string(reference.buffers.size()) + " buffers in the original's run, " +
                      std::to_string(candidate.args.size()) + " and " + std::to_string(candidate.buffers.size()) +
                      " in the variant's)");
    for (std::size_t b = 0; b < reference.buffers.size(); ++b) {
        const CaseBuffer& r = reference.buffers[b];
        const CaseBuffer& c = candidate.buffers[b];
        if (r.size != c.size || r.variable != c.variable)
            return differ("buffer " + std::to_string(b) + " is " + std::to_string(r.size) + " bytes in the original's run and " +
                          std::to_string(c.size) + " in the variant's");
        if (r.read_only) continue;
        Bytes expected = r.after, actual = c.after;
        // Addresses the kernel was handed are the runs' own, not results.
        for (const EmbeddedPointer& p : r.pointers)
            if (p.at + 8 <= expected.size()) std::fill_n(expected.begin() + static_cast<long>(p.at), 8, 0);
        for (const EmbeddedPointer& p : c.pointers)
            if (p.at + 8 <= actual.size()) std::fill_n(actual.begin() + static_cast<long>(p.at), 8, 0);
        const Tolerance t = tolerance.for_names(tolerance_names(reference, b, arg_names));
        const BufferComparison cmp = compare_buffer(r.element, expected.data(), actual.data(), r.size, t, false);
        out.elements += cmp.elements;
        out.worst_error = std::max(out.worst_error, cmp.worst_error);
        if (cmp.mismatches > 0) {
            const std::vector<std::string> names = tolerance_names(reference, b, arg_names);
            return differ("buffer " + std::to_string(b) + (names.empty() ? "" : " ('" + names.front() + "')") + ": " +
                          std::to_string(cmp.mismatches) + " of " + std::to_string(cmp.elements) +
                          " elements differ from the original's outputs beyond the tolerance (" + to_string(t) +
                          "), the first at element " + std::to_string(cmp.first_mismatch) +
                          (cmp.worst_error > 0 ? ", worst |diff| " + significant(cmp.worst_error, 6) : ""));
        }
    }
    return out;
}

}  // namespace gi
