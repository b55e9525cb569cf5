// Each gene kind: when it is offered, its values and default, and the text of its slots.
#include <gtest/gtest.h>

#include "grammar/build_grammar.hpp"
#include "grammar_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using test::grammar_of;
using Values = std::vector<std::string>;

// The (original text, extra) of every slot of a gene, in file order.
std::vector<std::pair<std::string, std::string>> slots_of(const Grammar& grammar, const std::string& gene) {
    std::vector<std::pair<std::string, std::string>> slots;
    const int index = grammar.gene_index(gene);
    for (const Piece& piece : grammar.pieces)
        if (piece.kind == Piece::Kind::GeneSlot && piece.index == index) slots.emplace_back(piece.text, piece.extra);
    return slots;
}

const Gene& gene(const Grammar& grammar, const std::string& name) {
    const Gene* found = grammar.find_gene(name);
    if (!found) {
        std::string names;
        for (const Gene& g : grammar.genes) names += " " + g.name;
        ADD_FAILURE() << "no gene " << name << "; genes:" << names;
        static const Gene none;
        return none;
    }
    return *found;
}

bool has_note(const Grammar& grammar, const std::string& fragment) {
    for (const std::string& note : grammar.notes)
        if (note.find(fragment) != std::string::npos) return true;
    return false;
}

GrammarOptions with_param(const std::string& declaration) {
    GrammarOptions options;
    options.params.push_back(parse_param_declaration(declaration, "--param"));
    return options;
}

const std::string kGenesKernel = "__global__ void k(float* a) { a[0] = BLOCK_W; }\n";

TEST(Genes, ParamCoversItsDefineLineAndAddsTheDefaultFirst) {
    const std::string text = "#define BLOCK_W 64   // threads\n" + kGenesKernel;
    const Grammar grammar = grammar_of(text, with_param("BLOCK_W=32,128"));
    test::expect_reproduces(grammar, text);
    const Gene& g = gene(grammar, "BLOCK_W");
    EXPECT_EQ(g.kind, GeneKind::Param);
    EXPECT_EQ(g.values, (Values{"64", "32", "128"}));
    EXPECT_EQ(g.default_value, "64");
    EXPECT_TRUE(g.numeric);
    EXPECT_EQ(g.line, 1);
    const auto slots = slots_of(grammar, "BLOCK_W");
    ASSERT_EQ(slots.size(), 1u);
    EXPECT_EQ(slots[0].first, "#define BLOCK_W 64   // threads");
    EXPECT_EQ(slots[0].second, "#define BLOCK_W ");
}

TEST(Genes, ParamInsideItsOwnIfndefKeepsDeclaredOrder) {
    const std::string text = "#ifndef BLOCK_W\n  #define BLOCK_W 64\n#endif\n" + kGenesKernel;
    const Grammar grammar = grammar_of(text, with_param("BLOCK_W=32,64,128"));
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(gene(grammar, "BLOCK_W").values, (Values{"32", "64", "128"}));
    EXPECT_EQ(slots_of(grammar, "BLOCK_W").at(0).first, "#define BLOCK_W 64");
    EXPECT_EQ(gene(grammar, "BLOCK_W").line, 2);
}

// A kernel defined in a header (KERNEL reduction_kernel.cuh) sits inside its include guard, which
// the file's one compile always takes: its #defines are at file level. Anything outside the guard,
// or an #else of it, makes it an ordinary #if again.
TEST(Genes, ParamInsideAnIncludeGuardIsAtFileLevel) {
    const std::string guarded = "// k.cuh\n#ifndef K_CUH\n#define K_CUH\n#define BLOCK_W 64\n" + kGenesKernel + "#endif  // K_CUH\n";
    const Grammar grammar = grammar_of(guarded, with_param("BLOCK_W=32,128"));
    test::expect_reproduces(grammar, guarded);
    EXPECT_EQ(gene(grammar, "BLOCK_W").default_value, "64");
    EXPECT_EQ(slots_of(grammar, "BLOCK_W").at(0).first, "#define BLOCK_W 64");
    for (const std::string& not_a_guard :
         {guarded + "int after_the_guard;\n", "int before;\n" + guarded,
          "#ifndef K_CUH\n#define K_CUH\n#define BLOCK_W 64\n" + kGenesKernel + "#else\n#define BLOCK_W 32\n#endif\n",
          "#ifndef K_CUH\n#define OTHER\n#define BLOCK_W 64\n" + kGenesKernel + "#endif\n"}) {
        try {
            grammar_of(not_a_guard, with_param("BLOCK_W=32,128"));
            ADD_FAILURE() << "a parameter inside an #if that is no include guard was taken:\n" << not_a_guard;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("is #defined only inside an #if"), std::string::npos) << e.what();
        }
    }
}

