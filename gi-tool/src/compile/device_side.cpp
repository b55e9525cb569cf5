#include "compile/device_side.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string_view>
#include <type_traits>
#include <utility>

#include "grammar/scan.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using grammar_detail::Scan;
using grammar_detail::Token;

// Words that make a declaration part of the device side.
const std::set<std::string_view> kDeviceWords = {"__global__", "__device__", "__constant__", "__managed__", "__shared__"};

// A declaration that starts with one of these is kept whole: it declares a type or a name, no code.
const std::set<std::string_view> kTypeWords = {"typedef", "using", "struct", "class", "union", "enum", "static_assert", "namespace"};

// Declarations of a type or alias that device code may name (`using X = ...` too; not `using namespace`).
const std::set<std::string_view> kTypeDeclarationWords = {"struct", "class", "union", "enum", "typedef"};

// Words a declaration uses that it cannot declare.
const std::set<std::string_view> kBuiltinWords = {"int", "float", "double", "char", "long", "short", "unsigned", "signed",
                                                  "bool", "void", "const", "constexpr", "volatile", "auto", "static",
                                                  "inline", "size_t", "true", "false", "nullptr"};

// Words that may stand before '(' without making a declaration a function.
const std::set<std::string_view> kAttributeWords = {"__attribute__", "alignas", "__align__", "__declspec", "decltype",
                                                    "__launch_bounds__", "__maxnreg__", "__cluster_dims__", "sizeof"};

class Cutter {
public:
    Cutter(const SourceFile& file, const Scan& scan) : file_(file), scan_(scan), out_(file.text) {
        // `#define HD __host__ __device__`, `#define KERNEL(n) __global__ void n`: the macro's name
        // marks device code as the words it stands for would.
        device_words_.insert(kDeviceWords.begin(), kDeviceWords.end());
        for (const auto& directive : scan.directives) {
            if (directive.keyword != "define") continue;
            std::size_t end = 0;
            while (end < directive.rest.size() && grammar_detail::is_identifier_char(directive.rest[end])) ++end;
            const std::string name = directive.rest.substr(0, end);
            const std::string body = " " + directive.rest.substr(end) + " ";
            for (std::string_view word : kDeviceWords) {
                const std::size_t at = body.find(word);
                if (name.empty() || at == std::string::npos) continue;
                if (!grammar_detail::is_identifier_char(body[at - 1]) && !grammar_detail::is_identifier_char(body[at + word.size()]))
                    macro_words_.insert(name);
            }
        }
    }

    bool run() {
        if (!region(0, static_cast<int>(scan_.tokens.size()))) return false;
        set_aside_unused_types();
        return true;
    }
    DeviceSide result() { return {std::move(out_), blanked_}; }

private:
    const Token& token(int i) const { return scan_.tokens[static_cast<std::size_t>(i)]; }
    int match(int i) const { return scan_.match[static_cast<std::size_t>(i)]; }

    bool is_device_word(const Token& t) const {
        return t.identifier() && (device_words_.count(t.text) || macro_words_.count(std::string(t.text)));
    }

    // Index of the first token after a leading `template <...>` (and `extern template`).
    int after_template_header(int first, int last) const {
        int i = first;
        while (i < last && (token(i).is("extern") || token(i).is("template"))) {
            const bool is_template = token(i).is("template");
            ++i;
            if (!is_template || i >= last || !token(i).is("<")) continue;
            int depth = 0;
            for (; i < last; ++i) {
                if (token(i).is("(") || token(i).is("[")) {
                    i = match(i);
                    continue;
                }
                if (token(i).is("<")) ++depth;
                if (token(i).is(">")) --depth;
                if (token(i).is(">>")) depth -= 2;
                if (depth <= 0) {
                    ++i;
                    break;
                }
            }
        }
        return i;
    }

    bool any_device_word(int first, int last) const {
        for (int i = first; i < last; ++i)
            if (is_device_word(token(i))) return true;
        return false;
    }

    // A '(' directly after a name (not an attribute word) at the top of [first, last), before any '='.
    bool function_like(int first, int last) const {
        bool seen_operator = false;
        for (int i = first; i < last; ++i) {
            const Token& t = token(i);
            if (t.is("operator")) seen_operator = true;
            if (t.is("=")) return false;
            if (t.is("(")) {
                if (i > first && (token(i - 1).identifier() || token(i - 1).is(">")) && !kAttributeWords.count(token(i - 1).text))
                    return true;
                if (seen_operator) return true;  // operator+(...), operator()(...)
                i = match(i);
            } else if (t.is("[")) {
                i = match(i);
            }
        }
        return false;
    }

