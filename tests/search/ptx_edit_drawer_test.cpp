// PTX edits as mutations (issue 46): at rate 0 the source drawer alone; at rate 1 PTX edits on the
// kernel's entry, its PTX compiled once per source part; without PTX, the source drawer's edits.
#include <gtest/gtest.h>

#include "../ptx/ptx_sample.hpp"
#include "ptx/ptx_module.hpp"
#include "search/ptx_edit_drawer.hpp"

namespace gi {
namespace {

EditDrawer scripted_source_drawer() {
    return [](const Genome&, Rng& rng) -> std::optional<Edit> {
        return Edit{Edit::Op::Delete, "_k.cu_" + std::to_string(rng.index(100)), ""};
    };
}

TEST(PtxEditDrawer, AtRateZeroDrawsAsTheSourceDrawer) {
    int compiles = 0;
    const EditDrawer drawer = with_ptx_edits(scripted_source_drawer(), [&](const Genome&) {
        ++compiles;
        return std::make_shared<const PtxModule>(parse_ptx(ptx_test::kSamplePtx));
    }, "scale", 0.0);
    Rng a(7), b(7);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(drawer(Genome{}, a), scripted_source_drawer()(Genome{}, b));
    EXPECT_EQ(compiles, 0);
}

TEST(PtxEditDrawer, AtRateOneDrawsPtxEditsOnTheKernelCompilingEachSourceOnce) {
    std::vector<std::string> compiled;
    const EditDrawer drawer = with_ptx_edits(scripted_source_drawer(), [&](const Genome& part) {
        compiled.push_back(genome_to_text(part));
        return std::make_shared<const PtxModule>(parse_ptx(ptx_test::kSamplePtx));
    }, "scale", 1.0);
    const PtxModule sample = parse_ptx(ptx_test::kSamplePtx);
    Rng rng(3);
    for (const char* genome : {"BLOCK=64 ptx:del(5)", "BLOCK=64", "BLOCK=64 ptx:swap(6,7)"})
        for (int i = 0; i < 30; ++i) {
            const std::optional<Edit> edit = drawer(parse_genome(genome), rng);
            ASSERT_TRUE(edit && is_ptx_edit(*edit));
            EXPECT_EQ(sample.instructions[static_cast<std::size_t>(std::stoi(edit->target))].function, 1);  // the kernel, not _Z3twof
        }
    // The three genomes share their source part, so its PTX was compiled once, without PTX edits.
    EXPECT_EQ(compiled, (std::vector<std::string>{"BLOCK=64"}));
}

TEST(PtxEditDrawer, WithoutPtxTheSourceDrawerAnswers) {
    const EditDrawer drawer = with_ptx_edits(scripted_source_drawer(), [](const Genome&) { return nullptr; }, "scale", 1.0);
    Rng rng(1);
    const std::optional<Edit> edit = drawer(Genome{}, rng);
    ASSERT_TRUE(edit);
    EXPECT_FALSE(is_ptx_edit(*edit));
    // A kernel the PTX has no entry for: the same.
    const EditDrawer other = with_ptx_edits(scripted_source_drawer(), [](const Genome&) {
        return std::make_shared<const PtxModule>(parse_ptx(ptx_test::kSamplePtx));
    }, "no_such_kernel", 1.0);
    EXPECT_FALSE(is_ptx_edit(*other(Genome{}, rng)));
}

}  // namespace
}  // namespace gi