// The tunable-size idiom of many codes: the build may -D a size, else the #else branch's value.
TEST(Genes, ParamInTheElseOfAnIfdefPassThroughChainTakesTheElseValueAsItsDefault) {
    const std::string text = "#ifdef RD_WG_SIZE_0_0\n"
                             "        #define BLOCK_W RD_WG_SIZE_0_0\n"
                             "#elif defined(RD_WG_SIZE_0)\n"
                             "        #define BLOCK_W RD_WG_SIZE_0\n"
                             "#elif defined RD_WG_SIZE\n"
                             "        #define BLOCK_W RD_WG_SIZE\n"
                             "#else\n"
                             "        #define BLOCK_W 16\n"
                             "#endif\n" + kGenesKernel;
    const Grammar grammar = grammar_of(text, with_param("BLOCK_W=16,32,64"));
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(gene(grammar, "BLOCK_W").default_value, "16");
    EXPECT_EQ(gene(grammar, "BLOCK_W").line, 8);
    ASSERT_EQ(slots_of(grammar, "BLOCK_W").size(), 1u);
    EXPECT_EQ(slots_of(grammar, "BLOCK_W").at(0).first, "#define BLOCK_W 16");
}

TEST(Genes, AnElseDefinitionOutsideThatIdiomIsStillRefused) {
    // The other branch sets another value, or tests something else: not a default the build may override.
    for (const std::string& chain : {"#ifdef WIDE\n#define BLOCK_W 128\n#else\n#define BLOCK_W 16\n#endif\n",
                                     "#if SIZE > 2\n#define BLOCK_W SIZE\n#else\n#define BLOCK_W 16\n#endif\n",
                                     "#ifdef A\n#ifdef B\n#define BLOCK_W A\n#endif\n#else\n#define BLOCK_W 16\n#endif\n"}) {
        try {
            grammar_of(chain + kGenesKernel, with_param("BLOCK_W=16,32"));
            ADD_FAILURE() << "expected an error for:\n" << chain;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("is #defined only inside an #if"), std::string::npos) << e.what();
        }
    }
}

TEST(Genes, NonNumericParam) {
    const std::string text = "#define OUT_TYPE float\n__global__ void k(OUT_TYPE* a) { a[0] = 1; }\n";
    const Grammar grammar = grammar_of(text, with_param("OUT_TYPE=int,float"));
    EXPECT_FALSE(gene(grammar, "OUT_TYPE").numeric);
    EXPECT_EQ(gene(grammar, "OUT_TYPE").default_value, "float");
}

TEST(Genes, ParamWithoutADefineIsAnErrorWithAHint) {
    for (const std::string& text :
         {kGenesKernel, "#if A\n#define BLOCK_W 64\n#endif\n" + kGenesKernel, "#define BLOCK_W(x) x\n" + kGenesKernel,
          "#define BLOCK_W\n" + kGenesKernel}) {
        try {
            grammar_of(text, with_param("BLOCK_W=32"));
            ADD_FAILURE() << "expected an error for:\n" << text;
        } catch (const Error& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("k.cu"), std::string::npos) << message;
            EXPECT_NE(message.find("BLOCK_W"), std::string::npos) << message;
            EXPECT_NE(message.find("#define BLOCK_W"), std::string::npos) << message;
        }
    }
}

// The compiler takes the last of two definitions: the tool could vary only one of them.
TEST(Genes, AParamDefinedTwiceOutsideAnyIfIsRefusedNamingBothLines) {
    for (const std::string& text : {"#define BLOCK_W 64\n#define BLOCK_W 64\n" + kGenesKernel,
                                    "#ifndef BLOCK_W\n#define BLOCK_W 64\n#endif\n#undef BLOCK_W\n#define BLOCK_W 32\n" + kGenesKernel,
                                    std::string("#define BLOCK_W 64\n__global__ void k(float* a) {\n#define BLOCK_W 32\n a[0] = BLOCK_W; }\n")}) {
        try {
            grammar_of(text, with_param("BLOCK_W=32,64"));
            ADD_FAILURE() << "expected an error for:\n" << text;
        } catch (const Error& e) {
            const std::string message = e.what();
            EXPECT_NE(message.find("parameter BLOCK_W is #defined twice outside any #if (lines "), std::string::npos) << message;
            EXPECT_NE(message.find("keep one '#define BLOCK_W <default>'"), std::string::npos) << message;
        }
    }
    // A second definition inside an #if (or a dead one) is the file's business, as before.
    const std::string guarded = "#define BLOCK_W 64\n#if 0\n#define BLOCK_W 5\n#endif\n" + kGenesKernel;
    EXPECT_EQ(gene(grammar_of(guarded, with_param("BLOCK_W=32,64")), "BLOCK_W").line, 1);
}

