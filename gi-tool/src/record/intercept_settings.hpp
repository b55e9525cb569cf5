#pragma once
// What `gi-tool record` tells its launch intercept (gi-tool/recorder/intercept/, a library it
// preloads into the program) through the environment, and what the intercept leaves beside the
// cases for gi-tool to read. Pure but for the two side files.
//
//   GI_RECORD_BY=intercept     gi::launch only launches: the intercept records (<gi/launch.hpp>)
//   GI_RECORD_FUNCTION=NAME    the kernel to record, matched against each launched kernel's name
//                              as gi-worker matches them (worker/kernel_name.hpp: "reduce6" is every
//                              instantiation of a template, "reduce6<float>" one); its cases are
//                              named NAME
//   GI_RECORD_SIGNATURE=T1;T2  the kernel's parameter types as its source writes them, for a kernel
//                              whose compiled name carries none (extern "C")
// with GI_RECORD_DIR, GI_RECORD_GLOBALS, GI_RECORD_LIMIT and GI_RECORD_KNOWN_DIR as gi::launch
// reads them. Without GI_RECORD_DIR or GI_RECORD_FUNCTION the intercept does nothing.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/parameter_type.hpp"

namespace gi {

// The intercept's file, found beside gi-tool as gi-worker is.
inline constexpr const char* kInterceptLibraryName = "libgi-intercept.so";
// In GI_RECORD_DIR: the kernels the program launched (one name a line, each once), and the
// launches the intercept could not record (one message a line).
inline constexpr const char* kLaunchedKernelsFile = "launched-kernels.txt";
inline constexpr const char* kInterceptErrorsFile = "intercept-errors.txt";

struct InterceptSettings {
    std::string kernel;                                 // GI_RECORD_FUNCTION
    std::optional<std::vector<std::string>> signature;  // GI_RECORD_SIGNATURE, when set
};

// The variables `gi-tool record` sets for the intercept (GI_RECORD_BY, GI_RECORD_FUNCTION,
// GI_RECORD_SIGNATURE).
std::vector<std::pair<std::string, std::string>> intercept_environment(const InterceptSettings& settings);

// The settings the intercept runs with, from `lookup` (getenv); nullopt when it is to do nothing:
// GI_RECORD_DIR or GI_RECORD_FUNCTION unset or empty, or GI_RECORD_BY other than "intercept" (then
// gi::launch records, and the intercept would record its launches twice).
using EnvironmentLookup = std::function<const char*(const char*)>;
std::optional<InterceptSettings> intercept_settings(const EnvironmentLookup& lookup);

// Whether a launched kernel (its compiled name, as cuFuncGetName gives it) is the one to record.
bool records_kernel(const InterceptSettings& settings, const std::string& mangled);

// How a launched kernel is listed: its instantiation ("reduce6<float,256u,true>", "ns::k"), or
// its name when it is not mangled.
std::string launched_kernel_name(const std::string& mangled);

// The parameter types of a launched kernel: from its demangled name, else from the source
// signature the settings carry; nullopt when neither tells them.
std::optional<std::vector<ParameterType>> launched_parameter_types(const InterceptSettings& settings,
                                                                   const std::string& mangled);

// The lines of a side file in `dir` ({} when it is not there), each once, in order.
std::vector<std::string> read_side_file(const std::filesystem::path& dir, const char* name);

// "the program launched reduce5<float>, reduce6<float> but not 'reduce7'", or that it launched
// no kernel the intercept saw.
std::string launched_kernels_text(const std::vector<std::string>& launched, const std::string& kernel);

}  // namespace gi
