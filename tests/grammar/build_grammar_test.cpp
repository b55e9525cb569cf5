#include "grammar/build_grammar.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "grammar_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using test::grammar_of;
using test::rule_with_text;
using Names = std::vector<std::string>;

const Rule& rule(const Grammar& grammar, const std::string& id) {
    const Rule* found = grammar.find_rule(id);
    if (!found) {
        std::string ids;
        for (const Rule& r : grammar.rules) ids += " " + r.id;
        ADD_FAILURE() << "no rule " << id << "; rules:" << ids;
        static const Rule none;
        return none;
    }
    return *found;
}

Grammar data_grammar(const std::string& name, GrammarOptions options = {}) {
    return build_grammar(read_source_file(test::grammar_data(name)), options);
}

TEST(BuildGrammar, ReproducesEveryTestKernelByteForByte) {
    for (const char* name : {"stereo_like.cu", "tricky_syntax.cu", "templates_and_host.cu", "preprocessor_regions.cu"}) {
        SCOPED_TRACE(name);
        const SourceFile source = read_source_file(test::grammar_data(name));
        const Grammar grammar = build_grammar(source, {});
        test::expect_reproduces(grammar, source.text);
        EXPECT_FALSE(grammar.rules.empty());
        EXPECT_EQ(grammar.source_hash.size(), 64u);
        EXPECT_EQ(grammar.file_name, name);
        // Ids are unique and start with their kind's prefix and the file name.
        for (std::size_t i = 0; i < grammar.rules.size(); ++i) {
            const Rule& r = grammar.rules[i];
            EXPECT_EQ(r.id.rfind(std::string(rule_kind_prefix(r.kind)) + name + "_", 0), 0u) << r.id;
            EXPECT_EQ(grammar.rule_index(r.id), static_cast<int>(i)) << r.id;
        }
    }
}

TEST(BuildGrammar, CrLfFilesReproduceToo) {
    const std::string text = "__global__ void k(int* a)\r\n{\r\n    a[0] = 1;\r\n#pragma unroll\r\n    for (int i = 0; i < 4; i++)\r\n        a[i] = i;\r\n}\r\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(rule(grammar, "pragma_k.cu_5").text, "#pragma unroll");
    EXPECT_EQ(rule(grammar, "_k.cu_3").text, "a[0] = 1;");
}

TEST(BuildGrammar, TypesStatementsConditionsAndLoopParts) {
    const std::string text =
        "__global__ void k(float* a, int n) {\n"
        "    int i = threadIdx.x;\n"
        "    if (i < n) a[i] = 0;\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        a[j] += 1.0f; a[j] *= 2.0f;\n"
        "    }\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(rule(grammar, "IF_k.cu_3").text, "i < n");
    EXPECT_EQ(rule(grammar, "IF_k.cu_3").kind, RuleKind::IfCondition);
    EXPECT_EQ(grammar.find_rule("<_k.cu_3>")->text, "a[i] = 0;");
    EXPECT_TRUE(rule(grammar, "_k.cu_3").braceless_body);
    EXPECT_EQ(rule(grammar, "for1_k.cu_4").text, "int j = 0");
    EXPECT_EQ(rule(grammar, "for1_k.cu_4").kind, RuleKind::ForInit);
    EXPECT_EQ(rule(grammar, "for1_k.cu_4").declares, Names{"j"});
    EXPECT_EQ(rule(grammar, "for2_k.cu_4").text, "j < n");
    EXPECT_EQ(rule(grammar, "for2_k.cu_4").kind, RuleKind::ForCond);
    EXPECT_EQ(rule(grammar, "for3_k.cu_4").text, "j++");
    EXPECT_EQ(rule(grammar, "for3_k.cu_4").kind, RuleKind::ForStep);
    EXPECT_EQ(rule(grammar, "pragma_k.cu_4").text, "");
    EXPECT_EQ(rule(grammar, "pragma_k.cu_4").kind, RuleKind::Pragma);
    EXPECT_EQ(rule(grammar, "_k.cu_5").text, "a[j] += 1.0f;");
    EXPECT_EQ(rule(grammar, "_k.cu_5.2").text, "a[j] *= 2.0f;");
    EXPECT_EQ(rule(grammar, "_k.cu_5").loop_depth, 1);
    EXPECT_FALSE(rule(grammar, "_k.cu_5").braceless_body);
    EXPECT_EQ(rule_with_text(grammar, "int i = threadIdx.x;"), nullptr) << "declarations are fixed";
    EXPECT_EQ(grammar.rules.size(), 8u);
    ASSERT_EQ(grammar.functions.size(), 1u);
    EXPECT_EQ(grammar.functions[0].name, "k");
    EXPECT_TRUE(grammar.functions[0].is_global);
    EXPECT_EQ(grammar.functions[0].first_line, 1);
    EXPECT_EQ(grammar.functions[0].body_first_line, 1);
    EXPECT_EQ(grammar.functions[0].last_line, 7);
}