TEST(Genes, AParamDefinedAfterAByteOrderMarkIsFoundAndTheMarkKept) {
    const std::string text = "\xEF\xBB\xBF#define BLOCK_W 64\n" + kGenesKernel;
    const Grammar grammar = grammar_of(text, with_param("BLOCK_W=32,64"));
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(gene(grammar, "BLOCK_W").line, 1);
    EXPECT_EQ(slots_of(grammar, "BLOCK_W").at(0).first, "#define BLOCK_W 64");
}

TEST(Genes, GuardsFromTruthValueTestsInsideTheKernel) {
    const std::string text =
        "#define XHALO 1\n"
        "#define DPER 0\n"
        "#define COUNT 4\n"
        "#define F(x) x\n"
        "#if OUTSIDE\n#endif\n"
        "__global__ void k(float* a) {\n"
        "#if XHALO && !DPER\n"
        "    a[0] = 1;\n"
        "#endif\n"
        "#ifdef STORE\n"
        "    a[1] = 1;\n"
        "#elif defined(OTHER) || F(2)\n"
        "    a[1] = 2;\n"
        "#endif\n"
        "#if COUNT > 2 || __CUDA_ARCH__\n"
        "    a[2] = 3;\n"
        "#endif\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    std::vector<std::string> guards;
    for (const Gene& g : grammar.genes)
        if (g.kind == GeneKind::Guard) guards.push_back(g.name);
    EXPECT_EQ(guards, (Values{"XHALO", "DPER", "STORE", "OTHER"}));
    EXPECT_EQ(gene(grammar, "XHALO").default_value, "1");
    EXPECT_EQ(gene(grammar, "XHALO").values, (Values{"0", "1"}));
    EXPECT_EQ(slots_of(grammar, "XHALO").at(0).first, "#define XHALO 1");
    EXPECT_EQ(slots_of(grammar, "XHALO").at(0).second, "#define XHALO ");
    EXPECT_EQ(gene(grammar, "DPER").default_value, "0");
    EXPECT_EQ(gene(grammar, "STORE").default_value, "0");
    EXPECT_EQ(gene(grammar, "STORE").line, 11);
    // Not #defined: an empty slot at the very start of the file.
    ASSERT_EQ(slots_of(grammar, "STORE").size(), 1u);
    EXPECT_EQ(slots_of(grammar, "STORE")[0].first, "");
    EXPECT_EQ(grammar.pieces.at(0).kind, Piece::Kind::GeneSlot);
    EXPECT_TRUE(has_note(grammar, "COUNT is compared")) << "a macro compared with numbers is not on/off";
    EXPECT_EQ(grammar.find_gene("OUTSIDE"), nullptr) << "only #ifs inside the kernel";
    EXPECT_EQ(grammar.find_gene("F"), nullptr);
    EXPECT_EQ(grammar.find_gene("__CUDA_ARCH__"), nullptr);
}

TEST(Genes, GuardDefinedWithAnotherValueIsLeftToTheUser) {
    const std::string text = "#define MODE 2\n__global__ void k(float* a) {\n#if MODE\n a[0] = 1;\n#endif\n}\n";
    const Grammar grammar = grammar_of(text);
    EXPECT_EQ(grammar.find_gene("MODE"), nullptr);
    EXPECT_TRUE(has_note(grammar, "MODE"));
}

TEST(Genes, ParamsAreNotGuards) {
    const std::string text = "#define BLOCK_W 64\n__global__ void k(float* a) {\n#if BLOCK_W\n a[0] = 1;\n#endif\n}\n";
    const Grammar grammar = grammar_of(text, with_param("BLOCK_W=32"));
    EXPECT_EQ(gene(grammar, "BLOCK_W").kind, GeneKind::Param);
    EXPECT_EQ(grammar.genes.size(), 2u) << "BLOCK_W and restrict, nothing twice";
}

