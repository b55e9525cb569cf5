#pragma once
// Decides whether a cache entry may be used for a kernel as registered now, and if so produces the
// variant. Every way an entry can be unusable is named with the file and the reason; nothing is used
// silently. The order of the checks matters: a hand edit is reported as such even when it also
// changed the key, and a stale key is reported before the genome is looked at.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cache/entry.hpp"
#include "cache/registration.hpp"
#include "grammar/grammar.hpp"
#include "grammar/grammar_options.hpp"
#include "source/source_file.hpp"
#include "variant/apply.hpp"

namespace gi {

enum class EntryStatus {
    Valid,    // key matches, checksum matches, genome valid for the kernel's grammar
    Missing,  // no file
    Stale,    // well-formed and untouched, but made for another kernel source, registration or grammar
    Invalid,  // corrupt, hand-edited, for another architecture, its genome does not apply, or it was
              // never validated and carries no waiver (Provenance::waiver)
};

std::string to_string(EntryStatus status);  // "valid", "missing", "stale", "invalid"

struct EntryCheck {
    EntryStatus status = EntryStatus::Missing;
    std::filesystem::path path;
    std::vector<std::string> reasons;      // why it is not valid (one line each); empty when valid
    std::optional<CacheEntry> entry;       // when the file parsed
    std::optional<AppliedVariant> variant; // when valid

    // "gi-cache/k.sm_90.xml: stale: kernel source changed (...)" style single line.
    std::string summary() const;
};

// The kernel as registered now: its source, the registration, and the grammar built from both.
struct RegisteredKernel {
    SourceFile source;
    Registration registration;
    GrammarOptions grammar_options;
    Grammar grammar;
};

// Builds the grammar from the source and options (throws what build_grammar throws). The
// registration's functions, params, flags and block size must be those of `options`.
RegisteredKernel make_registered_kernel(SourceFile source, Registration registration, GrammarOptions options);

// The full check of the entry at `path` for `architecture`.
EntryCheck check_cache_entry(const std::filesystem::path& path, const RegisteredKernel& kernel, int architecture);

// Values of every Param gene in the variant the genome makes (its setting or the default), in the
// grammar's gene order; what a cache entry stores and the generated header exposes.
std::vector<ParameterValue> parameter_values(const Genome& genome, const Grammar& grammar);

// A new entry for `genome` (validated against the kernel's grammar first; gi::Error listing the
// problems otherwise), keyed for `architecture`, sealed.
CacheEntry make_cache_entry(const RegisteredKernel& kernel, int architecture, const Genome& genome,
                            Provenance provenance);

}  // namespace gi