TEST(BuildGrammar, DeclarationsOfEveryShapeStayFixed) {
    const std::string text =
        "__global__ void k(float* a) {\n"
        "    float4 v = make_float4(0, 0, 0, 0);\n"
        "    const unsigned int u = 3u;\n"
        "    size_t s = 0, t;\n"
        "    float* p = a;\n"
        "    float& r = a[0];\n"
        "    Foo<int, 3> f{1};\n"
        "    std::vector<Bar<int>> w;\n"
        "    cg::thread_block block = cg::this_thread_block();\n"
        "    __shared__ float tile[32][33];\n"
        "    static __constant__ int c;\n"
        "    auto lambda = [&](int x) { return x + 1; };\n"
        "    auto [q1, q2] = pair;\n"
        "    typename T::value_type z = 0;\n"
        "    long long ll = 1, *lp = &ll;\n"
        "    struct Local { int m; } local;\n"
        "    a[0] = v.x + u + s + *p + r + tile[0][0];\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    ASSERT_EQ(grammar.rules.size(), 1u) << "only the last line is a statement; first: " << grammar.rules[0].text;
    EXPECT_EQ(grammar.rules[0].uses, (Names{"p", "r", "s", "tile", "u", "v"}));
    EXPECT_EQ(grammar.rules[0].in_scope,
              (Names{"block", "c", "f", "lambda", "ll", "local", "lp", "p", "q1", "q2", "r", "s", "t", "tile", "u", "v", "w", "z"}));
}

TEST(BuildGrammar, ExpressionStatementsOfEveryShapeAreRules) {
    const std::string text =
        "__global__ void k(float* a, int n) {\n"
        "    int i = 0;\n"
        "    a[i] = 1;\n"
        "    *a = 2;\n"
        "    ++i;\n"
        "    i++;\n"
        "    (void)n;\n"
        "    foo(i);\n"
        "    ns::bar(i);\n"
        "    obj.method(i);\n"
        "    ptr->field = i;\n"
        "    i = i < n ? i : n;\n"
        "    std::swap(i, n);\n"
        "    delete p;\n"
        "    asm volatile(\"bar.sync 0;\" ::: \"memory\");\n"
        "    return;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(grammar.rules.size(), 14u);
    for (const Rule& r : grammar.rules) EXPECT_EQ(r.kind, RuleKind::Statement) << r.text;
    EXPECT_NE(rule_with_text(grammar, "asm volatile(\"bar.sync 0;\" ::: \"memory\");"), nullptr);
    EXPECT_NE(rule_with_text(grammar, "return;"), nullptr);
}

TEST(BuildGrammar, MultiLineStatementsAndSeveralPerLine) {
    const Grammar grammar = data_grammar("tricky_syntax.cu");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_19").text, "a = b + 1;");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_19.2").text, "b = a * 2;");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_19.3").text, "c = a - b;");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_20").text, "out[0] = in[0] +\n             in[1] +\n             in[2];");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_20").line, 20);
    EXPECT_EQ(grammar.find_rule("_tricky_syntax.cu_21"), nullptr) << "a statement is one rule, named by its first line";
}

TEST(BuildGrammar, CommentsAndStringsWithBracesDoNotConfuseIt) {
    const Grammar grammar = data_grammar("tricky_syntax.cu");
    // Lines 10-14 are a declaration with a comment, a comment, and declarations holding braces.
    for (const Rule& r : grammar.rules) EXPECT_TRUE(r.line < 10 || r.line > 18) << r.id << " " << r.text;
    const Rule& last = rule(grammar, "_tricky_syntax.cu_57");
    EXPECT_EQ(last.uses, (Names{"acc", "acc_s", "big", "msg", "quote", "semi", "tile"}));
}