    bool has_top_level(int first, int last, std::string_view word) const {
        for (int i = first; i < last; ++i) {
            if (token(i).is("(") || token(i).is("[")) i = match(i);
            else if (token(i).is(word)) return true;
        }
        return false;
    }

    bool is_scope(int first, int last) const {
        if (last - first == 2 && token(first).is("extern") && token(first + 1).kind == Token::Kind::Literal) return true;
        int i = first;
        if (i < last && token(i).is("inline")) ++i;
        if (i >= last || !token(i).is("namespace")) return false;
        for (++i; i < last; ++i)
            if (!token(i).identifier() && !token(i).is("::")) return false;
        return true;
    }

    // A `;`-ended declaration [first, last]: kept when it declares device things, types or constants.
    void declaration(int first, int last) {
        if (first >= last) return;
        const int body = after_template_header(first, last);
        if (any_device_word(first, last + 1)) {
            roots_.push_back({first, last, {}});
            return;
        }
        if (body < last && kTypeWords.count(token(body).text)) {
            // A type or alias: kept while device code (or a type it keeps) names it.
            if (kTypeDeclarationWords.count(token(body).text) ||
                (token(body).is("using") && body + 2 < last && token(body + 2).is("=")))
                candidates_.push_back({first, last, declared_names(body, last)});
            return;
        }
        if (!function_like(body, last) &&
            (has_top_level(body, last, "const") || has_top_level(body, last, "constexpr"))) {
            candidates_.push_back({first, last, declared_names(body, last)});
            return;
        }
        blank(first, last);
    }

    // The names a kept type, alias or constant declares: a tag after struct/class/union/enum, an
    // enum's enumerators, declarators at the top level (the name before '=', '[', '{', ',' or ';'),
    // an alias's name. More names than declared only keeps more.
    std::set<std::string> declared_names(int first, int last) const {
        std::set<std::string> names;
        for (int i = first; i < last; ++i) {
            const Token& t = token(i);
            if (t.is("(") || t.is("[")) {
                i = match(i);
                continue;
            }
            if (t.is("{")) {
                const int close = match(i);
                const bool enumeration = has_top_level(first, i, "enum");
                for (int k = i + 1; enumeration && k < close; ++k)
                    if (token(k).identifier() && (token(k - 1).is("{") || token(k - 1).is(",")))
                        names.insert(std::string(token(k).text));
                i = close;
                continue;
            }
            if (!t.identifier() || kBuiltinWords.count(t.text)) continue;
            const Token& next = token(i + 1);
            const Token& before = token(i - 1 >= first ? i - 1 : i);
            if (i > first && (before.is("struct") || before.is("class") || before.is("union") || before.is("enum") ||
                              before.is("using")))
                names.insert(std::string(t.text));
            if (next.is("=") || next.is("[") || next.is("{") || next.is(",") || next.is(";") || next.is(":") ||
                i + 1 == last)
                names.insert(std::string(t.text));
        }
        return names;
    }

    // Blanks the kept types and constants that no device code names, directly or through another
    // kept declaration or a macro: a host-only struct (with a std::string in it, say) no longer
    // stops NVRTC. Device code that did need one fails to compile, and the run uses nvcc.
    void set_aside_unused_types() {
        std::set<std::string> used;
        auto use = [&](int first, int last) {
            for (int i = first; i <= last; ++i)
                if (token(i).identifier()) used.insert(std::string(token(i).text));
        };
        for (const Kept& root : roots_) use(root.first, root.last);
        for (const auto& directive : scan_.directives) {
            std::string word;
            for (char c : directive.rest + " ") {
                if (grammar_detail::is_identifier_char(c)) word += c;
                else if (!word.empty()) used.insert(std::exchange(word, std::string()));
            }
        }
        std::vector<bool> needed(candidates_.size(), false);
        for (bool grew = true; grew;) {
            grew = false;
            for (std::size_t k = 0; k < candidates_.size(); ++k) {
                if (needed[k]) continue;
                const auto& names = candidates_[k].names;
                const bool named = names.empty() || std::any_of(names.begin(), names.end(),
                                                                [&](const std::string& n) { return used.count(n) > 0; });
                if (!named) continue;
                needed[k] = true;
                grew = true;
                use(candidates_[k].first, candidates_[k].last);
            }
        }
        for (std::size_t k = 0; k < candidates_.size(); ++k)
            if (!needed[k]) blank(candidates_[k].first, candidates_[k].last);
    }

    // Tokens [first, last) at namespace scope, one declaration at a time.
    bool region(int first, int last) {
        for (int i = first; i < last;) {
            i = declaration_at(i, last);
            if (i < 0) return false;
        }
        return true;
    }

