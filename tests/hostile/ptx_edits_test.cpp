// Hostile PTX and PTX edits (issue 46): whatever text the parser gets (truncated, shuffled, binary)
// and whatever edits a genome names, the answer is the text back, an edited text or a gi::Error
// naming the problem; never a crash, a hang or a silent wrong edit.
#include <gtest/gtest.h>

#include "../ptx/ptx_sample.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_module.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace gi {
namespace {

TEST(HostilePtx, MangledTextParsesBackExactlyOrIsRefusedWithALine) {
    Rng rng(4646);
    const std::string& sample = ptx_test::kSamplePtx;
    int refused = 0;
    for (int round = 0; round < 400; ++round) {
        std::string text = sample;
        switch (round % 4) {
            case 0: text = text.substr(0, rng.index(text.size())); break;  // cut anywhere
            case 1:  // bytes overwritten, NULs and braces among them
                for (int k = 0; k < 5; ++k) text[rng.index(text.size())] = "\0{};%@<>\n\xff"[rng.index(10)];
                break;
            case 2: text.erase(rng.index(text.size()), rng.index(40)); break;
            default: text.insert(rng.index(text.size()), text.substr(rng.index(text.size() / 2), rng.index(80))); break;
        }
        try {
            const PtxModule m = parse_ptx(text, "mangled.ptx");
            EXPECT_EQ(print_ptx(m), text);
            // Edits on whatever parsed: applied or refused with a message, never a crash.
            for (std::size_t i = 0; i < m.instructions.size() && i < 6; ++i) {
                const std::string a = std::to_string(i), b = std::to_string(rng.index(m.instructions.size()));
                for (const std::string& item : {"ptx:del(" + a + ")", "ptx:copy(" + a + "," + b + ")", "ptx:move(" + a + "," + b + ")",
                                                "ptx:swap(" + a + "," + b + ")", "ptx:opnd(" + a + ",0,%r1)"}) {
                    try {
                        apply_ptx_edits(m, parse_genome(item).edits);
                    } catch (const Error& e) {
                        EXPECT_NE(std::string(e.what()).find("PTX edit " + item), std::string::npos) << e.what();
                    }
                }
            }
        } catch (const Error& e) {
            ++refused;
            EXPECT_NE(std::string(e.what()).find("mangled.ptx:"), std::string::npos) << e.what();
        }
    }
    EXPECT_GT(refused, 0);
}

TEST(HostilePtx, HugeAndOddIndexesAreRefusedNotWrapped) {
    const PtxModule m = parse_ptx(ptx_test::kSamplePtx, "sample.ptx");
    for (const char* genome : {"ptx:del(999999999)", "ptx:copy(5,999999999)", "ptx:opnd(5,999999999,%r1)"})
        EXPECT_THROW(apply_ptx_edits(m, parse_genome(genome).edits), Error) << genome;
    for (const char* text : {"ptx:del(1234567890)", "ptx:del(+1)", "ptx:del( 1)", "ptx:opnd(1,0,%)", "ptx:opnd(1,0,%1r)",
                             "ptx:swap(1,2,3)", "ptx:()", "ptx:del()"})
        EXPECT_THROW(parse_genome(text), Error) << text;
}

}  // namespace
}  // namespace gi