TEST(BuildGrammar, NestedAndBracelessLoops) {
    const Grammar grammar = data_grammar("tricky_syntax.cu");
    EXPECT_EQ(rule(grammar, "for1_tricky_syntax.cu_24").loop_depth, 1);
    EXPECT_EQ(rule(grammar, "pragma_tricky_syntax.cu_24").loop_depth, 1);
    const Rule& body = rule(grammar, "_tricky_syntax.cu_25");
    EXPECT_EQ(body.text, "acc += in[i * m + j];");
    EXPECT_EQ(body.loop_depth, 2);
    EXPECT_TRUE(body.braceless_body);
    EXPECT_EQ(body.in_scope, (Names{"a", "acc", "acc_s", "b", "big", "c", "i", "j", "msg", "quote", "semi", "tile"}));
    // for (;;) has no header rules but keeps its pragma slot; its body's break needs the loop.
    EXPECT_NE(grammar.find_rule("pragma_tricky_syntax.cu_26"), nullptr);
    EXPECT_EQ(grammar.find_rule("for1_tricky_syntax.cu_26"), nullptr);
    EXPECT_TRUE(rule(grammar, "_tricky_syntax.cu_26").has_break_or_continue);
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_26").loop_depth, 1);
    // while and do bodies are loops; their conditions are fixed.
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_28").loop_depth, 1);
    EXPECT_TRUE(rule(grammar, "_tricky_syntax.cu_28.2").has_break_or_continue);
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_30").loop_depth, 1);
    EXPECT_EQ(rule_with_text(grammar, "k > 0"), nullptr);
    EXPECT_EQ(rule_with_text(grammar, "k < n"), nullptr);
    // A range for: fixed header, the variable is local to its body.
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_55").uses, (Names{"acc", "v"}));
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_55").loop_depth, 1);
}

TEST(BuildGrammar, SwitchCasesAndLabelsAreFixedTheirStatementsAreRules) {
    const Grammar grammar = data_grammar("tricky_syntax.cu");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_34").text, "acc = 0.0f;");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_35").text, "break;");
    EXPECT_TRUE(rule(grammar, "_tricky_syntax.cu_35").has_break_or_continue);
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_35").loop_depth, 0);
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_37").text, "acc = 1.0f;");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_41").text, "acc *= 2.0f;");
    EXPECT_EQ(rule_with_text(grammar, "n"), nullptr) << "switch conditions are fixed";
}

TEST(BuildGrammar, ElseIfChainsAndDanglingElse) {
    const Grammar grammar = data_grammar("tricky_syntax.cu");
    EXPECT_EQ(rule(grammar, "IF_tricky_syntax.cu_43").text, "n > 1");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_45").text, "LOOP_BODY(n);");
    EXPECT_FALSE(rule(grammar, "_tricky_syntax.cu_45").braceless_body);
    EXPECT_EQ(rule(grammar, "IF_tricky_syntax.cu_47").text, "n < -1");
    EXPECT_TRUE(rule(grammar, "_tricky_syntax.cu_47").braceless_body);
    EXPECT_TRUE(rule(grammar, "_tricky_syntax.cu_49").braceless_body);
    EXPECT_EQ(rule(grammar, "IF_tricky_syntax.cu_50").text, "a");
    EXPECT_EQ(rule(grammar, "IF_tricky_syntax.cu_50.2").text, "b");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_50").text, "c = 3;");
    EXPECT_EQ(rule(grammar, "_tricky_syntax.cu_50.2").text, "c = 4;");
    EXPECT_TRUE(rule(grammar, "_tricky_syntax.cu_50.2").braceless_body);
}

TEST(BuildGrammar, IfConditionsAreTrimmedAndMaySpanLines) {
    const std::string text =
        "__global__ void k(int* a, int n) {\n"
        "    if (  a[0] > 0 &&\n"
        "          a[1] > 0  ) { a[2] = 1; }\n"
        "    if (int m = n) a[3] = m;\n"
        "    if constexpr (sizeof(int) == 4) a[4] = 0;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(rule(grammar, "IF_k.cu_2").text, "a[0] > 0 &&\n          a[1] > 0");
    EXPECT_EQ(grammar.find_rule("IF_k.cu_4"), nullptr) << "a declaring condition stays fixed";
    EXPECT_EQ(rule(grammar, "_k.cu_4").uses, Names{"m"});
    EXPECT_EQ(rule(grammar, "IF_k.cu_5").text, "sizeof(int) == 4");
}

