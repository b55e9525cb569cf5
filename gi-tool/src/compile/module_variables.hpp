#pragma once
// The module-scope variables of a compiled kernel file: its __constant__, __device__ and
// __managed__ variables, however the program sets them (cudaMemcpyToSymbol, static initialisers,
// earlier kernels). A kernel reads them besides its arguments, so the recorder must capture them
// and replay must put them back into each variant's module (issue 15: a row filter whose weights
// live in __constant__ memory replayed with zero weights, and a variant that ignored its input
// matched that all-zero oracle).
//
// Read from the cubin's ELF symbol table, not from the source: the compiled names are the ones
// cuModuleGetGlobal takes (namespaces mangled), variables of included headers count too, and the
// compiler's own objects (printf strings, math tables) are told apart by name.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gi {

struct ModuleVariable {
    std::string name;       // as compiled: "c_Kernel", "_ZN2ns5tableE"
    bool constant = false;  // in __constant__ memory: kernels cannot write it
    std::uint64_t size = 0; // bytes
    friend bool operator==(const ModuleVariable&, const ModuleVariable&) = default;
};

// The user variables a cubin (ELF) defines, in symbol-table order. Skips the compiler's own objects
// ($str..., __cudart_..., __nv_...) and undefined symbols. Throws gi::Error when `cubin` is not an
// ELF image (a PTX text, a fatbinary) or its tables are damaged. Pure.
std::vector<ModuleVariable> module_variables(std::string_view cubin);

// The text form used between gi-tool and the recorder (GI_RECORD_GLOBALS): "const:c_Kernel,global:counter".
std::string module_variables_text(const std::vector<ModuleVariable>& variables);
// Parses that text; sizes are 0 (the recorder asks the driver). Throws gi::UsageError naming
// `where` for a malformed item.
std::vector<ModuleVariable> parse_module_variables_text(std::string_view text, const std::string& where);

// Whether a compiled name is private to the file that defined it (a static variable inside a
// namespace, or one in an anonymous namespace): nvcc then prefixes it with a hash of the path the
// file was compiled from ("_ZN33_INTERNAL_a10fdbdb_5_k2_cu__Z1kPf2ns7nsconstE"), so the program's
// module and gi-tool's compiles of the same file name it differently. Pure.
bool file_private_name(std::string_view name);

// The identifier a variable was declared with, its compiled name's last component: "c_Kernel" for
// "c_Kernel", "table" for "_ZN2ns5tableE", "value" for
// "_ZN4cuda3std3__417integral_constantIbLb0EE5valueE". "" when the name cannot be read. Pure.
std::string declared_identifier(std::string_view compiled_name);

// The variables of `all` that the program's own code declares: those whose identifier some text of
// `project_texts` (the kernel file and the project's headers) declares with __constant__,
// __device__ or __managed__. Toolkit and library headers define hundreds of module variables of
// their own (libcu++'s integral_constant<bool, false>::value, cooperative groups' tile masks,
// constexpr members NVRTC emits) that no program sets and no recorder can find in the program's
// module: those are not state to capture (issue 40). Pure.
std::vector<ModuleVariable> project_variables(const std::vector<ModuleVariable>& all,
                                              const std::vector<std::string>& project_texts);

// The copy of variable `plain` that a paired build's guarded half (variant/paired_build.hpp: the
// file again inside `namespace guarded_namespace`) defines, among `in_module`'s names; "" when
// there is none. Under the Itanium C++ ABI "c" becomes "_ZN10gi_guarded1cE", "_ZN2ns1cE"
// becomes "_ZN10gi_guarded2ns1cE", and a file-static "c" gets the file's private prefix before
// the namespace. Pure.
std::string guarded_variable_name(const std::string& plain, const std::vector<ModuleVariable>& in_module,
                                  std::string_view guarded_namespace);

}  // namespace gi