    // Handles the declaration that starts at `start`: returns the index after it, or -1 when the
    // brackets do not balance.
    int declaration_at(int start, int last) {
        bool braced_init = false;  // `T x{...}` seen: the declaration goes on to its ';'
        for (int j = start; j < last; ++j) {
            const Token& t = token(j);
            if (t.is(")") || t.is("]") || t.is("}")) return -1;
            if (t.is("(") || t.is("[")) {
                if (match(j) < 0) return -1;
                j = match(j);
                continue;
            }
            if (t.is(";")) {
                declaration(start, j);
                return j + 1;
            }
            if (!t.is("{")) continue;
            const int close = match(j);
            if (close < 0) return -1;
            if (is_scope(start, j)) return region(j + 1, close) ? close + 1 : -1;
            const int head = after_template_header(start, j);
            if (braced_init || (head < j && kTypeWords.count(token(head).text) && !function_like(head, j)) ||
                has_top_level(start, j, "=")) {
                j = close;  // a type's body or an initializer: the declaration ends at its ';'
                continue;
            }
            if (start == j) return close + 1;  // a stray block: left as it is
            if (function_like(head, j)) {
                if (!any_device_word(start, j)) blank(start, close);
                else roots_.push_back({start, close, {}});
                return close + 1;
            }
            braced_init = true;
            j = close;
        }
        return last;  // trailing words without ';' (a macro call): kept
    }

    // Tokens [first, last] become spaces; newlines and preprocessor lines stay.
    void blank(int first, int last) {
        const std::size_t begin = token(first).begin, end = token(last).end;
        int line = file_.line_of(begin);
        for (std::size_t at = begin; at < end; ++at) {
            const char c = out_[at];
            if (c == '\n') {
                ++line;
                continue;
            }
            const bool directive = static_cast<std::size_t>(line) < scan_.directive_line.size() &&
                                   scan_.directive_line[static_cast<std::size_t>(line)];
            if (!directive && c != '\r') out_[at] = ' ';
        }
        ++blanked_;
    }

    struct Kept {
        int first = 0, last = 0;      // tokens
        std::set<std::string> names;  // what it declares (candidates only)
    };

    const SourceFile& file_;
    const Scan& scan_;
    std::vector<Kept> roots_;       // device declarations and definitions
    std::vector<Kept> candidates_;  // kept types, aliases and constants without device words
    std::string out_;
    int blanked_ = 0;
    std::set<std::string_view> device_words_;
    std::set<std::string> macro_words_;
};

std::string stdint_stand_in() {
    // The host ABI's spelling: with `long` where the host compiler has it, a kernel taking an
    // int64_t* mangles as nvcc's build names it, so the worker finds the recorded symbol.
    const std::string i64 = std::is_same_v<std::int64_t, long> ? "long" : "long long";
    const std::string iptr = std::is_same_v<std::intptr_t, long> ? "long" : "long long";
    std::string text =
        "#ifndef GI_STAND_IN_STDINT\n#define GI_STAND_IN_STDINT\n"
        "typedef signed char int8_t;\ntypedef short int16_t;\ntypedef int int32_t;\ntypedef " + i64 + " int64_t;\n"
        "typedef unsigned char uint8_t;\ntypedef unsigned short uint16_t;\ntypedef unsigned int uint32_t;\n"
        "typedef unsigned " + i64 + " uint64_t;\ntypedef " + iptr + " intptr_t;\ntypedef unsigned " + iptr + " uintptr_t;\n"
        "typedef " + i64 + " intmax_t;\ntypedef unsigned " + i64 + " uintmax_t;\n"
        "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define UINT8_MAX 255\n#define INT16_MIN (-32767-1)\n"
        "#define INT16_MAX 32767\n#define UINT16_MAX 65535\n#define INT32_MIN (-2147483647-1)\n#define INT32_MAX 2147483647\n"
        "#define UINT32_MAX 4294967295U\n#define INT64_MIN (-9223372036854775807LL-1)\n#define INT64_MAX 9223372036854775807LL\n"
        "#define UINT64_MAX 18446744073709551615ULL\n#define SIZE_MAX 18446744073709551615UL\n"
        "namespace std {\nusing ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t; using ::uint8_t; using ::uint16_t;\n"
        "using ::uint32_t; using ::uint64_t; using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;\n"
        "using ::size_t; using ::ptrdiff_t;\n}\n#endif\n";
    return text;
}