TEST(BuildGrammar, BarriersAreStatementsMarkedAsSuch) {
    const std::string text =
        "__global__ void k(int* a) {\n"
        "    __syncthreads();\n"
        "    __syncwarp();\n"
        "    __syncthreads_or(a[0]);\n"
        "    cg::this_thread_block().sync();\n"
        "    block.sync();\n"
        "    cg::sync(block);\n"
        "    __threadfence();\n"
        "    a[0] = 1;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    for (int line = 2; line <= 7; ++line) EXPECT_TRUE(rule(grammar, "_k.cu_" + std::to_string(line)).is_barrier) << line;
    EXPECT_FALSE(rule(grammar, "_k.cu_8").is_barrier);
    EXPECT_FALSE(rule(grammar, "_k.cu_9").is_barrier);
}

TEST(BuildGrammar, ExistingPragmasBecomeTheirSlotsOriginalText) {
    const std::string text =
        "__global__ void k(int* a) {\n"
        "#pragma unroll 4\n"
        "    for (int i = 0; i < 8; i++) a[i] = 0;\n"
        "    #pragma unroll   // full unroll\n"
        "    for (int i = 0; i < 8; i++) a[i] = 1;\n"
        "#pragma unroll 2\n"
        "\n"
        "    for (int i = 0; i < 8; i++) a[i] = 2;\n"
        "    if (a[0]) for (int i = 0; i < 8; i++) a[i] = 3;\n"
        "\t\tfor (int i = 0; i < 8; i++) a[i] = 4;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    const Rule& four = rule(grammar, "pragma_k.cu_3");
    EXPECT_EQ(four.text, "#pragma unroll 4");
    EXPECT_EQ(four.line, 2) << "the slot is the pragma line; its id names the loop's line";
    EXPECT_EQ(rule(grammar, "pragma_k.cu_5").text, "#pragma unroll");
    EXPECT_EQ(rule(grammar, "pragma_k.cu_8").text, "") << "a blank line between: not this loop's pragma";
    EXPECT_EQ(grammar.find_rule("pragma_k.cu_9"), nullptr) << "the for is not the first token of its line";
    EXPECT_NE(grammar.find_rule("for1_k.cu_9"), nullptr);
    // An empty pragma slot sits at the 'for' and carries the line's indentation for the variant stage.
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind != Piece::Kind::RuleSlot) continue;
        const Rule& r = grammar.rules[static_cast<std::size_t>(piece.index)];
        if (r.id == "pragma_k.cu_10") EXPECT_EQ(piece.extra, "\t\t");
        if (r.id == "pragma_k.cu_8") EXPECT_EQ(piece.extra, "    ");
        if (r.id == "pragma_k.cu_3") EXPECT_EQ(piece.extra, "");
    }
}

TEST(BuildGrammar, ScopeFactsFollowBlocksAndLoops) {
    const std::string text =
        "__global__ void k(float* out, int n) {\n"     // 1
        "    int a = 0;\n"                              // 2
        "    out[0] = a;\n"                             // 3
        "    {\n"                                       // 4
        "        int b = a;\n"                          // 5
        "        out[1] = b;\n"                         // 6
        "    }\n"                                       // 7
        "    for (int i = 0, j = 1; i < n; i += j) {\n" // 8
        "        float c = i;\n"                        // 9
        "        out[i] = c;\n"                         // 10
        "    }\n"                                       // 11
        "    out[2] = a;\n"                             // 12
        "    int late = 1;\n"                           // 13
        "    out[3] = late + n;\n"                      // 14
        "}\n";
    const Grammar grammar = grammar_of(text);
    EXPECT_EQ(rule(grammar, "_k.cu_3").in_scope, Names{"a"});
    EXPECT_EQ(rule(grammar, "_k.cu_3").uses, Names{"a"});
    EXPECT_EQ(rule(grammar, "_k.cu_6").in_scope, (Names{"a", "b"}));
    EXPECT_EQ(rule(grammar, "for1_k.cu_8").declares, (Names{"i", "j"}));
    EXPECT_EQ(rule(grammar, "for1_k.cu_8").in_scope, Names{"a"});
    EXPECT_EQ(rule(grammar, "for2_k.cu_8").in_scope, (Names{"a", "i", "j"}));
    EXPECT_EQ(rule(grammar, "for3_k.cu_8").in_scope, (Names{"a", "i", "j"}));
    EXPECT_EQ(rule(grammar, "for3_k.cu_8").uses, (Names{"i", "j"}));
    EXPECT_EQ(rule(grammar, "_k.cu_10").in_scope, (Names{"a", "c", "i", "j"}));
    EXPECT_EQ(rule(grammar, "_k.cu_10").loop_depth, 1);
    EXPECT_EQ(rule(grammar, "_k.cu_12").in_scope, Names{"a"}) << "block and loop names end with them";
    EXPECT_EQ(rule(grammar, "_k.cu_12").loop_depth, 0);
    EXPECT_EQ(rule(grammar, "_k.cu_14").uses, Names{"late"}) << "parameters are not locals";
    EXPECT_EQ(rule(grammar, "_k.cu_14").in_scope, (Names{"a", "late"}));
}

