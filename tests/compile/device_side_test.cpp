// The device side of a kernel file (issue 16: NVRTC keeps the fast path for files with host code and
// host headers): what is set aside, what is kept, that every corpus file then compiles with NVRTC,
// and that nvcc builds the same device code from the cut file as from the whole one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/gi_tool_run.hpp"
#include "../support/toolkit.hpp"
#include "compile/cubin_sections.hpp"
#include "compile/device_side.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "variant/hang_guard.hpp"
#include "util/error.hpp"
#include "process/process.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

std::string cut(const std::string& source) {
    const std::optional<DeviceSide> side = device_side_of(source, "t.cu");
    if (!side) throw Error("no device side");
    EXPECT_EQ(side->source.size(), source.size());
    EXPECT_EQ(std::count(side->source.begin(), side->source.end(), '\n'), std::count(source.begin(), source.end(), '\n'));
    return side->source;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }


TEST(DeviceSide, SetsAsideHostFunctionsAndKeepsDeviceCode) {
    const std::string source =
        "#include <vector>\n"
        "#define N 4\n"
        "__constant__ float weights[N] = {1, 2, 3, 4};\n"
        "__device__ float twice(float x) { return 2 * x; }\n"
        "template <int B> __global__ void k(float* a) { a[threadIdx.x] = twice(weights[B % N]); }\n"
        "static void check(int status) { if (status) std::exit(1); }\n"
        "template <typename T> T host_max(T a, T b) { return a > b ? a : b; }\n"
        "int main(int argc, char** argv) {\n"
        "#ifdef VERBOSE\n"
        "    std::vector<float> v(N);\n"
        "#endif\n"
        "    k<32><<<1, 32>>>(nullptr);\n"
        "    return 0;\n"
        "}\n";
    const std::string side = cut(source);
    EXPECT_TRUE(has(side, "__constant__ float weights[N] = {1, 2, 3, 4};"));
    EXPECT_TRUE(has(side, "__device__ float twice(float x) { return 2 * x; }"));
    EXPECT_TRUE(has(side, "template <int B> __global__ void k(float* a)"));
    EXPECT_FALSE(has(side, "check"));
    EXPECT_FALSE(has(side, "host_max"));
    EXPECT_FALSE(has(side, "main"));
    EXPECT_FALSE(has(side, "k<32>"));
    // Preprocessor lines inside host code stay, so every #if keeps its #endif.
    EXPECT_TRUE(has(side, "\n#ifdef VERBOSE\n"));
    EXPECT_TRUE(has(side, "\n#endif\n"));
    EXPECT_EQ(device_side_of(source, "t.cu")->host_definitions, 3);
}

TEST(DeviceSide, KeepsTypesConstantsAndMacroMarkedDeviceFunctions) {
    const std::string source =
        "#define HD __host__ __device__\n"
        "#define KERNEL(name) __global__ void name\n"
        "struct Inner { float* out; };\n"
        "struct Params { Inner inner; int n; };\n"
        "struct __align__(16) Pair { float a, b; };\n"
        "typedef float real;\n"
        "using index_t = int;\n"
        "enum class Mode { Fast, Exact };\n"
        "enum Side { Left, Right };\n"
        "const int kTile = 16;\n"
        "constexpr float kScale = 0.5f;\n"
        "struct Options { std::string file; int frames; };\n"
        "HD inline real scale(real x) { return x * kScale; }\n"
        "KERNEL(fill)(Params p) { p.inner.out[threadIdx.x] = scale(kTile) + (Right == Left); }\n"
        "static int g_frames = 0;\n"
        "Params g_params{nullptr, 0};\n"
        "float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }\n"
        "__device__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }\n"
        "void host_only(const Params& p);\n";
    const std::string side = cut(source);
    // Kept: what device code names, directly (Params, real, kTile, Right) or through a kept
    // declaration (Inner through Params, kScale through scale()).
    for (const char* kept : {"struct Inner { float* out; };", "struct Params { Inner inner; int n; };", "typedef float real;",
                             "enum Side { Left, Right };", "const int kTile = 16;", "constexpr float kScale = 0.5f;",
                             "HD inline real scale(real x)", "KERNEL(fill)(Params p)",
                             "__device__ float2 operator*(float2 a, float s)"})
        EXPECT_TRUE(has(side, kept)) << kept;
    // Set aside: host code, and types and constants no device code names (a std::string member
    // would stop NVRTC).
    for (const char* gone : {"g_frames", "g_params", "float3 operator+", "host_only", "Options", "Pair", "Mode", "index_t"})
        EXPECT_FALSE(has(side, gone)) << gone;
}

