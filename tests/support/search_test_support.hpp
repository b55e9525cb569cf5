#pragma once
// Hand-built grammars and scripted evaluators for the search, tuning and minimisation tests, so
// they depend on the grammar's contract (grammar.hpp) rather than on how build_grammar reads C++.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "evaluate/variant_checker.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"

namespace gi::testing {

inline Gene make_gene(std::string name, GeneKind kind, std::vector<std::string> values, std::string default_value,
                      bool numeric) {
    Gene gene;
    gene.name = std::move(name);
    gene.kind = kind;
    gene.values = std::move(values);
    gene.default_value = std::move(default_value);
    gene.numeric = numeric;
    return gene;
}

inline Rule make_rule(const std::string& id, RuleKind kind, const std::string& text, int line) {
    Rule rule;
    rule.id = id;
    rule.kind = kind;
    rule.text = text;
    rule.line = line;
    rule.function = "k";
    return rule;
}

// A grammar whose source is a small kernel: #define lines for the Param genes, then one line per
// rule. `genes` and `rules` are used as given.
inline Grammar grammar_of(std::vector<Gene> genes, std::vector<Rule> rules) {
    Grammar grammar;
    grammar.source_path = "tests/k.cu";
    grammar.file_name = "k.cu";
    grammar.source_hash = "0123456789abcdef";
    grammar.genes = std::move(genes);
    grammar.rules = std::move(rules);
    for (std::size_t i = 0; i < grammar.genes.size(); ++i) {
        const Gene& gene = grammar.genes[i];
        if (gene.kind != GeneKind::Param) continue;
        Piece piece;
        piece.kind = Piece::Kind::GeneSlot;
        piece.text = "#define " + gene.name + " " + gene.default_value;
        piece.extra = "#define " + gene.name + " ";
        piece.index = static_cast<int>(i);
        grammar.pieces.push_back(piece);
        grammar.pieces.push_back(Piece{Piece::Kind::Literal, "\n", -1, "", 0});
    }
    grammar.pieces.push_back(Piece{Piece::Kind::Literal, "__global__ void k(int n) {\n", -1, "", 0});
    for (std::size_t i = 0; i < grammar.rules.size(); ++i) {
        grammar.pieces.push_back(Piece{Piece::Kind::Literal, "  ", -1, "", 0});
        grammar.pieces.push_back(Piece{Piece::Kind::RuleSlot, "", static_cast<int>(i), "", 0});
        grammar.pieces.push_back(Piece{Piece::Kind::Literal, "\n", -1, "", 0});
    }
    grammar.pieces.push_back(Piece{Piece::Kind::Literal, "}\n", -1, "", 0});
    Function function;
    function.name = "k";
    function.is_global = true;
    grammar.functions.push_back(function);
    return grammar;
}

// Two numeric parameters (BLOCK 32|64|128, default 64; ROWS 1..4, default 4), an on/off guard,
// six statements "_k.cu_10".."_k.cu_15", two if conditions and one pragma slot.
inline Grammar small_grammar() {
    std::vector<Gene> genes{
        make_gene("BLOCK", GeneKind::Param, {"32", "64", "128"}, "64", true),
        make_gene("ROWS", GeneKind::Param, {"1", "2", "3", "4"}, "4", true),
        make_gene("FAST", GeneKind::Guard, {"0", "1"}, "0", true),
    };
    std::vector<Rule> rules;
    for (int line = 10; line <= 15; ++line)
        rules.push_back(make_rule("_k.cu_" + std::to_string(line), RuleKind::Statement,
                                  "x" + std::to_string(line) + " += n;", line));
    rules.push_back(make_rule("IF_k.cu_20", RuleKind::IfCondition, "(n > 0)", 20));
    rules.push_back(make_rule("IF_k.cu_21", RuleKind::IfCondition, "(n < 9)", 21));
    rules.push_back(make_rule("pragma_k.cu_30", RuleKind::Pragma, "", 30));
    return grammar_of(std::move(genes), std::move(rules));
}

inline Edit del(const std::string& target) { return Edit{Edit::Op::Delete, target, ""}; }
inline Edit rep(const std::string& target, const std::string& source) { return Edit{Edit::Op::Replace, target, source}; }
inline Edit ins(const std::string& target, const std::string& source) { return Edit{Edit::Op::Insert, target, source}; }

// Results by genome text; genomes not listed get `fallback`. Counts what it was asked.
class ScriptedEvaluator : public Evaluator {
public:
    std::map<std::string, EvalResult> results;
    EvalResult fallback;
    Timing original{1.0, 0.001, 5};
    bool times = true;
    int cases = 4;
    int calls = 0;
    std::function<void(int call)> before_call;  // may throw to simulate a dying evaluator

    EvaluatorTraits traits() const override { return {"scripted", cases, times, false}; }
    BatchResult evaluate(const std::vector<Variant>& variants, int) override {
        ++calls;
        if (before_call) before_call(calls);
        BatchResult batch;
        batch.original = times ? original : Timing{};
        for (const Variant& variant : variants) {
            auto it = results.find(genome_to_text(variant.genome));
            batch.results.push_back(it == results.end() ? fallback : it->second);
        }
        return batch;
    }
};

// A checker that judges one variant at a time, as the tests' fakes do.
class OneByOneChecker : public VariantChecker {
public:
    virtual EvalResult sanitize_one(const Variant& variant, int case_index) = 0;
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) override {
        std::vector<EvalResult> results;
        for (const Variant& variant : variants) results.push_back(sanitize_one(variant, case_index));
        return results;
    }
};

inline EvalResult ok_in(double ms, double spread = 0.001, double error = 0) {
    EvalResult result;
    result.time = Timing{ms, spread, 5};
    result.error = error;
    return result;
}

}  // namespace gi::testing
