#pragma once
// Stage 5, compile: nvcc's compile trajectory as data, for a build that edits the PTX between the
// front end and ptxas (cuda/nvcc_ptx_edits.hpp, issue 46; CuAssembler's technique). Pure.
//
// `nvcc --dryrun ARGS` prints, on stderr, every step it would run, one a line after "#$ ": first
// its environment ("#$ _NVVM_BRANCH_=nvvm", "#$ CICC_PATH=/usr/local/cuda/bin/../nvvm/bin", ...,
// values that are not shell: "SYSTEM_INCLUDES="-isystem" "/x"" is one variable), then the
// commands in order, shell text quoted with "..." that reads those variables ("$CICC_PATH/cicc").
// Each virtual architecture's PTX is written by a cicc step, "... -arch compute_90 ... -o "F.ptx"",
// which the ptxas step for each real architecture of that virtual one and fatbinary read.
// -MD's dependency filtering is a step of nvcc's own ("-- Filter Dependencies -- > k.d") that no
// shell runs, so dependency options are split off and run as `nvcc -M` (split_dependency_options).
#include <string>
#include <utility>
#include <vector>

namespace gi {

struct NvccStep {
    std::string command;       // the shell text after "#$ " (empty for an assignment)
    std::string ptx_output;    // a cicc step's PTX file, else ""
    std::string virtual_arch;  // a cicc step's "-arch": "compute_90"
    // "rm FILE" of a scratch file that may not be there (fatbinary writes the .fatbin only when asked
    // to): nvcc goes on when it fails, and so must a replay.
    bool cleanup = false;
};

struct NvccTrajectory {
    // The variables nvcc sets for its steps, in order (a later one replaces an earlier one).
    std::vector<std::pair<std::string, std::string>> environment;
    std::vector<NvccStep> steps;
};

// Parses `nvcc --dryrun`'s stderr; lines without "#$ " (nvcc's warnings) are left out. Throws
// gi::Error naming the line for a step no shell can run (nvcc's "-- ... --" internal steps).
NvccTrajectory parse_nvcc_dryrun(const std::string& text);

// A compile command's arguments (after nvcc) with the dependency options taken out, and the
// arguments of the `nvcc -M` that writes the dependency file they asked for (empty when they ask
// for none): -MD/-MMD, -MF FILE, -MT TARGET, -MP and their long spellings.
struct NvccDependencySplit {
    std::vector<std::string> compile;
    std::vector<std::string> depend;
};
NvccDependencySplit split_dependency_options(const std::vector<std::string>& args);

// The words of a shell text ("a" 'b c' d\ e -> a, b c, d e); no expansion.
std::vector<std::string> shell_words(const std::string& text);

// The value after `option` in `words` ("-o" "F" -> "F"), or "".
std::string value_after(const std::vector<std::string>& words, const std::string& option);

}  // namespace gi
