#include "variant/loop_guard.hpp"

#include <algorithm>
#include <cstring>

#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// A newline that ends a logical line (not continued by a backslash, maybe with a \r between).
bool ends_logical_line(const std::string& text, std::size_t i) {
    if (text[i] != '\n') return false;
    std::size_t k = i;
    if (k > 0 && text[k - 1] == '\r') --k;
    return k == 0 || text[k - 1] != '\\';
}

struct Insertion {
    std::size_t at;
    std::string text;
};

class Guarder {
public:
    Guarder(const std::string& text, const std::string& masked, const std::string& name)
        : text_(text), masked_(masked), name_(name) {}

    LoopGuardResult run() {
        LoopGuardResult result;
        directive_ = false;
        bool line_start = true;
        for (std::size_t i = 0; i < masked_.size(); ++i) {
            const char c = masked_[i];
            if (c == '\n') {
                if (ends_logical_line(masked_, i)) directive_ = false;
                line_start = true;
                continue;
            }
            if (line_start && !space(c)) {
                line_start = false;
                if (c == '#') {
                    directive_ = true;
                    define_ = is_define(i);
                }
            }
            if (!ident_char(c) || (i > 0 && ident_char(masked_[i - 1]))) continue;
            std::size_t end = i;
            while (end < masked_.size() && ident_char(masked_[end])) ++end;
            const std::size_t length = end - i;
            const bool is_for = length == 3 && masked_.compare(i, 3, "for") == 0;
            const bool is_while = length == 5 && masked_.compare(i, 5, "while") == 0;
            if ((is_for || is_while) && (!directive_ || define_)) guard_loop(i, end, is_for, result);
            i = end - 1;
        }
        std::stable_sort(insertions_.begin(), insertions_.end(),
                         [](const Insertion& a, const Insertion& b) { return a.at > b.at; });
        std::string out = text_;
        for (const Insertion& ins : insertions_) out.insert(ins.at, ins.text);
        result.source = loop_guard_preamble() + out;
        return result;
    }

private:
    bool is_define(std::size_t hash) const {
        std::size_t k = hash + 1;
        while (k < masked_.size() && (masked_[k] == ' ' || masked_[k] == '\t')) ++k;
        return masked_.compare(k, 6, "define") == 0 && (k + 6 >= masked_.size() || !ident_char(masked_[k + 6]));
    }

    int line_of(std::size_t at) const {
        return 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<long>(at), '\n'));
    }

    void skip(const std::string& keyword, std::size_t at, const std::string& why, LoopGuardResult& result) {
        result.unguarded.push_back(located_message(name_, line_of(at), "'" + keyword + "' loop left unguarded: " + why, ""));
    }

    // Whitespace, and in a #define the backslash-newlines that continue it.
    std::size_t skip_space(std::size_t i) const {
        while (i < masked_.size()) {
            if (masked_[i] == '\\' && i + 1 < masked_.size() && (masked_[i + 1] == '\n' || masked_[i + 1] == '\r')) {
                ++i;
                continue;
            }
            if (!space(masked_[i])) break;
            if (directive_ && masked_[i] == '\n' && ends_logical_line(masked_, i)) break;
            ++i;
        }
        return i;
    }

    void guard_loop(std::size_t keyword_at, std::size_t keyword_end, bool is_for, LoopGuardResult& result) {
        const std::string keyword = is_for ? "for" : "while";
        const std::size_t open = skip_space(keyword_end);
        if (open >= masked_.size() || masked_[open] != '(') return;  // not a loop here (a macro's name, say)
        // The matching ')' with every bracket balanced on the way; ';' at the header's own level.
        std::vector<char> stack{'('};
        std::vector<std::size_t> semicolons;
        bool top_colon = false;
        std::size_t close = std::string::npos;
        for (std::size_t k = open + 1; k < masked_.size(); ++k) {
            const char c = masked_[k];
            if (directive_ && c == '\n' && ends_logical_line(masked_, k)) break;
            if (c == '(' || c == '[' || c == '{') {
                stack.push_back(c);
            } else if (c == ')' || c == ']' || c == '}') {
                const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
                if (stack.back() != want) {
                    skip(keyword, keyword_at,
                         std::string("its header has an unbalanced '") + c + "' at line " + std::to_string(line_of(k)), result);
                    return;
                }
                stack.pop_back();
                if (stack.empty()) {
                    close = k;
                    break;
                }
            } else if (stack.size() == 1 && c == ';') {
                // A while header has none at its own level and a for header two: one more means
                // the header ran into the loop's body.
                if (!is_for || semicolons.size() == 2) break;
                semicolons.push_back(k);
            } else if (stack.size() == 1 && c == ':' && masked_[k - 1] != ':' &&
                       (k + 1 >= masked_.size() || masked_[k + 1] != ':')) {
                top_colon = true;
            }
        }
        if (close == std::string::npos) {
            skip(keyword, keyword_at,
                 std::string("the '(' of its header has no matching ')'") + (directive_ ? " within the #define" : ""),
                 result);
            return;
        }
        std::size_t from, to;  // the condition: [from, to)
        if (is_for) {
            if (semicolons.size() != 2) {
                if (top_colon && semicolons.size() <= 1) return;  // range-for: it ends with its range
                skip(keyword, keyword_at,
                     "its header has " + std::to_string(semicolons.size()) + " top-level ';' (expected 2)", result);
                return;
            }
            from = semicolons[0] + 1;
            to = semicolons[1];
        } else {
            from = open + 1;
            to = close;
        }
        while (from < to && (space(masked_[from]) || masked_[from] == '\\')) ++from;
        while (to > from && (space(masked_[to - 1]) || masked_[to - 1] == '\\')) --to;
        if (from == to) {
            if (!is_for) {
                skip(keyword, keyword_at, "its condition is empty", result);
                return;
            }
            // `for (;;)`: the guard is the whole condition.
            insertions_.push_back({semicolons[0] + 1, " gi_loop_ok()"});
        } else {
            insertions_.push_back({from, "("});
            insertions_.push_back({to, ") && gi_loop_ok()"});
        }
        ++result.guarded;
    }

    const std::string& text_;
    const std::string& masked_;
    std::string name_;
    std::vector<Insertion> insertions_;
    bool directive_ = false;  // inside a preprocessor directive's logical line
    bool define_ = false;     // ... and it is a #define (the only one whose loops are code)
};

}  // namespace