TEST(Genes, FlagsHaveNoSlots) {
    GrammarOptions options;
    options.flags.push_back(parse_flag_declaration("-use_fast_math", "--flag"));
    options.flags.push_back(parse_flag_declaration("-maxrregcount={32..34}", "--flag"));
    const Grammar grammar = grammar_of(kGenesKernel, options);
    const Gene& fast = gene(grammar, "use_fast_math");
    EXPECT_EQ(fast.kind, GeneKind::Flag);
    EXPECT_EQ(fast.values, (Values{"0", "1"}));
    EXPECT_EQ(fast.default_value, "0");
    EXPECT_EQ(fast.flag_template, "-use_fast_math");
    const Gene& regs = gene(grammar, "maxrregcount");
    EXPECT_EQ(regs.values, (Values{"off", "32", "33", "34"}));
    EXPECT_EQ(regs.default_value, "off");
    EXPECT_EQ(regs.flag_template, "-maxrregcount={}");
    EXPECT_EQ(regs.line, 0);
    EXPECT_TRUE(slots_of(grammar, "maxrregcount").empty());
}

TEST(Genes, DuplicateGeneNamesAreAUsageError) {
    GrammarOptions options;
    options.flags.push_back(parse_flag_declaration("-use_fast_math", "--flag"));
    options.flags.push_back(parse_flag_declaration("-use_fast_math", "--flag"));
    EXPECT_THROW(grammar_of(kGenesKernel, options), UsageError);
}

TEST(Genes, RestrictSlotsAfterEveryPointerStar) {
    const std::string text = "__global__ void k(float *data, const float* in, float** pp, int n, float& r) { data[0] = n; }\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    const Gene& g = gene(grammar, "restrict");
    EXPECT_EQ(g.kind, GeneKind::Restrict);
    EXPECT_EQ(g.default_value, "0");
    const auto slots = slots_of(grammar, "restrict");
    ASSERT_EQ(slots.size(), 3u);
    for (const auto& slot : slots) EXPECT_EQ(slot.first, "");
    EXPECT_EQ(slots[0].second, " __restrict__ ") << "'*data' needs a space after the qualifier";
    EXPECT_EQ(slots[1].second, " __restrict__");
    // The slot sits right after the last '*'.
    std::string before;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::GeneSlot && grammar.genes[static_cast<std::size_t>(piece.index)].name == "restrict") break;
        before += piece.text;
    }
    EXPECT_EQ(before, "__global__ void k(float *");
}

TEST(Genes, ExistingRestrictIsTheSlotsText) {
    const std::string text = "__global__ void k(float * __restrict__ a, const float *__restrict__ b) { a[0] = b[0]; }\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(gene(grammar, "restrict").default_value, "1");
    const auto slots = slots_of(grammar, "restrict");
    ASSERT_EQ(slots.size(), 2u);
    EXPECT_EQ(slots[0].first, " __restrict__");
    EXPECT_EQ(slots[1].first, "__restrict__");
}

TEST(Genes, MixedRestrictIsNotOfferedAndNoted) {
    const Grammar grammar = grammar_of("__global__ void k(float* __restrict__ a, float* b) { a[0] = b[0]; }\n");
    EXPECT_EQ(grammar.find_gene("restrict"), nullptr);
    EXPECT_TRUE(has_note(grammar, "restrict gene not offered"));
    EXPECT_TRUE(has_note(grammar, "a are __restrict__ but b"));
}

TEST(Genes, ConstOnEachScalarParameter) {
    const std::string text = "__global__ void k(float* a, int n, const int m, float s, int const q) { a[0] = n + m + s + q; }\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(gene(grammar, "const_n").default_value, "0");
    EXPECT_EQ(gene(grammar, "const_m").default_value, "1");
    EXPECT_EQ(gene(grammar, "const_s").kind, GeneKind::Const);
    EXPECT_EQ(slots_of(grammar, "const_n").at(0).first, "");
    EXPECT_EQ(slots_of(grammar, "const_m").at(0).first, "const ");
    EXPECT_EQ(grammar.find_gene("const_a"), nullptr) << "pointers get restrict, not const";
    EXPECT_EQ(grammar.find_gene("const_q"), nullptr);
    EXPECT_TRUE(has_note(grammar, "const_q"));
    std::string before;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::GeneSlot && grammar.genes[static_cast<std::size_t>(piece.index)].name == "const_n") break;
        before += piece.text;
    }
    EXPECT_EQ(before, "__global__ void k(float* a, ");
}

