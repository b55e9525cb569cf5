// The third-party-style corpus (tests/corpus), taken as a new user would take it: each file's
// grammar reproduces the file, its genes and rules are there, and random single edits compile at
// least 90% of the time with the include folders and macros its program compiles it with (nvcc;
// the compile part skips without it). One file per idiom real projects write (issue 16).
#include <gtest/gtest.h>

#include <filesystem>

#include "../support/gi_tool_run.hpp"
#include "compile/nvcc_compiler.hpp"
#include "grammar/build_grammar.hpp"
#include "grammar_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

struct CorpusKernel {
    std::string file;                      // under tests/corpus
    std::vector<std::string> functions;
    std::vector<std::string> params;       // --param declarations
    std::string settings;                  // -I / -D for gi-tool, as the program's build has them
    std::string idiom;                     // what it stands for
};

std::string corpus(const std::string& file) { return (fs::path(GI_SOURCE_DIR) / "tests/corpus" / file).string(); }

std::vector<CorpusKernel> kernels() {
    const std::string recorder = "-I '" + (fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/include").string() + "'";
    return {
        {"with_include/stencil.cu", {"stencil1d"}, {}, "-I '" + corpus("with_include/include") + "'", "a project include folder"},
        {"row_filter.cu", {"rowFilter"}, {"ROW_TILE_W=64,128,256"}, recorder, "host code and main() in the file, __constant__ data"},
        {"struct_pointers.cu", {"axpyStruct"}, {}, recorder, "a struct of pointers passed by value"},
        {"pointer_array.cu", {"sumRows"}, {}, recorder, "an array of device pointers"},
        {"histogram.cu", {"weightedHistogram"}, {}, recorder, "float atomics"},
        {"rodinia_style.cu", {"lud_diagonal"}, {"BLOCK_SIZE=16,32,64"}, "", "the #ifdef RD_WG_SIZE / #else size idiom"},
        {"extern_c.cu", {"vector_add"}, {}, "", "extern \"C\" kernels"},
        {"namespaced.cu", {"to_grey"}, {"THREADS=64,128,256"}, "", "kernels in namespaces"},
        {"two_kernels.cu", {"partial_sums", "final_sum"}, {"BLOCK=128,256"}, "", "two kernels of one file"},
        {"crlf.cu", {"saxpy_items"}, {"ITEMS=2,4,8"}, "", "CR LF line ends"},
        {"matrix_mul.cu", {"MatrixMulCUDA<32>"}, {}, recorder, "a template kernel instantiated twice, one instantiation registered"},
        {"tile_param.cu", {"transposeTiled<TILE>"}, {"TILE=8,16,32"}, recorder, "a template argument as a tunable parameter"},
    };
}

Grammar grammar_of_corpus(const CorpusKernel& k) {
    GrammarOptions options;
    options.functions = k.functions;
    for (const std::string& p : k.params) options.params.push_back(parse_param_declaration(p, "--param"));
    return build_grammar(read_source_file(corpus(k.file)), options);
}

TEST(Corpus, EveryFileHasAGrammarThatReproducesIt) {
    for (const CorpusKernel& k : kernels()) {
        SCOPED_TRACE(k.file + " (" + k.idiom + ")");
        const Grammar grammar = grammar_of_corpus(k);
        test::expect_reproduces(grammar, read_source_file(corpus(k.file)).text);
        int globals = 0;
        for (const Function& f : grammar.functions) {
            globals += f.is_global;
            EXPECT_EQ(f.is_template, f.name == "MatrixMulCUDA" || f.name == "transposeTiled") << f.name;
        }
        EXPECT_EQ(globals, static_cast<int>(k.functions.size()));
        EXPECT_FALSE(grammar.rules.empty());
        for (const std::string& p : k.params) EXPECT_NE(grammar.find_gene(p.substr(0, p.find('='))), nullptr) << p;
    }
}

TEST(Corpus, TemplateArgumentsNameAnInstantiationOfATemplateOnly) {
    GrammarOptions options;
    options.functions = {"rowFilter<3>"};
    try {
        build_grammar(read_source_file(corpus("row_filter.cu")), options);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'rowFilter<3>' names template arguments, but 'rowFilter' is not a template"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Corpus, TheIfdefSizeIdiomDefaultsToTheElseValue) {
    const Grammar grammar = grammar_of_corpus(kernels()[5]);
    ASSERT_NE(grammar.find_gene("BLOCK_SIZE"), nullptr);
    EXPECT_EQ(grammar.find_gene("BLOCK_SIZE")->default_value, "16");
}

TEST(Corpus, RandomSingleEditsCompileWithTheProgramsSettings) {
    try {
        find_nvcc();
    } catch (const Error&) {
        GTEST_SKIP() << "no nvcc: the compile rates need the CUDA toolkit";
    }
    for (const CorpusKernel& k : kernels()) {
        std::string command = "mutants '" + corpus(k.file) + "' " + k.settings;
        for (const std::string& f : k.functions) command += " --function '" + f + "'";
        for (const std::string& p : k.params) command += " --param " + p;
        command += " --count 12 --seed 3 --jobs 2 --min-rate 90";
        const test::ToolRun r = test::run_gi_tool(command);
        EXPECT_EQ(r.status, 0) << k.file << " (" << k.idiom << "):\n" << r.output;
    }
}

TEST(Corpus, WithoutItsIncludeFolderTheKernelIsAClearErrorNotAnEmptyRun) {
    // A compile-only evolution of a file whose header is missing used to report "compiled: 0.0%"
    // and exit 0; the reason was only inside run.xml.
    try {
        find_nvcc();
    } catch (const Error&) {
        GTEST_SKIP() << "no nvcc";
    }
    const test::ToolRun r = test::run_gi_tool("evolve '" + corpus("with_include/stencil.cu") +
                                              "' --function stencil1d --evaluator compile-only --generations 1 "
                                              "--population 4 --out '" + (fs::temp_directory_path() / "gi-corpus-evolve").string() +
                                              "' --restart");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("the unedited kernel does not compile"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("project/stencil_config.cuh"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// A helper another kernel of the file calls is not evolved with the registered kernel: the other
// kernel would change with it, and nothing replays that one.
TEST(Corpus, AHelperSharedWithAnUnregisteredKernelIsLeftAlone) {
    const std::string text = "__device__ float twice(float x) {\n    float y = 0.0f;\n    y = x + x;\n    return y;\n}\n"
                             "__device__ float own(float x) {\n    float z = 0.0f;\n    z = x * 3.0f;\n    return z;\n}\n"
                             "__global__ void a(float* o) {\n    o[0] = twice(o[0]) + own(o[1]);\n}\n"
                             "__global__ void b(float* o) {\n    o[1] = twice(o[1]);\n}\n";
    GrammarOptions options;
    options.functions = {"a"};
    const Grammar grammar = test::grammar_of(text, options);
    std::vector<std::string> functions;
    for (const Function& f : grammar.functions) functions.push_back(f.name);
    EXPECT_EQ(functions, (std::vector<std::string>{"a", "own"}));
    EXPECT_EQ(test::rule_with_text(grammar, "y = x + x;"), nullptr);
    EXPECT_NE(test::rule_with_text(grammar, "z = x * 3.0f;"), nullptr);
    bool noted = false;
    for (const std::string& note : grammar.notes)
        noted = noted || note.find("helper 'twice' is not evolved: the kernel 'b', which is not registered, calls it") !=
                             std::string::npos;
    EXPECT_TRUE(noted);
    options.functions = {"a", "b"};  // both registered: the helper is theirs to evolve
    EXPECT_NE(test::rule_with_text(test::grammar_of(text, options), "y = x + x;"), nullptr);
}

}  // namespace
}  // namespace gi
