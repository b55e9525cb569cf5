#include "worker/kernel_name.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "variant/paired_build.hpp"

namespace gi::worker {

std::string demangled_name(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string kernel_instantiation_name(const std::string& demangled) {
    std::size_t open = std::string::npos;
    std::size_t last_space = std::string::npos;
    int angle = 0;
    for (std::size_t i = 0; i < demangled.size() && open == std::string::npos; ++i) {
        if (demangled[i] == '<') ++angle;
        else if (demangled[i] == '>') --angle;
        else if (demangled[i] == '(' && angle <= 0) open = i;
        else if (demangled[i] == ' ' && angle <= 0) last_space = i;
    }
    // A return type ("void ") ends at the last space outside template arguments.
    const std::size_t begin = last_space == std::string::npos ? 0 : last_space + 1;
    std::string out;
    for (std::size_t i = begin; i < std::min(open, demangled.size()); ++i)
        if (demangled[i] != ' ') out += demangled[i];
    return out;
}

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
    std::string instance = kernel_instantiation_name(demangled);
    std::string name = wanted;
    const std::string guarded_prefix = std::string(kGuardedNamespace) + "::";
    const bool guarded_kernel = qualified.rfind(guarded_prefix, 0) == 0;
    const bool guarded_name = name.rfind(guarded_prefix, 0) == 0;
    if (guarded_kernel != guarded_name) return false;
    if (guarded_kernel) {
        qualified.erase(0, guarded_prefix.size());
        instance.erase(0, guarded_prefix.size());
        name.erase(0, guarded_prefix.size());
    }
    // Another build's mangled name of a template's instantiation (the recorder's) stands for that
    // instantiation; any other mangled name names exactly one kernel, matched above.
    if (name.rfind("_Z", 0) == 0) {
        name = kernel_instantiation_name(demangled_name(name));
        if (name.find('<') == std::string::npos) return false;
    }
    if (name.find('<') != std::string::npos) {
        std::string compact;
        for (char c : name)
            if (c != ' ') compact += c;
        const std::size_t colon = instance.rfind("::", instance.find('<'));
        return compact == instance || (colon != std::string::npos && compact == instance.substr(colon + 2));
    }
    const std::size_t colon = qualified.rfind(':');
    const std::string base = colon == std::string::npos ? qualified : qualified.substr(colon + 1);
    return !name.empty() && (name == qualified || name == base);
}

}  // namespace gi::worker