TEST(Genes, ConstIsNotOfferedForAParameterTheKernelChanges) {
    const Grammar grammar = grammar_of(
        "__global__ void k(float* a, int n, int m, int q, int r) {\n  n -= 1;\n  m++;\n  int* p = &q;\n  a[0] = n + m + *p + r + a->n;\n}\n");
    for (const char* name : {"const_n", "const_m", "const_q"}) {
        EXPECT_EQ(grammar.find_gene(name), nullptr) << name;
        EXPECT_TRUE(has_note(grammar, std::string(name) + " gene not offered")) << name;
    }
    EXPECT_NE(grammar.find_gene("const_r"), nullptr);
    EXPECT_TRUE(has_note(grammar, "changes n at line 2"));
}

TEST(Genes, VolatileIsNotOfferedWhenSharedArraysArePassedOn) {
    for (const char* use : {"f(s, 1);", "f(1, s + 2);", "atomicAdd(&s[0], 1);"}) {
        const std::string text = std::string("__global__ void k(int* a) {\n  __shared__ int s[4];\n  ") + use +
                                 "\n  a[0] = s[0];\n}\n";
        const Grammar grammar = grammar_of(text);
        EXPECT_EQ(grammar.find_gene("volatile"), nullptr) << use;
        EXPECT_TRUE(has_note(grammar, "__shared__ s is passed on at line 3")) << use;
    }
    const Grammar fine = grammar_of("__global__ void k(int* a) {\n  __shared__ int s[4];\n  s[0] = f(s[1], (s[2]));\n  a[0] = s[0];\n}\n");
    EXPECT_NE(fine.find_gene("volatile"), nullptr);
}

TEST(Genes, VolatileOnlyForArithmeticSharedTypes) {
    const Grammar vectors = grammar_of("__global__ void k(float4* a) {\n  __shared__ float4 s[4];\n  s[0] = a[0];\n}\n");
    EXPECT_EQ(vectors.find_gene("volatile"), nullptr);
    EXPECT_TRUE(has_note(vectors, "has type float4"));
    const Grammar macro = grammar_of(
        "#define OUT_TYPE unsigned short\n__global__ void k(int* a) {\n  __shared__ OUT_TYPE s[4];\n  __shared__ unsigned int t[4];\n  a[0] = s[0] + t[0];\n}\n");
    EXPECT_NE(macro.find_gene("volatile"), nullptr);
}

TEST(Genes, VolatileOnAllSharedDeclarations) {
    const std::string text =
        "__global__ void k(float* a) {\n"
        "    __shared__ float s[32];\n"
        "    extern __shared__  int dyn[];\n"
        "    s[0] = dyn[0];\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    const Gene& g = gene(grammar, "volatile");
    EXPECT_EQ(g.kind, GeneKind::Volatile);
    EXPECT_EQ(g.default_value, "0");
    EXPECT_EQ(g.line, 2);
    const auto slots = slots_of(grammar, "volatile");
    ASSERT_EQ(slots.size(), 2u);
    std::string text_before_first;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::GeneSlot && grammar.genes[static_cast<std::size_t>(piece.index)].name == "volatile") break;
        text_before_first += piece.text;
    }
    EXPECT_EQ(text_before_first.substr(text_before_first.size() - 15), "    __shared__ ");
}

TEST(Genes, VolatileExistingMixedOrMisplaced) {
    Grammar grammar = grammar_of("__global__ void k(float* a) {\n __shared__ volatile float s[2];\n __shared__ volatile int t[2];\n s[0] = t[0];\n}\n");
    EXPECT_EQ(gene(grammar, "volatile").default_value, "1");
    EXPECT_EQ(slots_of(grammar, "volatile").at(0).first, "volatile ");
    grammar = grammar_of("__global__ void k(float* a) {\n __shared__ volatile float s[2];\n __shared__ int t[2];\n s[0] = t[0];\n}\n");
    EXPECT_EQ(grammar.find_gene("volatile"), nullptr);
    EXPECT_TRUE(has_note(grammar, "1 of 2"));
    grammar = grammar_of("__global__ void k(float* a) {\n volatile __shared__ float s[2];\n s[0] = 1;\n}\n");
    EXPECT_EQ(grammar.find_gene("volatile"), nullptr);
    EXPECT_TRUE(has_note(grammar, "volatile gene not offered"));
}

