// gi-worker's other messages as both ends see them (worker/case_messages.hpp).
#include "worker/case_messages.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi::worker {
namespace {

TEST(CaseMessages, EachRoundTripsEveryField) {
    const Ready ready{"NVIDIA H200", 90, 132, 62914560, 150323855360ull, 13000};
    EXPECT_EQ(ready_from(to_message(ready)), ready);
    const LoadCase load{3, "/cases/k-0001", false, {"exact", "abs=0.001", "rel=1e-05"}, "/dev/shm/ref/case-3.ref",
                        std::string(64, 'a'), std::string(64, 'b')};
    EXPECT_EQ(load_case_from(to_message(load)), load);
    const CaseLoaded loaded{3, 8, 1u << 30, "off: loading the comparison kernel failed", "rejected", "size differs", "1,0"};
    EXPECT_EQ(case_loaded_from(to_message(loaded)), loaded);
    const CheckVariants check{"/cases/small-0001", "gi_guarded::k", "/tmp/list.tsv"};
    EXPECT_EQ(check_variants_from(to_message(check)), check);
    const CheckVariants guarded{"/cases/small-0001", "k", "/tmp/list.tsv", 262144};
    EXPECT_EQ(check_variants_from(to_message(guarded)), guarded);
    const CheckVariants together{"/cases/small-0001", "k", "/tmp/list.tsv", 0, 8};
    EXPECT_EQ(check_variants_from(to_message(together)), together);
    // Side by side with guard zones, or fewer than one at once, is no request the worker can serve.
    Message both = to_message(together);
    both.fields["guard-bytes"] = "4096";
    EXPECT_THROW(check_variants_from(both), Error);
    Message none = to_message(together);
    none.fields["side-by-side"] = "0";
    EXPECT_THROW(check_variants_from(none), Error);
    const CheckVariants paged{"/cases/small-0001", "k", "/tmp/list.tsv", 262144, 1, true};
    EXPECT_EQ(check_variants_from(to_message(paged)), paged);
    EXPECT_EQ(to_message(paged).fields.at("guard-pages"), "1");
    EXPECT_EQ(to_message(guarded).fields.count("guard-pages"), 0u);  // an older worker reads the request as before
    // Guard pages belong to the guard zones' run; without zones there is no such run to shape.
    Message pages_alone = to_message(check);
    pages_alone.fields["guard-pages"] = "1";
    EXPECT_THROW(check_variants_from(pages_alone), Error);
    Message pages_two = to_message(paged);
    pages_two.fields["guard-pages"] = "2";
    EXPECT_THROW(check_variants_from(pages_two), Error);
    const Checked checked{2, "variant 3: the kernel failed: CUDA_ERROR_ILLEGAL_ADDRESS", 1.5, 2.25, 0.1, 3.125, 7.75};
    EXPECT_EQ(checked_from(to_message(checked)), checked);
    const Checked outside{0, "variant 1 wrote outside its buffers", 0, 1, 2, 3, 0,
                          "buffer 1 (output, kernel argument 0): 4072 of the 262144 bytes after its end changed", true,
                          (std::uint64_t{3} << 32) + 5};  // past 32 bits: a kept case of several GB
    EXPECT_EQ(checked_from(to_message(outside)), outside);
}

TEST(CaseMessages, ControlMessagesAndErrorsAreTheSameOnBothEnds) {
    EXPECT_EQ(hello_message().type, "hello");
    EXPECT_TRUE(hello_message().fields.empty());
    EXPECT_EQ(quit_message().type, "quit");
    EXPECT_EQ(unload_case_from(to_message(UnloadCase{4})), UnloadCase{4});
    EXPECT_EQ(case_unloaded_message(4), (Message{"case-unloaded", {{"slot", "4"}}, {}}));
    EXPECT_THROW(unload_case_from(Message{"unload-case", {{"slot", "four"}}, {}}), Error);
    EXPECT_THROW(unload_case_from(to_message(ErrorReply{"x"})), Error);
    const ErrorReply fatal{"cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS", true};
    EXPECT_EQ(error_reply_from(to_message(fatal)), fatal);
    EXPECT_EQ(to_message(ErrorReply{"no case loaded in slot 2"}).fields.count("fatal"), 0u);
    // Any reply reads as one: a reply without the fields says nothing and is not fatal.
    EXPECT_EQ(error_reply_from(Message{"result", {}, {}}), ErrorReply{});
}

TEST(CaseMessages, ALoadWithoutAReferenceOffersNone) {
    LoadCase load;
    load.slot = 0;
    load.path = "/cases/k-0000";
    const Message m = to_message(load);
    EXPECT_EQ(m.fields.count("reference"), 0u);
    EXPECT_EQ(m.get("verify"), "1");
    EXPECT_TRUE(load_case_from(m).tolerances.empty());
}

TEST(CaseMessages, TheWrongMessageOrAMalformedNumberIsRefused) {
    EXPECT_THROW(ready_from(Message{"error", {{"message", "no GPU"}}, {}}), Error);
    EXPECT_THROW(ready_from(Message{"ready", {{"compute-capability", "ninety"}}, {}}), Error);
    EXPECT_THROW(checked_from(Message{"checked", {{"ran", "two"}}, {}}), Error);
    EXPECT_THROW(check_variants_from(Message{"check-variants", {{"guard-bytes", "-1"}}, {}}), Error);
    EXPECT_THROW(case_loaded_from(Message{"result", {}, {}}), Error);
}

}  // namespace
}  // namespace gi::worker