// Types named only in a macro's body are kept: the macro may stand for them in device code.
TEST(DeviceSide, KeepsTypesThatAMacroNames) {
    const std::string side = cut("struct Params { int n; };\n#define P Params\n__global__ void k(P p) { }\n");
    EXPECT_TRUE(has(side, "struct Params { int n; };"));
}

TEST(DeviceSide, WalksNamespacesAndExternCBlocks) {
    const std::string source =
        "namespace img { namespace detail {\n"
        "__global__ void grey(float* a) { a[0] = 1; }\n"
        "void launch(float* a) { grey<<<1, 1>>>(a); }\n"
        "} }\n"
        "extern \"C\" {\n"
        "__global__ void add(float* a) { a[0] += 1; }\n"
        "void run_add(float* a) { add<<<1, 1>>>(a); }\n"
        "}\n"
        "extern \"C\" void c_entry(float* a) { run_add(a); }\n";
    const std::string side = cut(source);
    EXPECT_TRUE(has(side, "__global__ void grey(float* a)"));
    EXPECT_TRUE(has(side, "__global__ void add(float* a)"));
    EXPECT_TRUE(has(side, "namespace img { namespace detail {"));
    EXPECT_FALSE(has(side, "launch"));
    EXPECT_FALSE(has(side, "run_add"));
    EXPECT_FALSE(has(side, "c_entry"));
}

TEST(DeviceSide, RefusesFilesWhoseBracketsDoNotBalance) {
    EXPECT_FALSE(device_side_of("__global__ void k(float* a) { a[0] = 1;\n", "t.cu"));
    EXPECT_FALSE(device_side_of("void f() { }\n}\n", "t.cu"));
    EXPECT_FALSE(device_side_of("/* never closed\n", "t.cu"));
}

TEST(DeviceSide, StandInsCoverTheHeadersNvrtcCannotOpen) {
    std::vector<std::string> names;
    for (const auto& [name, text] : host_header_stand_ins()) names.push_back(name);
    for (const char* header : {"cstdio", "stdio.h", "cassert", "cmath", "math.h", "cstdlib", "cstring", "vector", "cuda.h",
                               "cstdint", "climits", "cfloat", "limits", "algorithm", "iostream", "gi/launch.hpp"})
        EXPECT_NE(std::find(names.begin(), names.end(), header), names.end()) << header;
}

// A device-side file with every stand-in header compiles with NVRTC, and what the stand-ins give
// (M_PI, FLT_MAX, INT_MAX, std::sqrt, std::min, numeric_limits, int64_t spelled as the host's) works.
TEST(DeviceSide, StandInsGiveWhatKernelsUseFromTheirHeaders) {
    if (!nvrtc_available()) GTEST_SKIP() << "this build has no NVRTC";
    DeviceCompileRequest request;
    request.headers = host_header_stand_ins();
    for (const auto& [name, text] : request.headers) request.source += "#include <" + name + ">\n";
    request.source +=
        "using namespace std;\n"
        "static_assert(sizeof(int64_t) == 8 && sizeof(uint32_t) == 4, \"sizes\");\n"
        "__global__ void k(float* a, int64_t* b) {\n"
        "    a[0] = M_PI + FLT_MAX + INT_MAX + std::sqrt(a[1]) + sqrt(a[2]) + std::min(a[3], a[4]) +\n"
        "           std::numeric_limits<float>::max() + fabs(a[5]) + std::abs(a[6]) + (std::isnan(a[7]) ? 1 : 0);\n"
        "    b[0] = INT64_MAX;\n"
        "    assert(a[0] > 0);\n"
        "    printf(\"%f\\n\", a[0]);\n"
        "}\n";
    const DeviceCompileResult r = compile_with_nvrtc(request);
    EXPECT_TRUE(r.ok) << r.log;
    // The kernel's name mangles with the host's int64_t (`long` on Linux: 'l'), as nvcc names it.
    EXPECT_NE(r.cubin.find(std::is_same_v<std::int64_t, long> ? "_Z1kPfPl" : "_Z1kPfPx"), std::string::npos);
}