TEST(BuildGrammar, LocalsBelongToTheirFunction) {
    // v is a parameter of put and a local of get: in put's statements it is not a local use.
    const std::string text =
        "__device__ void put(float* s, const Prim& v) {\n"
        "    s[0] = v.rho;\n"
        "}\n"
        "__device__ Prim get(const float* s) {\n"
        "    Prim v;\n"
        "    v.rho = s[0];\n"
        "    return v;\n"
        "}\n"
        "__global__ void k(float* s) { put(s, get(s)); }\n";
    const Grammar grammar = grammar_of(text);
    EXPECT_EQ(rule(grammar, "_k.cu_2").uses, Names{});
    EXPECT_EQ(rule(grammar, "_k.cu_6").uses, Names{"v:Prim"}) << "v is declared as const Prim& and as Prim";
    EXPECT_EQ(rule(grammar, "_k.cu_6").in_scope, Names{"v:Prim"});
}

TEST(BuildGrammar, NamesDeclaredWithSeveralTypesCarryTheirType) {
    const std::string text =
        "__device__ void interp(float a) {\n"       // 1
        "    Real d;\n"                              // 2
        "    d = a * 2;\n"                           // 3
        "}\n"                                        // 4
        "__global__ void k(float* out) {\n"         // 5
        "    Prim d = load(out);\n"                  // 6
        "    unsigned int n = 2, *pn = &n, arr[4];\n" // 7
        "    interp(d.rho);\n"                       // 8
        "    for (int i = 0; i < 2; i++) out[i] = d.rho + n;\n"  // 9
        "    for (unsigned i = 0; i < 2; i++) out[i] = arr[i] + *pn;\n"  // 10
        "    auto x = d.rho;\n"                      // 11
        "    out[0] = x;\n"                          // 12
        "}\n";
    const Grammar grammar = grammar_of(text);
    EXPECT_EQ(rule(grammar, "_k.cu_3").uses, Names{"d:Real"});
    EXPECT_EQ(rule(grammar, "_k.cu_8").uses, Names{"d:Prim"});
    EXPECT_EQ(rule(grammar, "for1_k.cu_9").declares, Names{"i:int"});
    EXPECT_EQ(rule(grammar, "for1_k.cu_10").declares, Names{"i:unsigned"});
    EXPECT_EQ(rule(grammar, "_k.cu_9").uses, (Names{"d:Prim", "i:int", "n"}));
    EXPECT_EQ(rule(grammar, "_k.cu_10").uses, (Names{"arr", "i:unsigned", "pn"}));
    EXPECT_EQ(rule(grammar, "_k.cu_12").in_scope, (Names{"arr", "d:Prim", "n", "pn", "x"}));
}

TEST(BuildGrammar, MembersAndFunctionsAreNotUses) {
    const std::string text =
        "struct P { int x; int y; };\n"
        "__device__ int x;\n"
        "__global__ void k(P* p, int n) {\n"
        "    int y = 0;\n"
        "    int x2 = 0;\n"
        "    p->y = p[0].x + y + ::x + x2;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    EXPECT_EQ(rule(grammar, "_k.cu_6").uses, (Names{"x2", "y"}));
}