TEST(Genes, LaunchBoundsFromTheBlockSize) {
    GrammarOptions options;
    options.block_size = "BLOCK_W, 4";
    const Grammar grammar = grammar_of("#define BLOCK_W 32\n__global__ void\nk(float* a) { a[0] = 1; }\n", options);
    const Gene& g = gene(grammar, "launch_bounds");
    EXPECT_EQ(g.kind, GeneKind::LaunchBounds);
    EXPECT_EQ(g.values, (Values{"off", "on", "1", "2", "3", "4", "5"}));
    EXPECT_EQ(g.default_value, "off");
    EXPECT_EQ(g.launch_threads, "(BLOCK_W)*(4)");
    EXPECT_EQ(g.line, 3);
    std::string before;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::GeneSlot && grammar.genes[static_cast<std::size_t>(piece.index)].name == "launch_bounds") break;
        before += piece.text;
    }
    EXPECT_EQ(before, "#define BLOCK_W 32\n__global__ void\n");
    options.block_size = "X,,Y";
    EXPECT_THROW(grammar_of("__global__ void k(float* a) { a[0] = 1; }\n", options), UsageError);
    options.block_size = "width";
    const Grammar variable = grammar_of("__global__ void k(float* a, int width) { a[0] = 1; }\n", options);
    EXPECT_EQ(variable.find_gene("launch_bounds"), nullptr);
    EXPECT_TRUE(has_note(variable, "uses width, which is not a macro"));
}

TEST(Genes, ExistingLaunchBounds) {
    const std::string text = "__global__ void __launch_bounds__(BLOCK_W * 2, 3) k(float* a) { a[0] = 1; }\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    const Gene& g = gene(grammar, "launch_bounds");
    EXPECT_EQ(g.default_value, "3");
    EXPECT_EQ(g.launch_threads, "BLOCK_W * 2");
    EXPECT_EQ(slots_of(grammar, "launch_bounds").at(0).first, "__launch_bounds__(BLOCK_W * 2, 3) ");
    const Grammar on = grammar_of("__global__ __launch_bounds__(256) void k(float* a) { a[0] = 1; }\n");
    EXPECT_EQ(gene(on, "launch_bounds").default_value, "on");
    const Grammar odd = grammar_of("__global__ void __launch_bounds__(256, 8) k(float* a) { a[0] = 1; }\n");
    EXPECT_EQ(odd.find_gene("launch_bounds"), nullptr);
    EXPECT_TRUE(has_note(odd, "cannot express"));
}

TEST(Genes, LaunchBoundsNeedsABlockSizeOrAnExistingOne) {
    const Grammar grammar = grammar_of(kGenesKernel);
    EXPECT_EQ(grammar.find_gene("launch_bounds"), nullptr);
    EXPECT_TRUE(has_note(grammar, "--block-size"));
}

TEST(Genes, SeveralKernelsGetPerKernelHeaderGenes) {
    GrammarOptions options;
    options.block_size = "128";
    const Grammar grammar = grammar_of(
        "__global__ void one(float* a, int n) { a[0] = n; }\n__global__ void two(float* b, int n) { b[0] = n; }\n", options);
    for (const char* name : {"restrict_one", "restrict_two", "const_one_n", "const_two_n", "launch_bounds_one",
                             "launch_bounds_two"})
        EXPECT_NE(grammar.find_gene(name), nullptr) << name;
    EXPECT_EQ(grammar.find_gene("restrict"), nullptr);
}

TEST(Genes, AlternativeDefinitionsOfAKernelShareItsHeaderGenes) {
    const std::string text =
        "#if FAST\n"
        "__global__ void k(float* a, int n) { a[0] = n; }\n"
        "#else\n"
        "__global__ void k(float* a, int n) { a[0] = 2 * n; }\n"
        "#endif\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(grammar.functions.size(), 2u);
    EXPECT_EQ(slots_of(grammar, "restrict").size(), 2u) << "not restrict_k: it is one kernel";
    EXPECT_EQ(slots_of(grammar, "const_n").size(), 2u);
    EXPECT_EQ(grammar.rules.size(), 2u);
}

TEST(Genes, EveryGeneDefaultIsOneOfItsValues) {
    GrammarOptions options = with_param("BLOCK_W=32,128");
    options.block_size = "BLOCK_W";
    options.flags.push_back(parse_flag_declaration("-use_fast_math", "--flag"));
    const Grammar grammar = build_grammar(read_source_file(test::grammar_data("stereo_like.cu")), options);
    EXPECT_GE(grammar.genes.size(), 8u);
    for (const Gene& g : grammar.genes)
        EXPECT_NE(std::find(g.values.begin(), g.values.end(), g.default_value), g.values.end()) << g.name;
}

}  // namespace
}  // namespace gi
