#pragma once
// What the cache subcommands (gi-tool cache show|verify|write|apply, and gi-apply) read from their
// command line in common: the registration a cache entry belongs to and the architectures asked for.
#include <string>
#include <vector>

#include "cache/check.hpp"
#include "cache/entry.hpp"
#include "cache/registration.hpp"
#include "cli/args.hpp"
#include "cli/kernel_args.hpp"

namespace gi::cli {

// For each command's --help, after kernel_options_help(): the group's name and its options' help.
extern const char* const kRegistrationGroup;
extern const char* const kGridHelp;
extern const char* const kToleranceHelp;
extern const std::string kRegistrationHelp;

// The options a registration adds to the kernel's: --grid and --tolerance.
struct RegistrationSettings {
    std::string grid;
    std::vector<std::string> tolerance;
};
RegistrationSettings registration_settings_from(const Args& args);

// --function/--param/--flag/--block-size/--grid/--tolerance, normalized as the cache key hashes
// them. UsageError without --function: an entry belongs to named kernels.
Registration registration_from(const KernelSettings& kernel, const RegistrationSettings& settings);

// The kernel file read and its grammar built from the registration and the grammar options.
RegisteredKernel registered_kernel_from(const KernelSettings& kernel, const RegistrationSettings& settings,
                                        const std::string& kernel_path);

// Every value of `option` (--arch, --also-compiled), in order, parsed as every command's --arch
// (parse_architecture: 90 or sm_90); UsageError naming the option and the value for one given
// twice or one that is not an architecture.
std::vector<int> architectures_from(const std::vector<std::string>& arch_options, const std::string& option = "--arch");

// "gi-tool evolve on NVIDIA H100 (driver 580, nvcc 13.0), 2026-11-25T...", for messages.
std::string provenance_line(const Provenance& provenance);

}  // namespace gi::cli
