// Genomes with PTX edits (issue 46) and the cache: an entry keeps them (written, and valid when
// found, so `cache verify --compile` can replay them); a build that compiles the wrapper from
// source alone (`cache apply` without --ptx-edits) leaves such an entry out naming the edits, never
// using it with them dropped (tests/cache/ptx_cache_verify_test.cpp, ptx_cache_apply_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cache/check.hpp"
#include "cache/entry.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

class PtxCacheEntries : public ::testing::Test {
protected:
    static RegisteredKernel scale_kernel() {
        Registration r;
        r.functions = {"scaleKernel"};
        r.params = {"SCALE=2,3"};
        r.block_size = "128";
        r.grid = "(n+127)/128";
        r.tolerance = {"exact"};
        GrammarOptions options;
        options.functions = r.functions;
        options.params.push_back(parse_param_declaration("SCALE=2,3", "--param"));
        options.block_size = r.block_size;
        return make_registered_kernel(
            make_source_file("scale.cu", "#define SCALE 2\n__global__ void scaleKernel(float* out, int n) {\n"
                                         "    int i = blockIdx.x * 128 + threadIdx.x;\n    if (i < n) out[i] = SCALE;\n}\n"),
            r, options);
    }
    static Provenance evolved() {
        Provenance p;
        p.origin = "evolved";
        p.cases_validated = 1;
        p.elements_validated = 64;
        p.worst_error = 0;
        return p;
    }
};

TEST_F(PtxCacheEntries, SayWhyTheyCannotShip) {
    EXPECT_EQ(ptx_edits_refusal(parse_genome("SCALE=3 <_k.cu_3>")), "");
    EXPECT_EQ(ptx_edits_refusal(parse_genome("SCALE=3 ptx:del(2) ptx:swap(4,5)")),
              "its PTX edits (ptx:del(2) ptx:swap(4,5)) ship only where the wrapper is compiled through gi-tool "
              "nvcc-launcher (the CMake module does that with gi-tool, for a .cu kernel registered alone in its file, "
              "under Ninja or Makefiles; configure says why not)");
}

TEST_F(PtxCacheEntries, AreKeptWhenWrittenAndValidWhenFound) {
    const RegisteredKernel k = scale_kernel();
    const CacheEntry entry = make_cache_entry(k, 90, parse_genome("SCALE=3 ptx:del(2) ptx:swap(4,5)"), evolved());
    EXPECT_EQ(entry.genome, "SCALE=3 ptx:del(2) ptx:swap(4,5)");
    EXPECT_EQ(entry.architecture, 90);  // with the genome, what a replay needs
    const fs::path dir = fs::temp_directory_path() / ("gi-ptx-cache-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path path = dir / cache_entry_file_name(entry.registration.functions, 90);
    write_cache_entry(path, entry);
    const EntryCheck check = check_cache_entry(path, k, 90);
    fs::remove_all(dir);
    EXPECT_EQ(check.status, EntryStatus::Valid) << check.summary();
    ASSERT_TRUE(check.variant.has_value());
    EXPECT_NE(check.variant->source.find("#define SCALE 3"), std::string::npos) << check.variant->source;
}

}  // namespace
}  // namespace gi
