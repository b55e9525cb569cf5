// Two registrations of one file put together (variant/compose.hpp) from their changes to the
// original (variant_changes): each variant's own text where it is used, the original elsewhere,
// and a variant left out, with the reason, where it would touch what the other was checked with.
#include <gtest/gtest.h>

#include "genome/genome.hpp"
#include "grammar/build_grammar.hpp"
#include "source/source_file.hpp"
#include "variant/apply.hpp"
#include "variant/compose.hpp"

namespace gi {
namespace {

const char* const kTwoKernels =
    "#define BLOCK 256\n"
    "#define THREADS 128\n"
    "__global__ void first(float* out, const float* in, int n) {\n"
    "    __shared__ float cache[BLOCK];\n"
    "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
    "    cache[threadIdx.x] = i < n ? in[i] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0) out[blockIdx.x] = cache[0];\n"
    "}\n"
    "__global__ void second(float* total, const float* part, int blocks) {\n"
    "    float sum = 0.0f;\n"
    "    for (int b = threadIdx.x; b < blocks; b += THREADS) sum += part[b];\n"
    "    atomicAdd(total, sum);\n"
    "}\n";

Grammar grammar_of(const std::string& function, std::vector<ParamDeclaration> params = {},
                   std::vector<FlagDeclaration> flags = {}) {
    GrammarOptions options;
    options.functions = {function};
    options.params = std::move(params);
    options.flags = std::move(flags);
    return build_grammar(make_source_file("two.cu", kTwoKernels), options);
}

VariantPart part_of(const std::string& name, const std::string& genome_text, const Grammar& grammar) {
    const Genome genome = parse_genome(genome_text);
    VariantPart part;
    part.name = name;
    part.has_variant = true;
    part.genome_text = genome_text;
    part.changes = variant_changes(genome, grammar);
    part.compile_options = apply_genome(genome, grammar).compile_options;
    return part;
}

std::string body(const std::string& source) { return source.substr(source.find('\n') + 1); }

TEST(VariantChanges, ReproduceTheVariantText) {
    const Grammar grammar = grammar_of("first", {parse_param_declaration("BLOCK=128,256", "--param")});
    for (const std::string text : {"", "BLOCK=128", "restrict=1 <_two.cu_7>", "<_two.cu_6><_two.cu_8>",
                                   "<_two.cu_8>+<_two.cu_6>", "BLOCK=128 const_n=1 <IF_two.cu_8><IF_two.cu_8>"}) {
        const Genome genome = parse_genome(text);
        const std::vector<SourceChange> changes = variant_changes(genome, grammar);
        std::string rebuilt;
        std::size_t at = 0;
        for (const SourceChange& c : changes) {
            ASSERT_GE(c.begin, at) << text;
            rebuilt += std::string(kTwoKernels).substr(at, c.begin - at) + c.text;
            at = c.end;
        }
        rebuilt += std::string(kTwoKernels).substr(at);
        EXPECT_EQ(rebuilt, body(apply_genome(genome, grammar).source)) << text;
        EXPECT_EQ(changes.empty(), text == std::string()) << text;
    }
}

TEST(ComposeVariants, PutsDisjointVariantsTogether) {
    const Grammar first = grammar_of("first", {parse_param_declaration("BLOCK=128,256", "--param")});
    const Grammar second = grammar_of("second", {parse_param_declaration("THREADS=64,128", "--param")});
    const ComposedVariant c = compose_variants(
        kTwoKernels, {part_of("first", "BLOCK=128 restrict=1", first), part_of("second", "THREADS=64 <_two.cu_13>", second)});
    EXPECT_EQ(c.used, (std::vector<bool>{true, true}));
    EXPECT_EQ(c.source.substr(0, c.source.find('\n')),
              "// gi-optimize variant: first: BLOCK=128 restrict=1; second: THREADS=64 <_two.cu_13>");
    EXPECT_NE(c.source.find("#define BLOCK 128\n#define THREADS 64\n"), std::string::npos) << c.source;
    EXPECT_NE(c.source.find("first(float* __restrict__ out"), std::string::npos) << c.source;
    EXPECT_NE(c.source.find("second(float* total"), std::string::npos) << c.source;
    EXPECT_EQ(c.source.find("atomicAdd"), std::string::npos) << c.source;
}

TEST(ComposeVariants, AnOriginalPartKeepsItsText) {
    const Grammar first = grammar_of("first");
    VariantPart none;
    none.name = "second";
    const ComposedVariant c = compose_variants(kTwoKernels, {part_of("first", "<_two.cu_7>", first), none});
    EXPECT_EQ(c.used, (std::vector<bool>{true, false}));
    EXPECT_EQ(c.left_out[1], "");  // it had nothing to leave out
    EXPECT_NE(c.source.find("second: (original)"), std::string::npos);
    EXPECT_NE(c.source.find("atomicAdd(total, sum);"), std::string::npos);
    EXPECT_EQ(c.source.find("__syncthreads();"), std::string::npos);
}

TEST(ComposeVariants, AnOverlappingLaterVariantIsLeftOut) {
    // The same #define, tuned in two registrations (the CMake module refuses that; gi-apply may be run by hand).
    const Grammar first = grammar_of("first", {parse_param_declaration("THREADS=64,128", "--param")});
    const Grammar second = grammar_of("second", {parse_param_declaration("THREADS=64,128", "--param")});
    const ComposedVariant c =
        compose_variants(kTwoKernels, {part_of("first", "THREADS=64", first), part_of("second", "THREADS=64", second)});
    EXPECT_EQ(c.used, (std::vector<bool>{true, false}));
    EXPECT_EQ(c.left_out[1], "its change at line 2 overlaps the variant of 'first', registered before it");
}

TEST(ComposeVariants, AMacroConflictLeavesTheVariantOut) {
    const Grammar first = grammar_of("first");
    VariantPart part = part_of("first", "<_two.cu_7>", first);
    part.macro_conflict = "its BLOCK=128 would change 'second' too";
    const ComposedVariant c = compose_variants(kTwoKernels, {part, part_of("second", "restrict=1", grammar_of("second"))});
    EXPECT_EQ(c.used, (std::vector<bool>{false, true}));
    EXPECT_EQ(c.left_out[0], "its BLOCK=128 would change 'second' too");
    EXPECT_NE(c.source.find("__syncthreads();"), std::string::npos);
}

TEST(ComposeVariants, CompileOptionsMustBeTheWholeFiles) {
    const FlagDeclaration fast = parse_flag_declaration("-use_fast_math", "--flag");
    const Grammar first = grammar_of("first", {}, {fast});
    const Grammar second = grammar_of("second", {}, {fast});
    // Both with the same options: both used, the file compiled with them.
    ComposedVariant c = compose_variants(
        kTwoKernels, {part_of("first", "use_fast_math=1", first), part_of("second", "use_fast_math=1 restrict=1", second)});
    EXPECT_EQ(c.used, (std::vector<bool>{true, true}));
    EXPECT_EQ(c.compile_options, (std::vector<std::string>{"-use_fast_math"}));
    // One with options, one without: the one with them would change the other's code.
    c = compose_variants(kTwoKernels, {part_of("first", "use_fast_math=1", first), part_of("second", "restrict=1", second)});
    EXPECT_EQ(c.used, (std::vector<bool>{false, true}));
    EXPECT_EQ(c.left_out[0], "its compile options (-use_fast_math) would apply to the whole file, and the code of "
                             "'second' there was not checked with them");
    EXPECT_TRUE(c.compile_options.empty());
    // A part without a variant is original code, compiled without options too.
    VariantPart none;
    none.name = "second";
    c = compose_variants(kTwoKernels, {part_of("first", "use_fast_math=1", first), none});
    EXPECT_EQ(c.used, (std::vector<bool>{false, false}));
}

}  // namespace
}  // namespace gi