TEST(BuildGrammar, UsesSeeThroughMacrosToTheLocalsTheyName) {
    const std::string text =
        "#define PIXEL(i) pixel_store[(i) * width + X]\n"
        "#define BEST BEST_INNER\n"
        "#define BEST_INNER best.value\n"
        "#define LOOPY LOOPY + 1\n"
        "#define SQ(x) ((x) * (x))\n"
        "__global__ void k(float* out, int width) {\n"
        "    int X = threadIdx.x;\n"
        "    float pixel_store[4];\n"
        "    Best best;\n"
        "    int x = 2, value = 0;\n"
        "    PIXEL(0) = BEST;\n"
        "    out[0] = LOOPY + SQ(2.0f);\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    EXPECT_EQ(rule(grammar, "_k.cu_11").uses, (Names{"X", "best", "pixel_store"})) << "not 'value' after '.', not 'i'";
    EXPECT_EQ(rule(grammar, "_k.cu_12").uses, Names{}) << "SQ's parameter x is not the local x";
}

TEST(BuildGrammar, LoopMacrosWithBlocksParseTheirBlock) {
    const std::string text =
        "#define FOR_EACH(i, n) for (int i = 0; i < (n); ++i)\n"
        "__global__ void k(int* a, int n) {\n"
        "    FOR_EACH(i, n) {\n"
        "        a[i] = 0;\n"
        "    }\n"
        "    a[0] = 1;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    EXPECT_EQ(rule(grammar, "_k.cu_4").text, "a[i] = 0;");
    EXPECT_EQ(rule(grammar, "_k.cu_6").text, "a[0] = 1;");
    EXPECT_EQ(rule_with_text(grammar, "FOR_EACH(i, n)"), nullptr);
}

TEST(BuildGrammar, PreprocessorRegionsAreRecordedPerRule) {
    const Grammar grammar = data_grammar("preprocessor_regions.cu");
    auto expressions = [&](const std::string& id) {
        Names out;
        for (int c : rule(grammar, id).conditions) out.push_back(grammar.conditions.at(static_cast<std::size_t>(c)).expression);
        return out;
    };
    EXPECT_EQ(expressions("_preprocessor_regions.cu_12"), Names{"MODE == 1"});
    EXPECT_EQ(expressions("_preprocessor_regions.cu_14"), Names{"!(MODE == 1) && (MODE == 2)"});
    EXPECT_EQ(expressions("_preprocessor_regions.cu_16"), Names{"!(MODE == 1) && !(MODE == 2)"});
    EXPECT_EQ(expressions("_preprocessor_regions.cu_19"), Names{"defined(FAST)"});
    EXPECT_EQ(expressions("_preprocessor_regions.cu_21"), (Names{"defined(FAST)", "!defined(SLOW)"}));
    EXPECT_EQ(expressions("_preprocessor_regions.cu_26"), Names{"USE_SHARED && !defined(NO_SHARED)"});
    EXPECT_EQ(expressions("IF_preprocessor_regions.cu_29"), Names{"defined(EXTRA_STEP) || FAST"});
    // The condition records where its branch starts.
    const Rule& twelve = rule(grammar, "_preprocessor_regions.cu_12");
    EXPECT_EQ(grammar.conditions.at(static_cast<std::size_t>(twelve.conditions.at(0))).line, 11);
}

TEST(BuildGrammar, StatementsSpanningADirectiveStayFixed) {
    const std::string text =
        "__global__ void k(int* a) {\n"
        "    a[0] = 1\n"
        "#if EXTRA\n"
        "         + 2\n"
        "#endif\n"
        "    ;\n"
        "    a[1] = 2;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    ASSERT_EQ(grammar.rules.size(), 1u);
    EXPECT_EQ(grammar.rules[0].text, "a[1] = 2;");
}

TEST(BuildGrammar, FileMacrosAreUnconditionalObjectLikeDefines) {
    const std::string text =
        "#ifndef BLOCK_W\n#define BLOCK_W 64 // width\n#endif\n"
        "#define R 5\n#define F(x) (x)\n#define EMPTY\n#define GONE 1\n#undef GONE\n"
        "#if R > 3\n#define INSIDE 1\n#endif\n"
        "#define MSG \"a /* b */ c\"\n"
        "__global__ void k(int* a) { a[0] = BLOCK_W; }\n";
    const Grammar grammar = grammar_of(text);
    const std::map<std::string, std::string> expected = {
        {"BLOCK_W", "64"}, {"R", "5"}, {"EMPTY", ""}, {"MSG", "\"a /* b */ c\""}};
    EXPECT_EQ(grammar.file_macros, expected);
}

