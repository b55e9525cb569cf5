#pragma once
// Checks a genome against a grammar: every gene exists and has an allowed value, every edit names
// rules that exist, pairs are of the same kind, and copies respect scope (the copied text's local
// variables are visible at the target, a ForInit keeps the loop variables its loop declares,
// break/continue only land inside loops). The cache uses this to refuse hand-edited genomes.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"

namespace gi {

struct GenomeProblem {
    std::string item;     // the genome item, as text ("<_k.cu_12>+<_k.cu_40>", "BLOCK_W=7")
    std::string message;  // what is wrong and what would be allowed
};

std::vector<GenomeProblem> validate_genome(const Genome& genome, const Grammar& grammar);

// Throws gi::Error listing every problem, prefixed by `context` (e.g. the cache file's path).
void require_valid_genome(const Genome& genome, const Grammar& grammar, const std::string& context);

// True when rule `source` may be copied over / before rule `target`: same kind, scope safe.
// Exposed because mutation uses it to draw only legal edits.
bool copy_is_scope_safe(const Rule& target, const Rule& source);

// What a copy between two functions (a kernel and a __device__ helper it calls) needs beyond
// copy_is_scope_safe, which sees only the two rules: the copied text may use no local variable (a
// same-named one where it lands may have another type), may not mention a parameter or template
// parameter of its own function that the target's function lacks, and a return statement stays
// in its function (return types differ). Build once per grammar; pass only its rules.
class CopyContext {
public:
    explicit CopyContext(const Grammar& grammar);
    // Why `source` may not be copied over / before `target`; empty when it may.
    std::string problem(const Rule& target, const Rule& source) const;
    bool allows(const Rule& target, const Rule& source) const;  // problem().empty(), without the message

private:
    std::vector<std::string> foreign_names(const Rule& target, const Rule& source) const;
    std::map<std::string, std::set<std::string>> signature_names_;  // function -> identifiers in its signature
    std::map<std::string, std::set<std::string>> rule_names_;       // rule id -> identifiers in its text
};

}  // namespace gi
