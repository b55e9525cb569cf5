#include "cache/check.hpp"

#include "genome/genome.hpp"
#include "genome/validate.hpp"
#include "grammar/build_grammar.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

std::string short_hash(const std::string& hex) { return hex.substr(0, 12); }

}  // namespace

std::string to_string(EntryStatus status) {
    switch (status) {
        case EntryStatus::Valid: return "valid";
        case EntryStatus::Missing: return "missing";
        case EntryStatus::Stale: return "stale";
        case EntryStatus::Invalid: return "invalid";
    }
    return "?";
}

std::string EntryCheck::summary() const {
    std::string line = path.string() + ": " + to_string(status);
    if (!reasons.empty()) {
        line += ": ";
        for (std::size_t i = 0; i < reasons.size(); ++i) line += (i ? "; " : "") + reasons[i];
    }
    return line;
}

RegisteredKernel make_registered_kernel(SourceFile source, Registration registration, GrammarOptions options) {
    Grammar grammar = build_grammar(source, options);
    return {std::move(source), std::move(registration), std::move(options), std::move(grammar)};
}

std::vector<ParameterValue> parameter_values(const Genome& genome, const Grammar& grammar) {
    std::vector<ParameterValue> values;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Param) values.push_back({gene.name, setting_or(genome, gene.name, gene.default_value)});
    return values;
}

EntryCheck check_cache_entry(const std::filesystem::path& path, const RegisteredKernel& kernel, int architecture) {
    EntryCheck check;
    check.path = path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        check.status = EntryStatus::Missing;
        check.reasons.push_back("no cache entry for " + architecture_name(architecture));
        return check;
    }
    check.status = EntryStatus::Invalid;
    try {
        check.entry = read_cache_entry(path);
    } catch (const Error& error) {
        check.reasons.push_back(error.what());
        return check;
    }
    const CacheEntry& entry = *check.entry;
    if (!checksum_matches(entry)) {
        check.reasons.push_back("checksum mismatch: the file was edited by hand or damaged (regenerate it with "
                                "'gi-tool cache write' or restore it from version control)");
        return check;
    }
    if (entry.architecture != architecture) {
        check.reasons.push_back("the entry is for " + architecture_name(entry.architecture) + ", not " +
                                architecture_name(architecture) + " (was the file renamed or copied?)");
        return check;
    }

    const std::string source_sha256 = sha256_hex(kernel.source.text);
    const std::string key = sha256_hex(key_text(source_sha256, kernel.registration, architecture));
    if (entry.key != key) {
        check.status = EntryStatus::Stale;
        if (entry.grammar_version != kGrammarVersion)
            check.reasons.push_back("made with grammar version " + std::to_string(entry.grammar_version) +
                                    ", this gi-tool uses " + std::to_string(kGrammarVersion));
        if (entry.source_sha256 != source_sha256)
            check.reasons.push_back("the kernel source " + kernel.source.name + " changed since the entry was made (sha256 " +
                                    short_hash(entry.source_sha256) + "... then, " + short_hash(source_sha256) + "... now)");
        for (const std::string& difference : registration_differences(entry.registration, kernel.registration))
            check.reasons.push_back("registration changed: " + difference);
        if (check.reasons.empty())
            check.reasons.push_back("the key does not match (entry made by a gi-tool with another key format?)");
        check.reasons.back() += "; re-evolve on a GPU or restore the matching kernel";
        return check;
    }

    // The key matched, so the fields it was made from must be this kernel's too: an entry whose
    // source-sha256 or registration say otherwise was assembled by hand around a copied key.
    std::vector<std::string> contradictions;
    if (entry.source_sha256 != source_sha256) contradictions.push_back("source-sha256 " + short_hash(entry.source_sha256) + "...");
    if (entry.grammar_version != kGrammarVersion)
        contradictions.push_back("grammar version " + std::to_string(entry.grammar_version));
    for (const std::string& difference : registration_differences(entry.registration, kernel.registration))
        contradictions.push_back("registration (" + difference + ")");
    if (!contradictions.empty()) {
        std::string listed;
        for (const std::string& c : contradictions) listed += (listed.empty() ? "" : ", ") + c;
        check.reasons.push_back("its key is this kernel's but its " + listed +
                                " is not, so the entry was not written by 'gi-tool cache write' (forged or "
                                "assembled by hand?); regenerate it, and review where it came from");
        return check;
    }

    // Nothing unchecked is built unless whoever wrote the entry opted in, for all to see.
    if (!entry.genome.empty() && !entry.provenance.validated() && entry.provenance.waiver.empty()) {
        check.reasons.push_back("not validated: its genome was never checked on inputs its search did not see, and it "
                                "was not written with --allow-unvalidated (evolve with held-out cases, or see "
                                "'gi-tool cache write --help')");
        return check;
    }

    Genome genome;
    try {
        genome = parse_genome(entry.genome);
    } catch (const Error& error) {
        check.reasons.push_back(std::string("the genome does not parse: ") + error.what());
        return check;
    }
    for (const GenomeProblem& problem : validate_genome(genome, kernel.grammar))
        check.reasons.push_back("genome item " + problem.item + ": " + problem.message);
    if (!check.reasons.empty()) return check;

    if (parameter_values(genome, kernel.grammar) != entry.parameters) {
        check.reasons.push_back("the <parameters> listed do not match what the genome sets");
        return check;
    }
    try {
        check.variant = apply_genome(genome, kernel.grammar);
    } catch (const Error& error) {
        check.reasons.push_back(std::string("the genome does not apply: ") + error.what());
        return check;
    }
    check.status = EntryStatus::Valid;
    return check;
}

CacheEntry make_cache_entry(const RegisteredKernel& kernel, int architecture, const Genome& genome,
                            Provenance provenance) {
    require_valid_genome(genome, kernel.grammar, "genome for " + kernel.source.path);
    CacheEntry entry;
    entry.kernel_file = kernel.source.name;
    entry.architecture = architecture;
    entry.source_sha256 = sha256_hex(kernel.source.text);
    entry.key = sha256_hex(key_text(entry.source_sha256, kernel.registration, architecture));
    entry.grammar_version = kGrammarVersion;
    entry.registration = normalized(kernel.registration);
    entry.genome = genome_to_text(genome);
    entry.parameters = parameter_values(genome, kernel.grammar);
    entry.provenance = std::move(provenance);
    seal(entry);
    return entry;
}

}  // namespace gi