TEST(BuildGrammar, HelpersAreFollowedTransitivelyAndCanBeLeftOut) {
    const std::string text =
        "__device__ int leaf(int x) { return x + 1; }\n"
        "__device__ int middle(int x) { return leaf(x) * 2; }\n"
        "__device__ int unused(int x) { return x; }\n"
        "__global__ void k(int* a) { a[0] = middle(a[0]); }\n"
        "__global__ void other(int* a) { a[0] = 0; }\n";
    GrammarOptions options;
    options.functions = {"k"};
    Grammar grammar = grammar_of(text, options);
    ASSERT_EQ(grammar.functions.size(), 3u);
    EXPECT_EQ(grammar.functions[0].name, "k");
    EXPECT_EQ(grammar.functions[1].name, "leaf");
    EXPECT_EQ(grammar.functions[2].name, "middle");
    EXPECT_FALSE(grammar.functions[1].is_global);
    EXPECT_EQ(rule(grammar, "_k.cu_1").function, "leaf");
    EXPECT_EQ(grammar.find_rule("_k.cu_3"), nullptr);
    EXPECT_EQ(grammar.find_rule("_k.cu_5"), nullptr) << "only the kernels asked for";
    options.include_helpers = false;
    grammar = grammar_of(text, options);
    ASSERT_EQ(grammar.functions.size(), 1u);
    EXPECT_EQ(grammar.find_rule("_k.cu_1"), nullptr);
    // No --function: every kernel.
    grammar = grammar_of(text);
    EXPECT_EQ(grammar.functions.size(), 4u);
    EXPECT_NE(grammar.find_rule("_k.cu_5"), nullptr);
}

TEST(BuildGrammar, TemplatesNamespacesExternCAndHostCode) {
    const Grammar grammar = data_grammar("templates_and_host.cu");
    Names kernels;
    for (const Function& f : grammar.functions) kernels.push_back(f.name);
    EXPECT_EQ(kernels, (Names{"scale_kernel", "plain_kernel", "staticKernel", "clamp_value", "twice"}));
    const Function& scale = grammar.functions[0];
    EXPECT_EQ(scale.first_line, 25) << "the template header starts the declaration";
    EXPECT_EQ(scale.body_first_line, 31);
    EXPECT_EQ(scale.last_line, 37);
    ASSERT_EQ(scale.parameters.size(), 4u);
    EXPECT_EQ(scale.parameters[0].name, "out");
    EXPECT_EQ(scale.parameters[0].type, "T* __restrict__");
    EXPECT_TRUE(scale.parameters[0].is_pointer);
    EXPECT_FALSE(scale.parameters[0].is_const);
    EXPECT_TRUE(scale.parameters[1].is_const);
    EXPECT_EQ(scale.parameters[2].type, "const int");
    EXPECT_FALSE(scale.parameters[2].is_pointer);
    EXPECT_TRUE(scale.parameters[2].is_const);
    EXPECT_EQ(scale.parameters[2].line, 29);
    EXPECT_EQ(grammar.functions[1].first_line, 39);
    EXPECT_EQ(rule(grammar, "_templates_and_host.cu_35").text,
              "out[i] = util::clamp_value<T>(p.first * factor, T(0), T(1));");
    EXPECT_EQ(rule(grammar, "_templates_and_host.cu_46").text, "a[threadIdx.x] = 1;");
    for (const Rule& r : grammar.rules) EXPECT_LT(r.line, 48) << "nothing from host code: " << r.id;
}

TEST(BuildGrammar, KernelSignatureOverSeveralLinesWithAttributes) {
    const std::string text =
        "__global__ void\n"
        "__launch_bounds__(256)\n"
        "k(\n"
        "  float* a,   // the data\n"
        "  int n = 3\n"
        ")\n"
        "{\n"
        "  a[0] = n;\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    ASSERT_EQ(grammar.functions.size(), 1u);
    EXPECT_EQ(grammar.functions[0].name, "k");
    EXPECT_EQ(grammar.functions[0].first_line, 1);
    EXPECT_EQ(grammar.functions[0].body_first_line, 7);
    ASSERT_EQ(grammar.functions[0].parameters.size(), 2u);
    EXPECT_EQ(grammar.functions[0].parameters[1].name, "n");
    EXPECT_EQ(grammar.functions[0].parameters[1].type, "int");
}

}  // namespace
}  // namespace gi