struct CorpusFile {
    std::string file;
    std::vector<std::string> include_dirs;
    std::vector<std::string> instantiations;
};

std::vector<CorpusFile> corpus_files() {
    const fs::path corpus = fs::path(GI_SOURCE_DIR) / "tests/corpus";
    const std::string recorder = (fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/include").string();
    return {{"with_include/stencil.cu", {(corpus / "with_include/include").string()}, {}},
            {"row_filter.cu", {recorder}, {}},
            {"struct_pointers.cu", {recorder}, {}},
            {"pointer_array.cu", {recorder}, {}},
            {"histogram.cu", {recorder}, {}},
            {"rodinia_style.cu", {}, {}},
            {"extern_c.cu", {}, {}},
            {"namespaced.cu", {}, {}},
            {"two_kernels.cu", {}, {}},
            {"crlf.cu", {}, {}},
            {"matrix_mul.cu", {recorder}, {"MatrixMulCUDA<32>"}}};
}

// NVRTC's request for a corpus file's device side, as the cuda evaluator makes it (host headers
// stood in for, the file's own folder and its include folders); nullopt when it cannot be cut.
std::optional<DeviceCompileRequest> device_side_request(const CorpusFile& f) {
    const fs::path path = fs::path(GI_SOURCE_DIR) / "tests/corpus" / f.file;
    const std::optional<DeviceSide> side = device_side_of(test::file_text(path), f.file);
    if (!side) return std::nullopt;
    DeviceCompileRequest request;
    request.source = side->source;
    request.headers = host_header_stand_ins();
    request.include_dirs = f.include_dirs;
    request.include_dirs.push_back(path.parent_path().string());
    request.name_expressions = f.instantiations;
    request.options = {"-std=c++17"};
    return request;
}

// Every corpus file, written with host code, main() and C/C++ headers, compiles with NVRTC once its
// host side is set aside: none of them needs nvcc for its variants any more.
TEST(DeviceSide, EveryCorpusFileCompilesWithNvrtc) {
    if (!nvrtc_available()) GTEST_SKIP() << "this build has no NVRTC";
    for (const CorpusFile& f : corpus_files()) {
        SCOPED_TRACE(f.file);
        const std::optional<DeviceCompileRequest> request = device_side_request(f);
        ASSERT_TRUE(request);
        const DeviceCompileResult r = compile_with_nvrtc(*request);
        EXPECT_TRUE(r.ok) << r.log;
    }
}

// And so does each one's loop-guarded build at -Ofc=mid, as the cuda evaluator compiles it for the
// check run (cuda/variant_builder.hpp); without the shared-array guard where its checked accesses
// do not compile, as the evaluator then runs. A file where it failed would fall back, slower, to
// optimised guarded builds.
TEST(DeviceSide, EveryCorpusFilesFastGuardedBuildCompilesWithNvrtc) {
    if (!nvrtc_available()) GTEST_SKIP() << "this build has no NVRTC";
    int guarded = 0;
    for (const CorpusFile& f : corpus_files()) {
        SCOPED_TRACE(f.file);
        std::optional<DeviceCompileRequest> request = device_side_request(f);
        ASSERT_TRUE(request);
        const std::string side = request->source;
        request->source.clear();
        request->options.push_back("-Ofc=mid");
        DeviceCompileResult r;
        for (const bool shared_arrays : {true, false}) {
            const LoopGuardResult g = guard_hangs(side, f.file, HangGuards{true, shared_arrays});
            if (!g.any()) break;
            request->source = g.source;
            r = compile_with_nvrtc(*request);
            if (r.ok) break;
        }
        if (request->source.empty()) continue;  // nothing to guard in this file
        ++guarded;
        EXPECT_TRUE(r.ok) << r.log;
    }
    EXPECT_GE(guarded, 8);
}

std::string nvcc_cubin(const std::string& source, const std::vector<std::string>& include_dirs) {
    TemporaryDirectory dir("gi-device-side-test");
    std::ofstream(dir.path() / "v.cu", std::ios::binary) << source;
    NvccOptions options;
    options.include_dirs = include_dirs;
    const CompileOutcome outcome = NvccCompiler(options).compile(dir.path() / "v.cu", dir.path() / "v.cubin", {}, "v.cu");
    if (outcome.status != CompileOutcome::Status::Ok) throw Error("nvcc failed: " + outcome.first_errors);
    return test::file_text(dir.path() / "v.cubin");
}

// The cut is checked at run time the same way: nvcc's device code from the whole file and from its
// device side are the same; a changed kernel is told apart.
TEST(DeviceSide, NvccBuildsTheSameDeviceCodeFromTheCutFile) {
    if (!test::have_nvcc()) GTEST_SKIP() << "nvcc not found";
    const fs::path path = fs::path(GI_SOURCE_DIR) / "tests/corpus/row_filter.cu";
    const std::vector<std::string> dirs = {(fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/include").string()};
    const std::string whole_text = test::file_text(path);
    const std::string whole = nvcc_cubin(whole_text, dirs);
    const std::string side = nvcc_cubin(device_side_of(whole_text, "row_filter.cu")->source, dirs);
    EXPECT_TRUE(same_device_code(side, whole));
    std::string changed = device_side_of(whole_text, "row_filter.cu")->source;
    const std::size_t at = changed.find("sum += ");
    ASSERT_NE(at, std::string::npos);
    changed.replace(at, 7, "sum -= ");
    EXPECT_FALSE(same_device_code(nvcc_cubin(changed, dirs), whole));
}

// A template kernel whose instantiations only host code makes: the whole file has MatrixMulCUDA<16>
// and <32>, the device side only the registered <32>, instantiated by address (as the evaluator
// does). Its symbols are numbered differently; its code is the same (on the H200 this run fell back
// to nvcc while the comparison counted symbol numbers).
TEST(DeviceSide, NvccBuildsTheSameTemplateInstantiationFromTheCutFile) {
    if (!test::have_nvcc()) GTEST_SKIP() << "nvcc not found";
    const fs::path path = fs::path(GI_SOURCE_DIR) / "tests/corpus/matrix_mul.cu";
    const std::vector<std::string> dirs = {(fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/include").string()};
    const std::string whole_text = test::file_text(path);
    const std::string side_text = device_side_of(whole_text, "matrix_mul.cu")->source +
                                  "\nstatic void* const gi_device_side_instantiations[] = {(void*)&MatrixMulCUDA<32>, };\n";
    const std::string whole = nvcc_cubin(whole_text, dirs);
    const std::string side = nvcc_cubin(side_text, dirs);
    EXPECT_TRUE(same_device_code(side, whole));
    EXPECT_GT(cubin_sections(whole).size(), cubin_sections(side).size());  // the <16> instantiation too
}

TEST(CubinSections, RefusesWhatIsNotAnElfImage) {
    EXPECT_THROW(cubin_sections("not an elf file at all, but long enough to have a header of sixty-four bytes......"), Error);
    EXPECT_THROW(cubin_sections(std::string("\x7f" "ELF\x02\x01", 6) + std::string(58, '\xff')), Error);
}

}  // namespace
}  // namespace gi
