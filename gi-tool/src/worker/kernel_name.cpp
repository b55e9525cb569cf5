#include "worker/kernel_name.hpp"

#include "variant/paired_build.hpp"

namespace gi::worker {

std::string kernel_qualified_name(const std::string& demangled) {
    // The parameter list's '(' is the first outside template arguments ("k<(bool)1>(float*)").
    std::size_t open = std::string::npos;
    int angle = 0;
    for (std::size_t i = 0; i < demangled.size() && open == std::string::npos; ++i) {
        if (demangled[i] == '<') ++angle;
        else if (demangled[i] == '>') --angle;
        else if (demangled[i] == '(' && angle <= 0) open = i;
    }
    std::string head = demangled.substr(0, open);
    // Drop template arguments at the end.
    while (!head.empty() && head.back() == '>') {
        int depth = 0;
        std::size_t i = head.size();
        while (i-- > 0) {
            if (head[i] == '>') ++depth;
            else if (head[i] == '<' && --depth == 0) break;
        }
        head = head.substr(0, i == std::string::npos ? 0 : i);
    }
    // Drop a return type ("void ").
    if (const auto space = head.rfind(' '); space != std::string::npos) head = head.substr(space + 1);
    return head;
}

bool kernel_name_matches(const std::string& wanted, const std::string& mangled, const std::string& demangled) {
    if (wanted == mangled) return true;
    std::string qualified = kernel_qualified_name(demangled);
    std::string name = wanted;
    const std::string guarded_prefix = std::string(kGuardedNamespace) + "::";
    const bool guarded_kernel = qualified.rfind(guarded_prefix, 0) == 0;
    const bool guarded_name = name.rfind(guarded_prefix, 0) == 0;
    if (guarded_kernel != guarded_name) return false;
    if (guarded_kernel) {
        qualified.erase(0, guarded_prefix.size());
        name.erase(0, guarded_prefix.size());
    }
    const std::size_t colon = qualified.rfind(':');
    const std::string base = colon == std::string::npos ? qualified : qualified.substr(colon + 1);
    return !name.empty() && (name == qualified || name == base);
}

}  // namespace gi::worker
