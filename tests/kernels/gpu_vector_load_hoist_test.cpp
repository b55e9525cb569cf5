// Two transformations on the corpus kernels written to need them (issue 46): vec_<file>_<line> on
// kernels/frame_corr (float4 loads of a thread's own frame where it starts aligned) and
// hoist_<file>_<line> on kernels/channel_gamma (a column's gain computed once, not once a row). The
// variant gi-tool writes is built into the kernel's own driver by nvcc, and the driver checks every
// output against its CPU reference (PASS) at the gate case's sizes, the held-out's (frames that
// start unaligned) and the training size. The grammar part runs anywhere; the builds and runs skip
// without a GPU. Whether they pay: bench/transform-pays.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../grammar/grammar_test_util.hpp"
#include "../support/corpus_driver.hpp"
#include "../support/gpu_fixture.hpp"
#include "../support/toolkit.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

Grammar corpus_grammar(const std::string& kernel) {
    GrammarOptions options;
    options.functions = {kernel};
    return build_grammar(read_source_file(std::filesystem::path(GI_SOURCE_DIR) / "kernels" / kernel / (kernel + ".cu")), options);
}

// The one gene of `grammar` whose name starts with `prefix`.
std::string gene_named(const Grammar& grammar, const std::string& prefix) {
    std::string found;
    for (const Gene& gene : grammar.genes)
        if (gene.name.rfind(prefix, 0) == 0) {
            EXPECT_TRUE(found.empty()) << "two genes start with " << prefix << ": " << found << ", " << gene.name;
            found = gene.name;
        }
    return found;
}

void expect_driver_passes(const std::string& kernel, const std::vector<std::pair<std::string, std::string>>& variants,
                          const std::vector<std::vector<std::string>>& runs) {
    gpu_test::TempFolder folder;
    for (std::size_t v = 0; v < variants.size(); ++v) {
        const auto& [genome, source] = variants[v];
        SCOPED_TRACE(genome);
        const std::filesystem::path file = folder.path() / (kernel + ".cu");
        std::ofstream(file) << source;
        const std::filesystem::path binary = folder.path() / ("driver_" + std::to_string(v));
        const ProcessResult built = test::build_corpus_driver(kernel, file, binary);
        ASSERT_TRUE(built.succeeded()) << built.out << built.err;
        for (const std::vector<std::string>& args : runs) {
            const ProcessResult run = test::run_corpus_driver(binary, args);
            EXPECT_TRUE(run.succeeded()) << run.out << run.err;
            EXPECT_NE(run.out.find("\nPASS\n"), std::string::npos) << run.out << run.err;
        }
    }
}

TEST(GpuVectorLoad, FrameCorrVectorisedPassesTheDriversCheck) {
    const Grammar grammar = corpus_grammar("frame_corr");
    const std::string gene = gene_named(grammar, "vec_frame_corr.cu_");
    ASSERT_FALSE(gene.empty()) << "frame_corr's frame loop is not offered the vec gene";
    std::vector<std::pair<std::string, std::string>> variants;
    for (const std::string width : {"2", "4"}) {
        const AppliedVariant variant = apply_genome(parse_genome(gene + "=" + width), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
        for (const char* p : {"a", "b"})
            EXPECT_NE(variant.source.find("*reinterpret_cast<const float" + width + "*>(" + p + " + k)"), std::string::npos)
                << "both signals are read " << width << " at a time: " << variant.source;
        variants.emplace_back(gene + "=" + width, variant.source);
    }
    GI_REQUIRE_GPU();
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc to build the driver";
    expect_driver_passes("frame_corr", variants,
                         {{"--frames", "37", "--frame", "30", "--seed", "3", "--reps", "3"},
                          {"--frames", "1000", "--frame", "257", "--seed", "7", "--reps", "3"},
                          {"--frames", "32768", "--frame", "256", "--reps", "3"}});
}

TEST(GpuHoist, ChannelGammaHoistedPassesTheDriversCheck) {
    const Grammar grammar = corpus_grammar("channel_gamma");
    const std::string gene = gene_named(grammar, "hoist_channel_gamma.cu_");
    ASSERT_FALSE(gene.empty()) << "channel_gamma's gain declaration is not offered the hoist gene";
    const AppliedVariant variant = apply_genome(parse_genome(gene + "=1"), grammar);
    ASSERT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    const std::size_t gain = variant.source.find("float g = powf(channel_gain[col], gamma);");
    const std::size_t loop = variant.source.find("for (int r = 0; r < rows; ++r)");
    ASSERT_NE(gain, std::string::npos) << variant.source;
    ASSERT_NE(loop, std::string::npos) << variant.source;
    EXPECT_LT(gain, loop) << "the gain is computed before the row loop: " << variant.source;
    GI_REQUIRE_GPU();
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc to build the driver";
    expect_driver_passes("channel_gamma", {{gene + "=1", variant.source}},
                         {{"--rows", "37", "--cols", "300", "--seed", "3", "--reps", "3"},
                          {"--rows", "1000", "--cols", "3001", "--seed", "7", "--reps", "3"},
                          {"--rows", "4096", "--cols", "8192", "--reps", "3"}});
}

}  // namespace
}  // namespace gi
