// Genomes with PTX edits (issue 46) and the cache: the build compiles the variant's source, so an
// entry with PTX edits would build another program than the one evolved. It is refused when written
// and reported invalid when found, naming the edits, never used with them dropped.
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
              "its PTX edits (ptx:del(2) ptx:swap(4,5)) cannot be shipped yet: the build compiles the variant's source "
              "with nvcc, and shipping the edited PTX is not implemented (issue 46)");
}

TEST_F(PtxCacheEntries, AreRefusedWhenWritten) {
    const RegisteredKernel k = scale_kernel();
    EXPECT_NO_THROW(make_cache_entry(k, 90, parse_genome("SCALE=3"), evolved()));
    try {
        make_cache_entry(k, 90, parse_genome("SCALE=3 ptx:del(2)"), evolved());
        FAIL() << "an entry with a PTX edit was made";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("ptx:del(2)) cannot be shipped yet"), std::string::npos) << e.what();
    }
}

TEST_F(PtxCacheEntries, AreInvalidWhenFound) {
    const RegisteredKernel k = scale_kernel();
    // As a gi-tool that could ship them would write it: sealed, so no hand edit is reported.
    CacheEntry entry = make_cache_entry(k, 90, parse_genome("SCALE=3"), evolved());
    entry.genome = "SCALE=3 ptx:del(2)";
    seal(entry);
    const fs::path dir = fs::temp_directory_path() / ("gi-ptx-cache-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path path = dir / cache_entry_file_name(entry.registration.functions, 90);
    write_cache_entry(path, entry);
    const EntryCheck check = check_cache_entry(path, k, 90);
    fs::remove_all(dir);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    ASSERT_EQ(check.reasons.size(), 1u);
    EXPECT_NE(check.reasons[0].find("its PTX edits (ptx:del(2)) cannot be shipped yet"), std::string::npos) << check.reasons[0];
    EXPECT_FALSE(check.variant.has_value());
}

}  // namespace
}  // namespace gi
