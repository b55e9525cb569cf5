#pragma once
// Stage 9, cache: what identifies one registered kernel for one architecture, and the key derived
// from it. The key is a SHA-256 over a small canonical text (key_text) so that the CMake module can
// compute exactly the same key at configure time, before any gi-optimize program is built. Both
// make the text from one definition, cache/key_format.txt (cmake/GIOptimize/cache.cmake, _gi_cache_key,
// reads it too); tests/cmake/cache_key.cmake checks that the two agree without nvcc.
//
// Registration strings are hashed as written, after trimming and collapsing runs of whitespace to
// one space, not after parsing: "1..4" and "1,2,3,4" are different registrations. That keeps the
// CMake side trivial and makes a changed declaration visible in the entry's stored registration.
#include <map>
#include <string>
#include <vector>

namespace gi {

// Cache-key format version: bump when key_format.txt or a field's normal form changes.
inline constexpr int kCacheKeyVersion = 1;

struct Registration {
    std::vector<std::string> functions;  // the __global__ functions, in the order registered
    std::vector<std::string> params;     // "--param" declarations: "BLOCK_W=32,64,128"
    std::vector<std::string> flags;      // "--flag" specs: "-use_fast_math"
    std::string block_size;              // "BLOCK_W,1,1"
    std::string grid;                    // "ceil(width/BLOCK_W),ceil(height/ROWS)"
    std::vector<std::string> tolerance;  // comparison settings, as given to the evaluator
    friend bool operator==(const Registration&, const Registration&) = default;
};

// Trims and collapses runs of spaces, tabs, CR and LF to one space (the normal form every field
// is hashed in).
std::string normalize_registration_text(const std::string& text);

// Every field in normal form.
Registration normalized(const Registration& registration);

// Architecture names: "sm_90" for 90. `architecture` must be a positive CUDA architecture number.
std::string architecture_name(int architecture);

// Parses "90", "sm_90" or "compute_90" (as users and CMake write them) to 90; gi::UsageError naming
// `argument` otherwise (suffixed architectures such as 90a are refused: one variant per number).
int parse_architecture(const std::string& text, const std::string& argument);

// The text the key hashes; one "name value" line per item:
//   gi-optimize-cache-key 1 / grammar-version N / architecture sm_90 / source-sha256 HEX /
//   function F (each) / param P (each) / flag F (each) / block-size B / grid G / tolerance T (each)
std::string key_text(const std::string& source_sha256, const Registration& registration, int architecture);

// The text a key format makes (the format of key_format.txt: one line per field, "{name}" replaced by
// `values`' entry, "{name...}" repeated once per item of `lists`' entry, none for an empty list).
// gi::Error for a field the maps do not have.
std::string key_text_from_format(const std::string& format, const std::map<std::string, std::string>& values,
                                 const std::map<std::string, std::vector<std::string>>& lists);

// sha256 of key_text(...); `source_text` is the kernel file's exact bytes.
std::string cache_key(const std::string& source_text, const Registration& registration, int architecture);

// Human-readable reasons why two registrations (the entry's and the current one) differ, e.g.
// "param 2: 'ROWS=1..8' in the entry, 'ROWS=1..16' now". Empty when equal.
std::vector<std::string> registration_differences(const Registration& entry, const Registration& now);

// File name of the entry for the registered functions and architecture: "stereoKernel.sm_90.xml"
// (several functions are joined with '+').
std::string cache_entry_file_name(const std::vector<std::string>& functions, int architecture);

}  // namespace gi
