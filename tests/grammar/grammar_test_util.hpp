#pragma once
// Helpers shared by the grammar tests: build from text, read test kernels, check the invariant.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "grammar/build_grammar.hpp"
#include "source/source_file.hpp"

namespace gi::test {

inline std::string grammar_data(const std::string& name) { return std::string(GI_TEST_DATA_DIR) + "/grammar/" + name; }

inline Grammar grammar_of(const std::string& text, GrammarOptions options = {}, const std::string& path = "k.cu") {
    return build_grammar(make_source_file(path, text), options);
}

inline std::string concatenate(const Grammar& grammar) {
    std::string text;
    for (const Piece& piece : grammar.pieces) text += piece.text;
    return text;
}

// Every slot's piece text equals its rule's original text: the invariant the variant stage relies on.
inline void expect_reproduces(const Grammar& grammar, const std::string& text) {
    EXPECT_EQ(concatenate(grammar), text);
    for (const Piece& piece : grammar.pieces)
        if (piece.kind == Piece::Kind::RuleSlot) {
            ASSERT_GE(piece.index, 0);
            ASSERT_LT(static_cast<std::size_t>(piece.index), grammar.rules.size());
            EXPECT_EQ(piece.text, grammar.rules[static_cast<std::size_t>(piece.index)].text);
        }
}

// The rule whose original text is `text` (first one), or nullptr.
inline const Rule* rule_with_text(const Grammar& grammar, const std::string& text) {
    for (const Rule& rule : grammar.rules)
        if (rule.text == text) return &rule;
    return nullptr;
}

}  // namespace gi::test
