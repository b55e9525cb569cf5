#pragma once
// The files `cache apply --ptx-edits` writes beside the wrapper for the build's launcher
// (`gi-tool nvcc-launcher`, issue 46): per architecture whose variant has PTX edits, its genome in
// <file>.sm_N.ptx-edits and one line of <file>.ptx-edits (the list); and the wrapper and options to
// compile when the edits cannot be applied (those architectures compile the original kernel). Pure
// text: written by cache apply, read by the launcher.
#include <filesystem>
#include <string>
#include <vector>

namespace gi {

struct PtxEditsFiles {
    std::filesystem::path manifest;          // <file>.ptx-edits: one line per edited architecture
    std::filesystem::path fallback_wrapper;  // <file>.fallback.gi.cu
    std::filesystem::path fallback_options;  // <file>.fallback.options
};
PtxEditsFiles ptx_edits_files(const std::filesystem::path& wrapper, const std::string& file_identifier);

// "<file>.sm_90.ptx-edits": the genome of that architecture's variant, for nvcc-ptx-edits --edits.
std::string ptx_genome_file(const std::string& file_identifier, int architecture);

// One edited architecture as the list holds it: what nvcc-ptx-edits needs besides the compile
// command. File names are relative to the wrapper's folder.
struct PtxEditedArchitecture {
    int architecture = 0;
    std::string function;                      // the registered kernel the edits are in
    std::string variant_file;                  // the variant's source: its PTX (ptx_as_evaluated) is what the edits index
    std::string genome_file;                   // ptx_genome_file()
    std::vector<std::string> compile_options;  // the variant's own (flag genes), which it was compiled with
};

// The variant as cache apply has it, for ptx_manifest_line().
struct CheckedVariantView {
    std::string genome;
    std::string function;
    std::string variant_file;
    std::vector<std::string> compile_options;
};

// The list's line for `architecture` (fields separated by tabs, ending in a newline).
std::string ptx_manifest_line(int architecture, const CheckedVariantView& variant, const std::string& genome_file);

// The list's lines. Throws gi::Error naming `where` and the line for one that is not such a line.
std::vector<PtxEditedArchitecture> parse_ptx_manifest(const std::string& text, const std::string& where);

// Why a variant with PTX edits cannot be compiled through the launcher, "" when it can: the edits
// of several registered kernels of one file would have to be carried into one PTX together, and a
// compile option with a tab or line end does not fit the list.
std::string ptx_edits_blocker(bool several_registrations, const std::vector<std::string>& compile_options);

}  // namespace gi
