#pragma once
// A cache entry: the winning genome for one registered kernel on one architecture, with the key it
// was made under and where it came from. One XML file per kernel and architecture, meant to be
// committed (gi-cache/stereoKernel.sm_90.xml):
//
//   <gi-cache-entry format="1">
//     <kernel file="stereo.cu" architecture="sm_90"/>
//     <key grammar-version="1" source-sha256="...">HEX</key>
//     <registration> <function>..</function> <param>..</param> ... </registration>
//     <genome><![CDATA[BLOCK_W=32 <_stereo.cu_88>]]></genome>
//     <parameters> <parameter name="BLOCK_W" value="32"/> ... </parameters>
//     <provenance> <origin>evolved</origin> <gpu>..</gpu> ... </provenance>
//     <checksum algorithm="sha256">HEX</checksum>
//   </gi-cache-entry>
//
// The entry holds a genome, never source: applied to the user's own kernel it can only rearrange
// that kernel's lines and pick declared values. The checksum covers every field (entry_checksum), so
// any hand edit of a value is detected; reformatting whitespace between elements is harmless.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cache/registration.hpp"

namespace gi {

inline constexpr int kCacheEntryFormat = 1;
// No entry gi-tool writes comes near this; anything larger is refused unread.
inline constexpr std::uintmax_t kMaxCacheEntryBytes = 1 << 20;

struct Provenance {
    std::string origin;             // "evolved" (gi-tool evolve) or "hand-picked" (written by a person)
    std::string gpu;                // GPU name; "" when unknown
    std::string driver;             // driver version
    std::string nvcc;               // nvcc version
    std::string date;               // ISO 8601 UTC, when the entry was written
    std::string tool_version;       // gi-tool version that wrote it
    double original_ms = -1;        // median time of the original kernel; < 0 when not measured
    double variant_ms = -1;
    long long cases_validated = -1;    // held-out + unused training cases the variant was checked on
    long long elements_validated = -1;
    double worst_error = -1;
    std::string note;               // free text (run folder, seed, budget)
    // Set only when whoever wrote the entry opted in to an unchecked genome (cache write
    // --allow-unvalidated / --allow-unfinished): which option, and what was not done. An entry
    // without validation and without this is refused by the build (cache/check.hpp).
    std::string waiver;
    friend bool operator==(const Provenance&, const Provenance&) = default;
    double speedup() const { return original_ms > 0 && variant_ms > 0 ? original_ms / variant_ms : -1; }
    bool validated() const { return cases_validated > 0 && elements_validated > 0; }
};

struct ParameterValue {
    std::string name;
    std::string value;
    friend bool operator==(const ParameterValue&, const ParameterValue&) = default;
};

struct CacheEntry {
    std::string kernel_file;  // basename of the kernel source, for people
    int architecture = 0;     // 90 for sm_90
    std::string key;          // cache_key(...) at write time
    std::string source_sha256;
    int grammar_version = 0;
    Registration registration;  // what the key covered, kept so a stale key can be explained
    std::string genome;         // genome text (parse_genome form)
    std::vector<ParameterValue> parameters;  // every Param gene's value in the variant, for people and headers
    Provenance provenance;
    std::string checksum;       // entry_checksum(*this) when written
    friend bool operator==(const CacheEntry&, const CacheEntry&) = default;
};

// sha256 over a canonical text of every field but `checksum` itself.
std::string entry_checksum(const CacheEntry& entry);

// The XML text of an entry (its checksum as stored in `entry.checksum`; call seal() first).
std::string entry_to_xml(const CacheEntry& entry);

// Sets entry.checksum to entry_checksum(entry).
void seal(CacheEntry& entry);

// Parses an entry strictly: malformed XML, a missing or unknown element or attribute, a bad number
// or an unknown format version throw gi::Error naming `path` (and the XML line where it can).
// The checksum is read, not checked: see checksum_matches.
CacheEntry parse_cache_entry(const std::string& xml, const std::string& path);

// Reads and parses a file; gi::Error naming the path when it cannot be read, is a symbolic link or
// not a plain file, or is larger than kMaxCacheEntryBytes.
CacheEntry read_cache_entry(const std::filesystem::path& path);

bool checksum_matches(const CacheEntry& entry);

// Writes the entry atomically (temporary file + rename) so a build reading the cache never sees half
// a file; creates the folder. gi::Error naming the path on failure.
void write_cache_entry(const std::filesystem::path& path, const CacheEntry& entry);

}  // namespace gi
