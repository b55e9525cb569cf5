#include "variant/loop_guard.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "variant/barrier_guard.hpp"
#include "variant/shared_guard.hpp"

namespace gi {
namespace {

// The guarded text without its preamble.
std::string body(const LoopGuardResult& r) {
    const std::string& preamble = loop_guard_preamble();
    EXPECT_EQ(r.source.compare(0, preamble.size(), preamble), 0) << "the preamble must come first";
    return r.source.substr(preamble.size());
}

std::string guarded(const std::string& source, int loops) {
    const LoopGuardResult r = guard_loops(source);
    EXPECT_EQ(r.guarded, loops) << source;
    EXPECT_TRUE(r.unguarded.empty()) << r.unguarded.front();
    return body(r);
}

TEST(LoopGuard, ForConditionGetsTheGuard) {
    EXPECT_EQ(guarded("for (int i = 0; i < n; ++i) s += i;", 1),
              "for (int i = 0; (i < n) && gi_loop_ok(); ++i) s += i;");
}

TEST(LoopGuard, EmptyForConditionBecomesTheGuard) {
    EXPECT_EQ(guarded("for (;;) x++;", 1), "for (; gi_loop_ok();) x++;");
    EXPECT_EQ(guarded("for (int i = 0; ; i++) {}", 1), "for (int i = 0; gi_loop_ok() ; i++) {}");
}

TEST(LoopGuard, WhileAndDoWhile) {
    EXPECT_EQ(guarded("while (x < 10) x++;", 1), "while ((x < 10) && gi_loop_ok()) x++;");
    EXPECT_EQ(guarded("do { x++; } while (x < 10);", 1), "do { x++; } while ((x < 10) && gi_loop_ok());");
    EXPECT_EQ(guarded("while(1){}", 1), "while((1) && gi_loop_ok()){}");
}

TEST(LoopGuard, CommaConditionIsParenthesised) {
    EXPECT_EQ(guarded("for (i = 0, j = 0; i < n, j < m; i++, j++) {}", 1),
              "for (i = 0, j = 0; (i < n, j < m) && gi_loop_ok(); i++, j++) {}");
}

TEST(LoopGuard, CommentsAndLiteralsAreNotLoops) {
    const std::string source =
        "// for (;;) in a comment\n"
        "/* while (1) */\n"
        "printf(\"for (;;) while (1)\");\n"
        "char c = '('; char d = ')';\n"
        "int a = 1'000;\n";
    EXPECT_EQ(guarded(source, 0), source);
}

TEST(LoopGuard, IdentifiersContainingTheKeywordsAreNotLoops) {
    const std::string source = "format(x); while_x(1); _for(2); for_each(3); awhile (4); fore(5);\n";
    EXPECT_EQ(guarded(source, 0), source);
}

TEST(LoopGuard, RangeForIsLeftAlone) {
    const std::string source = "for (auto& x : v) s += x;\nfor (int k = 0; auto y : w) s += y;\nfor (auto [a, b] : m) {}\n";
    EXPECT_EQ(guarded(source, 0), source);
}

TEST(LoopGuard, ScopeResolutionIsNotARangeColon) {
    EXPECT_EQ(guarded("for (int i = ns::lo; i < ns::hi; i++) {}", 1),
              "for (int i = ns::lo; (i < ns::hi) && gi_loop_ok(); i++) {}");
}

TEST(LoopGuard, NestedParenthesesAndCalls) {
    EXPECT_EQ(guarded("for (int i = f(a, (b)); i < g(c, d(e)); i += h((1))) {}", 1),
              "for (int i = f(a, (b)); (i < g(c, d(e))) && gi_loop_ok(); i += h((1))) {}");
    EXPECT_EQ(guarded("while ((a && b) || (c)) {}", 1), "while (((a && b) || (c)) && gi_loop_ok()) {}");
}

TEST(LoopGuard, LambdasInHeadersAndBodies) {
    // ';' inside a lambda's body is not the header's; the loop in the lambda is guarded too.
    EXPECT_EQ(guarded("for (int i = 0; [&] { int t = i; return t < n; }(); i++) {}", 1),
              "for (int i = 0; ([&] { int t = i; return t < n; }()) && gi_loop_ok(); i++) {}");
    EXPECT_EQ(guarded("auto f = [&](int k) { while (k > 0) k--; return k; };", 1),
              "auto f = [&](int k) { while ((k > 0) && gi_loop_ok()) k--; return k; };");
}

TEST(LoopGuard, NestedLoopsAreEachGuarded) {
    EXPECT_EQ(guarded("for (int i = 0; i < n; i++)\n  for (int j = 0; j < m; j++)\n    while (k) k--;\n", 3),
              "for (int i = 0; (i < n) && gi_loop_ok(); i++)\n  for (int j = 0; (j < m) && gi_loop_ok(); j++)\n"
              "    while ((k) && gi_loop_ok()) k--;\n");
}

TEST(LoopGuard, BraceInitialisersInTheHeader) {
    EXPECT_EQ(guarded("for (int a[2] = {0, 1}; a[0] < n; a[0]++) {}", 1),
              "for (int a[2] = {0, 1}; (a[0] < n) && gi_loop_ok(); a[0]++) {}");
}

TEST(LoopGuard, LoopSpreadOverSeveralLines) {
    EXPECT_EQ(guarded("for (int i = 0;\n     i < n   // bound\n       && ok;\n     ++i) {}", 1),
              "for (int i = 0;\n     (i < n   // bound\n       && ok) && gi_loop_ok();\n     ++i) {}");
    EXPECT_EQ(guarded("while (\n  x\n)\n{}", 1), "while (\n  (x) && gi_loop_ok()\n)\n{}");
}

TEST(LoopGuard, LoopInAMacroGetsNoNewLine) {
    const std::string source =
        "#define SUM(n) \\\n  for (int i = 0; \\\n       i < (n); i++) \\\n    s += i\n"
        "#define SPIN while (x) { x--; }\n"
        "SUM(4);\n";
    const std::string out = guarded(source, 2);
    EXPECT_EQ(out,
              "#define SUM(n) \\\n  for (int i = 0; \\\n       (i < (n)) && gi_loop_ok(); i++) \\\n    s += i\n"
              "#define SPIN while ((x) && gi_loop_ok()) { x--; }\n"
              "SUM(4);\n");
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(source.begin(), source.end(), '\n'));
}

TEST(LoopGuard, OtherDirectivesAreNotCode) {
    const std::string source = "#pragma omp parallel for\n#include <for.h>\n#if defined(while)\n#endif\n";
    EXPECT_EQ(guarded(source, 0), source);
}

TEST(LoopGuard, KeywordWithoutParenthesisIsNotALoop) {
    const std::string source = "#define FOREVER for\n#define W while\n";
    EXPECT_EQ(guarded(source, 0), source);
}

TEST(LoopGuard, UnbalancedHeaderIsLeftUnguardedAndNamed) {
    const std::string source = "int a;\nfor (int i = 0; i < n; i++ {\n  s += i;\n}\nwhile (x) x--;\n";
    const LoopGuardResult r = guard_loops(source, "k.cu");
    EXPECT_EQ(r.guarded, 1);
    ASSERT_EQ(r.unguarded.size(), 1u);
    EXPECT_NE(r.unguarded[0].find("k.cu:2"), std::string::npos) << r.unguarded[0];
    EXPECT_NE(r.unguarded[0].find("no matching ')'"), std::string::npos) << r.unguarded[0];
    // The broken loop is as it was; the good one is guarded.
    EXPECT_EQ(body(r), "int a;\nfor (int i = 0; i < n; i++ {\n  s += i;\n}\nwhile ((x) && gi_loop_ok()) x--;\n");
}

TEST(LoopGuard, HeaderNeverClosedIsLeftUnguardedAndNamed) {
    const LoopGuardResult r = guard_loops("while (a && (b) {\n", "k.cu");
    EXPECT_EQ(r.guarded, 0);
    ASSERT_EQ(r.unguarded.size(), 1u);
    EXPECT_NE(r.unguarded[0].find("no matching ')'"), std::string::npos) << r.unguarded[0];
    EXPECT_EQ(body(r), "while (a && (b) {\n");
}

TEST(LoopGuard, MismatchedBracketIsNamed) {
    const LoopGuardResult r = guard_loops("for (int i = 0; i < a[n); i++) {}\n", "k.cu");
    EXPECT_EQ(r.guarded, 0);
    ASSERT_EQ(r.unguarded.size(), 1u);
    EXPECT_NE(r.unguarded[0].find("k.cu:1"), std::string::npos) << r.unguarded[0];
    EXPECT_NE(r.unguarded[0].find("unbalanced ')'"), std::string::npos) << r.unguarded[0];
}

TEST(LoopGuard, UnclosedHeaderInAMacroStopsAtTheMacroEnd) {
    const LoopGuardResult r = guard_loops("#define L for (int i = 0; i < n; i++\nint x = (1);\n", "k.cu");
    EXPECT_EQ(r.guarded, 0);
    ASSERT_EQ(r.unguarded.size(), 1u);
    EXPECT_NE(r.unguarded[0].find("no matching ')' within the #define"), std::string::npos) << r.unguarded[0];
}

TEST(LoopGuard, WrongNumberOfSemicolonsIsNamed) {
    const LoopGuardResult r = guard_loops("for (int i = 0; i < n) {}\n", "k.cu");
    EXPECT_EQ(r.guarded, 0);
    ASSERT_EQ(r.unguarded.size(), 1u);
    EXPECT_NE(r.unguarded[0].find("1 top-level ';'"), std::string::npos) << r.unguarded[0];
}

TEST(LoopGuard, UnterminatedCommentGuardsNothingAndSaysWhy) {
    const LoopGuardResult r = guard_loops("for (;;) {} /* open", "k.cu");
    EXPECT_EQ(r.guarded, 0);
    ASSERT_EQ(r.unguarded.size(), 1u);
    EXPECT_NE(r.unguarded[0].find("unterminated block comment"), std::string::npos) << r.unguarded[0];
}

TEST(LoopGuard, PreambleDeclaresTheGuardAndKeepsLineNumbers) {
    const std::string& p = loop_guard_preamble();
    EXPECT_NE(p.find("__constant__ unsigned long long gi_loop_deadline_ns;"), std::string::npos);
    EXPECT_NE(p.find("__device__ unsigned int gi_loop_overrun;"), std::string::npos);
    EXPECT_NE(p.find("extern \"C\" __global__ void gi_loop_clock(unsigned long long* now)"), std::string::npos);
    EXPECT_NE(p.find("%%globaltimer"), std::string::npos);
    EXPECT_NE(p.find("__host__ __device__"), std::string::npos);
    ASSERT_GE(p.size(), 9u);
    EXPECT_EQ(p.substr(p.size() - 9), "\n#line 1\n");
}

TEST(LoopGuard, TheOverrunFlagKeepsTheLargestCause) {
    // A barrier that gives up makes the loops around it run out of time as well; with plain stores
    // the last writer (a loop) hid the cause. Only the clock kernel's re-arming may store, and the
    // shared guard, whose cause is the largest (a plain store of it is what atomicMax would do).
    const std::string& p = loop_guard_preamble();
    std::size_t stores = 0;
    for (std::size_t at = p.find("gi_loop_overrun ="); at != std::string::npos; at = p.find("gi_loop_overrun =", at + 1)) ++stores;
    EXPECT_EQ(stores, 2u);
    EXPECT_NE(p.find("gi_loop_overrun = 0u;"), std::string::npos);
    EXPECT_NE(p.find("gi_loop_overrun = " + std::to_string(kSharedOutOfBounds) + "u;"), std::string::npos);
    EXPECT_LT(kBarrierSplitWarp, kSharedOutOfBounds);
    EXPECT_NE(p.find("atomicMax(&gi_loop_overrun, why)"), std::string::npos);
    EXPECT_NE(p.find("gi_guard_stopped(1u)"), std::string::npos);
    // A barrier reached only after the deadline reports a loop overrun, not a deadlock (a block
    // that started late on a grid larger than the GPU holds at once).
    EXPECT_NE(p.find("gi_deadline_passed(deadline) ? 1u : " + std::to_string(kBarrierOverrun) + "u"), std::string::npos);
    EXPECT_NE(p.find("gi_guard_stopped(why)"), std::string::npos);
    EXPECT_NE(p.find("gi_guard_stopped(" + std::to_string(kBarrierSplitWarp) + "u)"), std::string::npos);
    EXPECT_LT(1u, kBarrierOverrun);
    EXPECT_LT(kBarrierOverrun, kBarrierSplitWarp);
}

}  // namespace
}  // namespace gi