const char* const kMathStandIn = R"(#ifndef GI_STAND_IN_MATH
#define GI_STAND_IN_MATH
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::remquo; using ::fma; using ::fmax; using ::fmin;
using ::fdim; using ::exp; using ::exp2; using ::expm1; using ::log; using ::log10; using ::log2; using ::log1p;
using ::pow; using ::sqrt; using ::cbrt; using ::hypot; using ::sin; using ::cos; using ::tan; using ::asin;
using ::acos; using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::asinh; using ::acosh;
using ::atanh; using ::erf; using ::erfc; using ::tgamma; using ::lgamma; using ::ceil; using ::floor; using ::trunc;
using ::round; using ::lround; using ::llround; using ::nearbyint; using ::rint; using ::lrint; using ::llrint;
using ::frexp; using ::ldexp; using ::modf; using ::scalbn; using ::scalbln; using ::ilogb; using ::logb;
using ::nextafter; using ::copysign; using ::isfinite; using ::isinf; using ::isnan; using ::signbit;
using ::labs; using ::llabs;
}
#endif
)";

const char* const kLimitsMacros = R"(#ifndef GI_STAND_IN_LIMITS
#define GI_STAND_IN_LIMITS
#include <cuda/std/climits>
#endif
)";

const char* const kFloatMacros = R"(#ifndef GI_STAND_IN_FLOAT
#define GI_STAND_IN_FLOAT
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define DBL_MAX ((double)1.79769313486231570814527423731704357e+308L)
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define DBL_MIN ((double)2.22507385850720138309023271733240406e-308L)
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_EPSILON ((double)2.22044604925031308084726333618164062e-16L)
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define DBL_TRUE_MIN ((double)4.94065645841246544176568792868221372e-324L)
#endif
)";

// std::numeric_limits for the arithmetic types, with the members kernels use. libcu++'s would bring
// its own int64_t (`long long` under NVRTC), which clashes with the host ABI's spelling above.
const char* const kNumericLimits = R"(#ifndef GI_STAND_IN_NUMERIC_LIMITS
#define GI_STAND_IN_NUMERIC_LIMITS
namespace std {
template <class T> struct numeric_limits { static constexpr bool is_specialized = false; };
#define GI_INTEGER_LIMITS(T, MIN, MAX, SIGNED, DIGITS) \
template <> struct numeric_limits<T> { \
  static constexpr bool is_specialized = true; static constexpr bool is_signed = SIGNED; \
  static constexpr bool is_integer = true; static constexpr bool is_exact = true; \
  static constexpr bool has_infinity = false; static constexpr int digits = DIGITS; \
  __host__ __device__ static constexpr T min() noexcept { return MIN; } \
  __host__ __device__ static constexpr T max() noexcept { return MAX; } \
  __host__ __device__ static constexpr T lowest() noexcept { return MIN; } };
GI_INTEGER_LIMITS(bool, false, true, false, 1)
GI_INTEGER_LIMITS(char, (char)(-128), (char)127, true, 7)
GI_INTEGER_LIMITS(signed char, -128, 127, true, 7)
GI_INTEGER_LIMITS(unsigned char, 0, 255, false, 8)
GI_INTEGER_LIMITS(short, -32768, 32767, true, 15)
GI_INTEGER_LIMITS(unsigned short, 0, 65535, false, 16)
GI_INTEGER_LIMITS(int, -2147483647 - 1, 2147483647, true, 31)
GI_INTEGER_LIMITS(unsigned int, 0u, 4294967295u, false, 32)
GI_INTEGER_LIMITS(long, -9223372036854775807L - 1, 9223372036854775807L, true, 63)
GI_INTEGER_LIMITS(unsigned long, 0ul, 18446744073709551615ul, false, 64)
GI_INTEGER_LIMITS(long long, -9223372036854775807LL - 1, 9223372036854775807LL, true, 63)
GI_INTEGER_LIMITS(unsigned long long, 0ull, 18446744073709551615ull, false, 64)
#undef GI_INTEGER_LIMITS
#define GI_FLOAT_LIMITS(T, MIN, MAX, EPS, DENORM, INF, NAN, DIGITS) \
template <> struct numeric_limits<T> { \
  static constexpr bool is_specialized = true; static constexpr bool is_signed = true; \
  static constexpr bool is_integer = false; static constexpr bool is_exact = false; \
  static constexpr bool has_infinity = true; static constexpr bool has_quiet_NaN = true; \
  static constexpr int digits = DIGITS; \
  __host__ __device__ static constexpr T min() noexcept { return MIN; } \
  __host__ __device__ static constexpr T max() noexcept { return MAX; } \
  __host__ __device__ static constexpr T lowest() noexcept { return -(MAX); } \
  __host__ __device__ static constexpr T epsilon() noexcept { return EPS; } \
  __host__ __device__ static constexpr T denorm_min() noexcept { return DENORM; } \
  __host__ __device__ static constexpr T infinity() noexcept { return INF; } \
  __host__ __device__ static constexpr T quiet_NaN() noexcept { return NAN; } };
GI_FLOAT_LIMITS(float, 1.17549435082228750796873653722224568e-38F, 3.40282346638528859811704183484516925e+38F,
                1.19209289550781250000000000000000000e-7F, 1.40129846432481707092372958328991613e-45F,
                __builtin_bit_cast(float, 0x7f800000u), __builtin_bit_cast(float, 0x7fc00000u), 24)
GI_FLOAT_LIMITS(double, 2.22507385850720138309023271733240406e-308, 1.79769313486231570814527423731704357e+308,
                2.22044604925031308084726333618164062e-16, 4.94065645841246544176568792868221372e-324,
                __builtin_bit_cast(double, 0x7ff0000000000000ull), __builtin_bit_cast(double, 0x7ff8000000000000ull), 53)
#undef GI_FLOAT_LIMITS
}
#endif
)";