const std::string& loop_guard_preamble() {
    // gi_loop_clock also re-arms the overrun flag and reads the deadline, which keeps both symbols
    // in the module even when the compiler removes every guarded loop.
    static const std::string preamble =
        "// gi-optimize loop guard: loops stop once %globaltimer passes gi_loop_deadline_ns (0 = never)\n"
        "__constant__ unsigned long long gi_loop_deadline_ns;\n"
        "__device__ unsigned int gi_loop_overrun;\n"
        "extern \"C\" __global__ void gi_loop_clock(unsigned long long* now) {\n"
        "    unsigned long long t;\n"
        "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
        "    now[0] = t;\n"
        "    now[1] = gi_loop_deadline_ns;\n"
        "    gi_loop_overrun = 0u;\n"
        "}\n"
        // Why a guard stopped something, as the larger of the reasons seen: a split warp (3) over a
        // barrier that gave up (2) over a loop that ran out of time (1). A barrier that gives up
        // makes the loops around it run out of time too, and the first cause is the one to report.
        // Read before the atomic: once the deadline has passed, every thread of the grid that still
        // checks a loop condition lands here (16M threads on a 4096 x 4096 image), and a load of a
        // word already set costs less than an atomic on it. (It was thought to be why row_filter's
        // workers were killed; they were not: those variants fault, bench/results/2026-11-26-h200-guard.md.)
        "__device__ __forceinline__ void gi_guard_stopped(unsigned int why) {\n"
        "    if (*(volatile unsigned int*)&gi_loop_overrun < why) atomicMax(&gi_loop_overrun, why);\n"
        "}\n"
        "__device__ __forceinline__ bool gi_deadline_passed(unsigned long long deadline) {\n"
        "    if (deadline == 0ull) return false;\n"
        "    unsigned long long t;\n"
        "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
        "    return t >= deadline;\n"
        "}\n"
        "__host__ __device__ __forceinline__ bool gi_loop_ok() {\n"
        "#ifdef __CUDA_ARCH__\n"
        "    if (!gi_deadline_passed(gi_loop_deadline_ns)) return true;\n"
        "    gi_guard_stopped(1u);\n"
        "    return false;\n"
        "#else\n"
        "    return true;\n"
        "#endif\n"
        "}\n"
        // The barrier guard's barrier (variant/barrier_guard.hpp). One word counts the threads that
        // arrived in this phase (low 16 bits) and those that left the kernel (high 16 bits), so
        // exactly one thread sees the phase complete, whether its last member arrived or left.
        // Per warp, the phase (+1, so the zeroed start matches no phase) and site of its latest
        // arrival: atomicMax keeps the larger site, so whichever lane comes second sees the other
        // site when a warp splits between two.
        "__shared__ unsigned int gi_barrier_count;\n"
        "__shared__ unsigned int gi_barrier_phase;\n"
        "__shared__ unsigned long long gi_barrier_site[32];\n"
        "__device__ __forceinline__ void gi_barrier_open_if_complete(unsigned int count) {\n"
        "    const unsigned int arrived = count & 0xffffu;\n"
        "    if (arrived != 0u && arrived + (count >> 16) == blockDim.x * blockDim.y * blockDim.z) {\n"
        "        atomicSub(&gi_barrier_count, arrived);\n"
        "        __threadfence_block();\n"
        "        atomicAdd(&gi_barrier_phase, 1u);\n"
        "    }\n"
        "}\n"
        "__device__ __forceinline__ unsigned int gi_thread_in_block() {\n"
        "    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
        "}\n"
        "__device__ __forceinline__ void gi_barrier_enter() {\n"
        "    const unsigned int t = gi_thread_in_block();\n"
        "    if (t < 32u) gi_barrier_site[t] = 0ull;\n"
        "    if (t == 0u) {\n"
        "        gi_barrier_count = 0u;\n"
        "        gi_barrier_phase = 0u;\n"
        "    }\n"
        "    __syncthreads();\n"
        "}\n"
        // Each thread arrives by itself: counting a warp's converged lanes with one atomic misses
        // a warp split between two sites when the compiler merges the two calls into one. The
        // pollers nap between reads, so they do not crowd out the atomics of threads arriving.
        "__device__ __forceinline__ void gi_thread_exit() {\n"
        "    asm volatile(\"\" ::: \"memory\");\n"
        "    __threadfence_block();\n"
        "    gi_barrier_open_if_complete(atomicAdd(&gi_barrier_count, 0x10000u) + 0x10000u);\n"
        "}\n"
        // The empty asm with a memory clobber makes the guarded barrier a barrier for the compiler
        // too, as __syncthreads() is, whatever it can prove about the function's own accesses.
        // (Added as the first suspect when a correct row_filter variant read its tile wrongly in
        // the guarded build; it was not the cause, the shared guard's branch was, and it stays
        // because a barrier must be one for the compiler: bench/results/2026-11-26-h200-shared-guard.md.)
        "__device__ __noinline__ void gi_guarded_syncthreads(unsigned int site) {\n"
        "    asm volatile(\"\" ::: \"memory\");\n"
        "    __threadfence_block();\n"
        "    volatile unsigned int* phase_now = &gi_barrier_phase;\n"
        "    const unsigned int phase = *phase_now;\n"
        "    const unsigned long long tag = ((unsigned long long)(phase + 1u) << 32) | site;\n"
        "    const unsigned long long seen = atomicMax(&gi_barrier_site[gi_thread_in_block() / 32u], tag);\n"
        "    if ((seen >> 32) == (tag >> 32) && seen != tag) gi_guard_stopped(3u);\n"
        "    const unsigned long long deadline = gi_loop_deadline_ns;\n"
        // A barrier first reached after the deadline is no deadlock: its block started late, after
        // other blocks' loops had run out of time (a grid larger than the GPU holds at once), and
        // the block goes on unsynchronised for the same reason as they stopped.
        "    const unsigned int why = gi_deadline_passed(deadline) ? 1u : 2u;\n"
        "    gi_barrier_open_if_complete(atomicAdd(&gi_barrier_count, 1u) + 1u);\n"
        "    while (*phase_now == phase) {\n"
        "#if __CUDA_ARCH__ >= 700\n"
        "        __nanosleep(64);\n"
        "#endif\n"
        "        if (gi_deadline_passed(deadline)) {\n"
        "            gi_guard_stopped(why);\n"
        "            break;\n"
        "        }\n"
        "    }\n"
        "    __threadfence_block();\n"
        "    asm volatile(\"\" ::: \"memory\");\n"
        "}\n"
        // The shared-memory guard's checks (variant/shared_guard.hpp): gi_shared_ix(a, i, j) is
        // a[i][j] when its offset in the whole array is inside it, else a flag and the array's
        // first element, so the kernel goes on and ends by itself. Anything but an array (the
        // name shadowed by a pointer in the access's scope) is indexed unchecked.
        // The empty asm makes the first index opaque where the access is: without it the compiler
        // hoists each unrolled access's check out of the enclosing loops (matrix_mul's 32 x 32
        // tile went from 31 to 195 registers, too many for its 1024-thread block).
        // Cause 4 is the largest, so a plain store does what gi_guard_stopped's atomicMax would;
        // with a select for the index it leaves the access without a branch of its own (with one,
        // a correct row_filter variant read its tile wrongly in the guarded build, H200, 1f21854).
        "__device__ __forceinline__ void gi_shared_flag() { *(volatile unsigned int*)&gi_loop_overrun = 4u; }\n"
        "__shared__ unsigned long long gi_shared_spare[4];\n"
        "template <class A> struct gi_shared_array {\n"
        "    template <class I> __host__ __device__ static auto at(A& a, I i) -> decltype((a[i])) { return a[i]; }\n"
        "    template <class I, class J> __host__ __device__ static auto at(A& a, I i, J j) -> decltype((a[i][j])) {\n"
        "        return a[i][j];\n"
        "    }\n"
        "    template <class I, class J, class K>\n"
        "    __host__ __device__ static auto at(A& a, I i, J j, K k) -> decltype((a[i][j][k])) { return a[i][j][k]; }\n"
        "};\n"
        "template <class E> __host__ __device__ __forceinline__ E& gi_shared_checked(E* first, long long at, unsigned long long n) {\n"
        "#ifdef __CUDA_ARCH__\n"
        "    const bool inside = (unsigned long long)at < n;\n"
        "    if (!inside) gi_shared_flag();\n"
        "    return first[inside ? at : 0];\n"
        "#else\n"
        "    return first[at];\n"
        "#endif\n"
        "}\n"
        "#ifdef __CUDA_ARCH__\n"
        "#define GI_SHARED_OPAQUE(x) asm volatile(\"\" : \"+l\"(x))\n"
        "#else\n"
        "#define GI_SHARED_OPAQUE(x) (void)0\n"
        "#endif\n"
        "template <class E, unsigned long long N0> struct gi_shared_array<E[N0]> {\n"
        "    __host__ __device__ static E& at(E (&a)[N0], long long i) {\n"
        "        GI_SHARED_OPAQUE(i);\n"
        "        return gi_shared_checked(&a[0], i, N0);\n"
        "    }\n"
        "};\n"
        "template <class E, unsigned long long N0, unsigned long long N1> struct gi_shared_array<E[N0][N1]> {\n"
        "    __host__ __device__ static E& at(E (&a)[N0][N1], long long i, long long j) {\n"
        "        GI_SHARED_OPAQUE(i);\n"
        "        return gi_shared_checked(&a[0][0], i * (long long)N1 + j, N0 * N1);\n"
        "    }\n"
        "};\n"
        "template <class E, unsigned long long N0, unsigned long long N1, unsigned long long N2>\n"
        "struct gi_shared_array<E[N0][N1][N2]> {\n"
        "    __host__ __device__ static E& at(E (&a)[N0][N1][N2], long long i, long long j, long long k) {\n"
        "        GI_SHARED_OPAQUE(i);\n"
        "        return gi_shared_checked(&a[0][0][0], (i * (long long)N1 + j) * (long long)N2 + k, N0 * N1 * N2);\n"
        "    }\n"
        "};\n"
        // extern __shared__ E a[]: as long as the launch's dynamic shared memory. An element that
        // is not there at all (none given) goes to a spare word, when it fits in one.
        "template <class E> struct gi_shared_array<E[]> {\n"
        "    __host__ __device__ static E& at(E* a, long long i) {\n"
        "#ifdef __CUDA_ARCH__\n"
        "        GI_SHARED_OPAQUE(i);\n"
        "        if (!__isShared((const void*)a)) return a[i];\n"
        "        unsigned int bytes;\n"
        "        asm(\"mov.u32 %0, %%dynamic_smem_size;\" : \"=r\"(bytes));\n"
        "        if (bytes < sizeof(E) && sizeof(E) <= sizeof(gi_shared_spare)) {\n"
        "            gi_shared_flag();\n"
        "            return *(E*)gi_shared_spare;\n"
        "        }\n"
        "        return gi_shared_checked(a, i, bytes / sizeof(E));\n"
        "#else\n"
        "        return a[i];\n"
        "#endif\n"
        "    }\n"
        "};\n"
        "#undef GI_SHARED_OPAQUE\n"
        "template <class A, class... I>\n"
        "__host__ __device__ __forceinline__ auto gi_shared_ix(A& a, I... i) -> decltype(gi_shared_array<A>::at(a, i...)) {\n"
        "    return gi_shared_array<A>::at(a, i...);\n"
        "}\n"
        "#line 1\n";
    return preamble;
}

LoopGuardResult guard_loops(const std::string& source, const std::string& name) {
    std::string masked;
    try {
        masked = mask_comments_and_strings(make_source_file(name, source));
    } catch (const Error& e) {
        // The plain compile reports this better; a guarded copy of broken text helps nobody.
        LoopGuardResult result;
        result.source = loop_guard_preamble() + source;
        result.unguarded.push_back(std::string("no loop guarded: ") + e.what());
        return result;
    }
    return Guarder(source, masked, name).run();
}

}  // namespace gi
