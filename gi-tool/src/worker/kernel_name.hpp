#pragma once
// Which of a module's kernels a name given to gi-worker means (pure, so it is tested without a
// GPU; gi-worker's find_kernel applies it to each kernel of a loaded module).
//
// A name matches a kernel's mangled name, its qualified name ("ns::k", template arguments and
// parameters dropped) or its last component ("k"); a name with template arguments ("ns::k<64>",
// spaces ignored), or a mangled name of another module's build of the same instantiation (what
// the recorder stores), matches that instantiation alone. A kernel inside namespace gi_guarded (the
// loop-guarded copy of a paired build, variant/paired_build.hpp) matches only a name that starts
// with "gi_guarded::", and then by the rest of the name against the rest of its own: the plain
// kernel's name is never ambiguous, and "gi_guarded::" + the plain name finds the guarded copy.
#include <string>

namespace gi::worker {

// "void ns::k<64>(float*)" -> "ns::k"; "blurKernel(float const*, int)" -> "blurKernel".
std::string kernel_qualified_name(const std::string& demangled);

// "void ns::k<64, (bool)1>(float*)" -> "ns::k<64,(bool)1>": the instantiation, spaces removed.
std::string kernel_instantiation_name(const std::string& demangled);

// abi::__cxa_demangle's spelling of a mangled name; the name itself when it is not one.
std::string demangled_name(const std::string& mangled);

// `mangled` as in the module, `demangled` as abi::__cxa_demangle gives it (or the mangled name
// when it is not mangled: an extern "C" kernel).
bool kernel_name_matches(const std::string& wanted, const std::string& mangled, const std::string& demangled);

}  // namespace gi::worker
