// The cuda evaluator's worker management without a GPU: gi_tests itself stands in for gi-worker
// (fake_worker.cpp, mode "replay"). Variants that hang or crash cost their worker; the
// replacements come from spares that took the original's outputs from the hand-over file, so the
// original runs once per case in the whole run, and a damaged hand-over file is refused and the
// reference recomputed, never used.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "genome/genome.hpp"
#include "../support/fake_worker_fixture.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

using Event = gpu_test::FakeWorkerEvent;

class SpareWorkers : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "128,256,512", 2); }
    // Every variant runs, twins of the same program too: these tests count the runs' restarts.
    CudaEvaluatorOptions options() const {
        CudaEvaluatorOptions o = FakeWorkerEvaluatorTest::options(2);
        o.reuse_binary_duplicates = false;
        return o;
    }

    Variant with_block(const std::string& block, const std::string& comment) const {
        Genome g;
        set_gene(g, "BLOCK", block);
        Variant v = make_variant(g, grammar_);
        // Distinct keys, so no variant is taken for a repeat of another.
        v.source += "\n// " + comment + "\n";
        v.key += comment;
        return v;
    }

    // ok, hang, ok, crash, ok
    std::vector<Variant> batch(const std::string& tag) const {
        return {with_block("256", tag + "a"), with_block("512", tag + "b"), with_block("256", tag + "c"),
                with_block("128", tag + "d"), with_block("256", tag + "e")};
    }

    fs::path reference_file(int slot) const {
        for (const Event& ev : events())
            if (ev.what == "reference-written" && ev.slot == std::to_string(slot)) return ev.detail;
        return {};
    }
    int count(const std::string& what, const std::string& slot) const {
        int n = 0;
        for (const Event& e : events()) n += e.what == what && e.slot == slot;
        return n;
    }

    static void expect_statuses(const BatchResult& r) {
        ASSERT_EQ(r.results.size(), 5u);
        EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
        EXPECT_EQ(r.results[1].status, EvalStatus::Timeout) << r.results[1].detail;
        EXPECT_EQ(r.results[2].status, EvalStatus::Ok) << r.results[2].detail;
        EXPECT_EQ(r.results[3].status, EvalStatus::Crash) << r.results[3].detail;
        EXPECT_EQ(r.results[4].status, EvalStatus::Ok) << r.results[4].detail;
    }

    void expect_a_bad_hand_over_refused(const std::function<void(const fs::path&)>& spoil) {
        CudaEvaluator e(grammar_, options());
        expect_statuses(e.evaluate(batch("x"), 0));
        const fs::path file = reference_file(0);
        ASSERT_FALSE(file.empty());
        spoil(file);
        const int computed_before = count("original-computed", "0");
        expect_statuses(e.evaluate(batch("y"), 1));
        expect_statuses(e.evaluate(batch("z"), 0));
        EXPECT_GE(e.stats().workers.references_rejected, 1);
        EXPECT_GE(e.stats().workers.references_recomputed, 1);
        EXPECT_GT(count("original-computed", "0"), computed_before);
        const long rejected = e.stats().workers.references_rejected;
        expect_statuses(e.evaluate(batch("w"), 0));
        expect_statuses(e.evaluate(batch("v"), 1));
        expect_statuses(e.evaluate(batch("u"), 0));
        EXPECT_EQ(e.stats().workers.references_rejected, rejected);
    }
};

TEST_F(SpareWorkers, ReplacementsTakeTheOriginalsOutputsInsteadOfRunningIt) {
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate(batch("x"), 0);
    expect_statuses(r);
    EXPECT_TRUE(r.original.valid());
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.workers.worker_restarts, 2);
    EXPECT_EQ(s.runs.timeouts, 1);
    EXPECT_EQ(s.spares.ready + s.spares.waited, 2);
    EXPECT_EQ(s.workers.cold_starts, 0);
    EXPECT_EQ(s.workers.references_recomputed, 0);
    EXPECT_EQ(s.workers.references_rejected, 0);
    EXPECT_GE(s.workers.references_loaded, 2);
    EXPECT_GT(s.workers.restart_ms, 0);
    EXPECT_EQ(count("original-computed", "0"), 1);  // once in the whole run, by the first worker
    EXPECT_EQ(count("reference-written", "0"), 1);

    // Another case, then back: the first is still handed over, its original never run again.
    EXPECT_EQ(e.stats().workers.case_loads, 2);  // the first worker's, checking the original on both cases
    expect_statuses(e.evaluate(batch("y"), 1));
    EXPECT_EQ(e.stats().workers.case_loads, 3);  // case 1 on the worker in use, adopted before spares had it
    expect_statuses(e.evaluate(batch("z"), 0));
    EXPECT_EQ(count("original-computed", "0"), 1);
    EXPECT_EQ(count("original-computed", "1"), 1);
    EXPECT_EQ(e.stats().workers.references_recomputed, 0);
    EXPECT_EQ(e.stats().workers.worker_restarts, 6);
    // The worker adopted while on case 1 kept case 0 as a spare: back on it, nothing to load.
    EXPECT_EQ(e.stats().workers.case_loads, 3);
}

// Case 0's hand-over file is spoilt (or removed) after case 0, then case 1 and case 0 again: the
// spares started since load case 0 too (they keep every case given), are offered the file, refuse
// it and run the original themselves when adopted; variants are still judged right, and a file
// once refused is never offered again.
TEST_F(SpareWorkers, DamagedHandOverIsRefusedAndTheOriginalRecomputed) {
    expect_a_bad_hand_over_refused([](const fs::path& file) {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-3, std::ios::end);
        f.put('\x01');  // one byte of the outputs
    });
}

TEST_F(SpareWorkers, MissingHandOverIsRefusedAndTheOriginalRecomputed) {
    expect_a_bad_hand_over_refused([](const fs::path& file) { fs::remove(file); });
}

TEST_F(SpareWorkers, WithoutSparesEveryReplacementStartsCold) {
    CudaEvaluatorOptions o = options();
    o.spare_workers = 0;
    CudaEvaluator e(grammar_, o);
    expect_statuses(e.evaluate(batch("x"), 0));
    EXPECT_EQ(e.stats().workers.cold_starts, 2);
    // Cold starts still load the handed-over outputs rather than run the original.
    EXPECT_EQ(e.stats().workers.references_recomputed, 0);
    EXPECT_EQ(count("original-computed", "0"), 1);
}

}  // namespace
}  // namespace gi
