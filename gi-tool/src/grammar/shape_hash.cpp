#include "grammar/shape_hash.hpp"

#include "util/hash.hpp"

namespace gi {

std::string grammar_shape_hash(const Grammar& grammar) {
    Sha256 hash;
    for (const Function& f : grammar.functions) hash.update("function " + f.name + "\n");
    for (const Rule& rule : grammar.rules) hash.update("rule " + rule.id + "\n");
    for (const Gene& gene : grammar.genes) {
        hash.update("gene " + gene.name + " " + std::to_string(static_cast<int>(gene.kind)) + " default=" +
                    gene.default_value + " template=" + gene.flag_template + " values=");
        for (const std::string& value : gene.values) hash.update(value + ",");
        hash.update("\n");
    }
    return hash.hex_digest();
}

}  // namespace gi
