// PTX edits as mutations (issue 46): at rate 0 the source drawer alone; at rate 1 PTX edits on the
// kernel's entry, its PTX compiled once per source part; without PTX, the source drawer's edits.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

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

// A generation's parents' PTX compiled at once, each source part once, in parallel; the draws
// after it are the same as without it (it only fills the cache they read).
TEST(PtxEditDrawer, PrefetchCompilesEachParentsSourceOnceAtOnceAndChangesNoDraw) {
    std::mutex mutex;
    std::vector<std::string> compiled;
    std::atomic<int> running{0}, most{0};
    auto ptx_of = [&](const Genome& part) {
        const int now = ++running;
        for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a compile that takes a while
        --running;
        std::lock_guard lock(mutex);
        compiled.push_back(genome_to_text(part));
        return std::make_shared<const PtxModule>(parse_ptx(ptx_test::kSamplePtx));
    };
    const PtxEditDrawer drawer = ptx_edit_drawer(scripted_source_drawer(), ptx_of, "scale", 0.5, 4);
    ASSERT_TRUE(drawer.prefetch);
    const std::vector<Genome> parents{parse_genome("BLOCK=64"), parse_genome("BLOCK=64 ptx:del(5)"), parse_genome("BLOCK=128"),
                                      parse_genome("BLOCK=256"), parse_genome("BLOCK=32")};
    drawer.prefetch(parents);
    std::sort(compiled.begin(), compiled.end());
    EXPECT_EQ(compiled, (std::vector<std::string>{"BLOCK=128", "BLOCK=256", "BLOCK=32", "BLOCK=64"}));
    EXPECT_GT(most.load(), 1) << "the four parts compiled one after another";
    drawer.prefetch(parents);  // all known: nothing compiled again
    EXPECT_EQ(compiled.size(), 4u);

    // The same draws as a drawer that compiled nothing ahead.
    const EditDrawer plain = with_ptx_edits(scripted_source_drawer(), [](const Genome&) {
        return std::make_shared<const PtxModule>(parse_ptx(ptx_test::kSamplePtx));
    }, "scale", 0.5);
    Rng a(11), b(11);
    for (int i = 0; i < 50; ++i) {
        const Genome& parent = parents[static_cast<std::size_t>(i) % parents.size()];
        EXPECT_EQ(drawer.draw(parent, a), plain(parent, b));
    }
    EXPECT_EQ(compiled.size(), 4u);
    EXPECT_FALSE(ptx_edit_drawer(scripted_source_drawer(), ptx_of, "scale", 0.0).prefetch);
    EXPECT_FALSE(ptx_edit_drawer(scripted_source_drawer(), ptx_of, "scale", 0.0).stats);

    // What the drawer cost, for the run's note: four parts made (each 50 ms or more), two
    // prefetches, and draws that found every part made already.
    ASSERT_TRUE(drawer.stats);
    const PtxDrawerStats s = drawer.stats();
    EXPECT_EQ(s.parts_compiled, 4);
    EXPECT_GE(s.compile_s, 0.2);
    EXPECT_GE(s.prefetch_wall_s, 0.05);
    EXPECT_LT(s.prefetch_wall_s, s.compile_s) << "the parts were made side by side";
    EXPECT_GT(s.ptx_draws, 10);
    EXPECT_LT(s.ptx_draws, 50);
    EXPECT_EQ(s.ptx_edits, s.ptx_draws);  // every part has the kernel's entry
    EXPECT_LT(s.draw_wait_s, 0.05);
    const std::string note = describe(s, 0.5);
    EXPECT_NE(note.find("PTX edits (--ptx-edits 0.5): " + std::to_string(s.ptx_draws) + " draws went for one"), std::string::npos)
        << note;
    EXPECT_NE(note.find("the PTX of 4 source parts made in"), std::string::npos) << note;
}

// Without prefetching, each draw on a new source part waits while its PTX is made.
TEST(PtxEditDrawer, ItsStatsCountTheDrawsWaitForPtx) {
    const PtxEditDrawer drawer = ptx_edit_drawer(scripted_source_drawer(), [](const Genome&) -> std::shared_ptr<const PtxModule> {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return nullptr;  // no PTX: the source drawer answers
    }, "scale", 1.0);
    Rng rng(5);
    for (const char* genome : {"BLOCK=64", "BLOCK=64", "BLOCK=128"}) drawer.draw(parse_genome(genome), rng);
    const PtxDrawerStats s = drawer.stats();
    EXPECT_EQ(s.ptx_draws, 3);
    EXPECT_EQ(s.ptx_edits, 0);
    EXPECT_EQ(s.parts_compiled, 2);
    EXPECT_GE(s.draw_wait_s, 0.04);
    EXPECT_EQ(s.prefetch_wall_s, 0.0);
}

}  // namespace
}  // namespace gi
