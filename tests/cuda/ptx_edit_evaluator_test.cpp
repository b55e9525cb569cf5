// A variant with PTX edits evaluated end to end without a GPU (issue 46): gi_tests stands in for
// gi-worker (tests/support/fake_worker.cpp, mode "replay", which logs every variant run) and the
// compiles are real: NVRTC gives the source's PTX, the edits are applied, ptxas assembles it.
#include <gtest/gtest.h>

#include <algorithm>

#include "../support/fake_worker_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "cuda/variant_builder.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_module.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

class PtxEditedVariants : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "256,1024"); }

    // The index of the first instruction of the original's PTX whose opcode starts with `opcode`.
    int instruction(const std::string& opcode) const {
        DeviceCompileRequest request;
        request.source = gpu_test::kScaleKernel;
        request.ptx = true;
        const DeviceCompileResult r = compile_with_nvrtc(request);
        EXPECT_TRUE(r.ok) << r.log;
        const PtxModule m = parse_ptx(r.ptx);
        for (std::size_t i = 0; i < m.instructions.size(); ++i)
            if (m.instructions[i].opcode.rfind(opcode, 0) == 0) return static_cast<int>(i);
        ADD_FAILURE() << "no " << opcode << " in\n" << r.ptx;
        return 0;
    }

    long variant_runs() const {
        const std::vector<gpu_test::FakeWorkerEvent> log = events();
        return std::count_if(log.begin(), log.end(), [](const gpu_test::FakeWorkerEvent& e) { return e.what == "variant"; });
    }
};

TEST_F(PtxEditedVariants, AreBuiltFromTheSourcesPtxAndRun) {
    const std::string store = std::to_string(instruction("st.global"));
    const Variant original = with_block("256");
    const Variant no_store = make_variant(parse_genome("ptx:del(" + store + ")"), grammar_);
    const Variant mixed = make_variant(parse_genome("BLOCK=1024 ptx:del(" + store + ")"), grammar_);
    // PTX edits make another program of the same source: another key, so no measurement is shared.
    EXPECT_EQ(no_store.source.substr(no_store.source.find('\n')), original.source.substr(original.source.find('\n')));
    EXPECT_NE(no_store.key, original.key);
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({original, no_store, mixed}, 0);
    ASSERT_EQ(r.results.size(), 3u);
    for (const EvalResult& result : r.results) EXPECT_EQ(result.status, EvalStatus::Ok) << result.detail;
    // All three ran: the deleted store made a binary of its own (binary duplicates run once).
    EXPECT_EQ(variant_runs(), 3);
    // The mixed genome's source part (BLOCK=1024) reached the worker: the fake saw its block size.
    const std::vector<gpu_test::FakeWorkerEvent> log = events();
    EXPECT_TRUE(std::any_of(log.begin(), log.end(),
                            [](const gpu_test::FakeWorkerEvent& ev) { return ev.what == "variant" && ev.detail.rfind("1024", 0) == 0; }));
}

TEST_F(PtxEditedVariants, AnEditThatCannotApplyIsACompileErrorNamingIt) {
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({make_variant(parse_genome("ptx:del(100000)"), grammar_),
                                      make_variant(parse_genome("ptx:opnd(" + std::to_string(instruction("st.global")) + ",0,%f1)"), grammar_)},
                                     0);
    ASSERT_EQ(r.results.size(), 2u);
    EXPECT_EQ(r.results[0].status, EvalStatus::CompileError);
    EXPECT_NE(r.results[0].detail.find("ptx:del(100000)"), std::string::npos) << r.results[0].detail;
    EXPECT_NE(r.results[0].detail.find("past the PTX's"), std::string::npos) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::CompileError);  // the store's address is .b64, %f1 .f32
    EXPECT_NE(r.results[1].detail.find("is .f32"), std::string::npos) << r.results[1].detail;
    EXPECT_EQ(variant_runs(), 0);
}

TEST(PtxEditsFlag, CarriesOnlyThePtxEdits) {
    EXPECT_TRUE(ptx_edits_flag(parse_genome("BLOCK=64 <_k.cu_3>")).empty());
    EXPECT_EQ(ptx_edits_flag(parse_genome("BLOCK=64 ptx:del(3) <_k.cu_3> ptx:swap(1,2)")),
              (std::vector<std::string>{"--gi-ptx-edits=ptx:del(3) ptx:swap(1,2)"}));
    EXPECT_TRUE(VariantBuilder::has_ptx_edits({"-O3", "--gi-ptx-edits=ptx:del(3)"}));
    EXPECT_FALSE(VariantBuilder::has_ptx_edits({"-O3"}));
}

}  // namespace
}  // namespace gi