const char* const kMinMax = R"(#ifndef GI_STAND_IN_ALGORITHM
#define GI_STAND_IN_ALGORITHM
namespace std {
template <class T> __host__ __device__ constexpr const T& min(const T& a, const T& b) { return (b < a) ? b : a; }
template <class T> __host__ __device__ constexpr const T& max(const T& a, const T& b) { return (a < b) ? b : a; }
}
#endif
)";

}  // namespace

std::optional<DeviceSide> device_side_of(const std::string& source, const std::string& name) {
    try {
        const SourceFile file = make_source_file(name, source);
        Scan scan = grammar_detail::scan_source(file);
        if (!grammar_detail::match_brackets(scan).empty()) return std::nullopt;
        Cutter cutter(file, scan);
        if (!cutter.run()) return std::nullopt;
        return cutter.result();
    } catch (const Error&) {
        return std::nullopt;  // an unterminated comment or literal: nvcc reports it
    }
}

const std::vector<std::pair<std::string, std::string>>& host_header_stand_ins() {
    static const std::vector<std::pair<std::string, std::string>> headers = [] {
        std::vector<std::pair<std::string, std::string>> h;
        const std::string stdint = stdint_stand_in();
        for (const char* n : {"cstdint", "stdint.h", "inttypes.h", "cinttypes"}) h.emplace_back(n, stdint);
        for (const char* n : {"cmath", "math.h"}) h.emplace_back(n, kMathStandIn);
        // <cstdlib>'s abs and <cstddef>'s size_t are NVRTC built-ins; the rest of them is host code.
        for (const char* n : {"cstddef", "stddef.h"}) h.emplace_back(n, "namespace std { using ::size_t; using ::ptrdiff_t; }\n");
        for (const char* n : {"cstdlib", "stdlib.h"}) h.emplace_back(n, "namespace std { using ::abs; using ::labs; using ::llabs; }\n");
        for (const char* n : {"climits", "limits.h"}) h.emplace_back(n, kLimitsMacros);
        for (const char* n : {"cfloat", "float.h"}) h.emplace_back(n, kFloatMacros);
        h.emplace_back("limits", kNumericLimits);
        h.emplace_back("algorithm", kMinMax);
        // Host-only: nothing in them can be used in a kernel (assert and printf are NVRTC built-ins).
        for (const char* n :
             {"cassert", "assert.h", "cstdio", "stdio.h", "cstring", "string.h", "ctime", "time.h",
              "cctype", "ctype.h", "cerrno", "errno.h", "cstdarg", "stdarg.h", "csignal", "signal.h", "clocale", "locale.h",
              "stdbool.h", "unistd.h", "sys/time.h", "sys/types.h", "sys/stat.h", "fcntl.h", "getopt.h", "omp.h",
              "array", "atomic", "bitset", "chrono", "complex", "deque", "exception", "fstream", "functional", "iomanip",
              "ios", "iosfwd", "iostream", "istream", "iterator", "list", "map", "memory", "mutex", "numeric", "optional",
              "ostream", "queue", "random", "set", "sstream", "stack", "stdexcept", "string", "string_view", "thread",
              "tuple", "unordered_map", "unordered_set", "utility", "valarray", "vector", "cuda.h", "cuda_profiler_api.h",
              "nvToolsExt.h", "helper_cuda.h", "helper_functions.h", "helper_string.h", "helper_timer.h",
              "helper_image.h", "gi/launch.hpp"})
            h.emplace_back(n, "");
        return h;
    }();
    return headers;
}

}  // namespace gi
