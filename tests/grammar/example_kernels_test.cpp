// The project's example kernels (kernels/*/*.cu) must all turn into grammars that reproduce them.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "grammar/build_grammar.hpp"
#include "grammar_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

TEST(ExampleKernels, EveryKernelFileBuildsAGrammar) {
    const std::filesystem::path root = std::filesystem::path(GI_SOURCE_DIR) / "kernels";
    if (!std::filesystem::is_directory(root)) GTEST_SKIP() << "no kernels/ folder in " << GI_SOURCE_DIR;
    int kernels = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (entry.path().extension() != ".cu") continue;
        const SourceFile source = read_source_file(entry.path());
        if (source.text.find("__global__") == std::string::npos) continue;
        // Drivers launch kernels declared in headers; only files that define one have a grammar.
        bool defines = false;
        try {
            const Grammar grammar = build_grammar(source, {});
            defines = true;
            test::expect_reproduces(grammar, source.text);
            std::map<RuleKind, int> counts;
            for (const Rule& rule : grammar.rules) ++counts[rule.kind];
            std::cout << "[ grammar  ] " << std::filesystem::relative(entry.path(), root).string() << ": "
                      << grammar.rules.size() << " rules (" << counts[RuleKind::Statement] << " statements, "
                      << counts[RuleKind::IfCondition] << " IF, " << counts[RuleKind::ForInit] << " for1, "
                      << counts[RuleKind::ForCond] << " for2, " << counts[RuleKind::ForStep] << " for3, "
                      << counts[RuleKind::Pragma] << " pragma), " << grammar.genes.size() << " genes\n";
            EXPECT_FALSE(grammar.rules.empty()) << entry.path();
        } catch (const Error& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("no __global__ function is defined"), std::string::npos) << message;
        }
        if (defines) ++kernels;
    }
    if (kernels == 0) GTEST_SKIP() << "no kernel definitions under " << root;
}

}  // namespace
}  // namespace gi
