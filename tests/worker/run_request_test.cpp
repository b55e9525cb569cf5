// The run request as both ends see it (worker/run_request.hpp).
#include "worker/run_request.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi::worker {
namespace {

RunSpec full() {
    RunSpec s;
    s.slot = 3;
    s.role = "original";
    s.kernel = "MatrixMulCUDA<32>";
    s.grid = Dim3{20, 240, 1};
    s.block = Dim3{32, 8, 2};
    s.shared_bytes = 49152;
    s.warmups = 1;
    s.repetitions = 7;
    s.launches_per_time = 16;
    s.time = false;
    s.probe_poison = false;
    s.probe_unchanged = false;
    s.announce_probe = true;
    s.poisonable = "w1024r0u0:0-4096,0,w512r12u500:0-2048,w0r0u64i";
    s.reference_out = "/dev/shm/gi-ref/case-3.ref";
    s.guard_budget_us = 12345;
    s.guard_bytes = 4;
    s.payload = std::string("GUARPLAIN\0bytes", 15);
    return s;
}

TEST(RunSpec, RoundTripsEveryField) {
    EXPECT_EQ(run_spec_from(to_message(full())), full());
    RunSpec paired;
    paired.slot = 0;
    paired.kernel = "scale";
    paired.guard_paired = true;
    paired.guard_budget_us = 1;
    paired.payload = "cubin";
    EXPECT_EQ(run_spec_from(to_message(paired)), paired);
}

TEST(RunSpec, ALaunchLeftOutIsTheCases) {
    const RunSpec s = run_spec_from(Message{"run", {{"slot", "1"}, {"kernel", "k"}}, "cubin"});
    EXPECT_FALSE(s.grid.has_value());
    EXPECT_FALSE(s.block.has_value());
    EXPECT_FALSE(s.shared_bytes.has_value());
    EXPECT_EQ(s.role, "variant");
    EXPECT_TRUE(s.time);
    EXPECT_TRUE(s.probe_poison);
    EXPECT_TRUE(s.probe_unchanged);
    EXPECT_FALSE(s.announce_probe);  // only a client that asks is told "probing"
    EXPECT_EQ(s.launches_per_time, 1);
}

TEST(RunSpec, MalformedRequestsAreRefusedNamingTheField) {
    Message m = to_message(full());
    m.fields["grid"] = "20,x";
    try {
        run_spec_from(m);
        FAIL() << "a malformed grid was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'grid'"), std::string::npos) << e.what();
    }
    m = to_message(full());
    m.fields["guard-bytes"] = "1000";  // beyond the payload
    EXPECT_THROW(run_spec_from(m), Error);
    m = to_message(full());
    m.fields["guard-paired"] = "1";  // with guard-bytes
    EXPECT_THROW(run_spec_from(m), Error);
    for (const char* launches : {"0", "1001", "-3"}) {
        m = to_message(full());
        m.fields["launches-per-time"] = launches;
        try {
            run_spec_from(m);
            ADD_FAILURE() << "launches-per-time=" << launches << " was read";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("launches-per-time"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(parse_dim3("1,2,3,4", "block"), Error);
    EXPECT_THROW(parse_dim3("0", "block"), Error);
    EXPECT_EQ(parse_dim3("7", "block"), (Dim3{7, 1, 1}));
}

}  // namespace
}  // namespace gi::worker
