#include "buffer_label.hpp"

namespace gi::worker {

std::string buffer_label(const TestCase& tc, std::size_t b) {
    const CaseBuffer& buffer = tc.buffers[b];
    std::string arguments, holders;
    for (std::size_t a = 0; a < tc.args.size(); ++a) {
        if (tc.args[a].kind == CaseArg::Kind::Pointer && tc.args[a].buffer == static_cast<int>(b))
            arguments += (arguments.empty() ? "" : ", ") + std::to_string(a);
        for (const EmbeddedPointer& p : tc.args[a].pointers)
            if (p.buffer == static_cast<int>(b) && holders.find(std::to_string(a)) == std::string::npos)
                holders += (holders.empty() ? "" : ", ") + std::to_string(a);
    }
    const bool several = arguments.find(',') != std::string::npos;
    std::string what = buffer.read_only ? "read-only input" : "output";
    if (!buffer.variable.empty()) what += ", module variable '" + buffer.variable + "'";
    if (!arguments.empty()) what += std::string(", kernel argument") + (several ? "s " : " ") + arguments;
    else if (!holders.empty()) what += ", reached through kernel argument " + holders;
    else if (buffer.variable.empty()) what += ", reached through a pointer held in another buffer";
    return "buffer " + std::to_string(b) + " (" + what + ")";
}

}  // namespace gi::worker
