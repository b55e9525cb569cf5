// NVRTC's own processes: the request and reply as both ends see them (compile/nvrtc_messages.hpp).
#include "compile/nvrtc_messages.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

TEST(NvrtcMessages, ARequestRoundTripsEveryField) {
    DeviceCompileRequest r;
    r.source = "__global__ void k() {}\n// any bytes: \n\\ \0 x";
    r.name = "stereo.cu";
    r.options = {"-DX=1", "--ptxas-options=-dlcm=ca", "line\nbreak"};
    r.arch = "sm_80";
    r.include_dirs = {"/k", "/usr/local/cuda/include"};
    r.name_expressions = {"kernel<32>", "gi_guarded::kernel<32>"};
    r.headers = {{"a.h", "#pragma once\nint a;"}, {"sub/b.h", ""}, {"c.h", "int c;"}};
    const DeviceCompileRequest back = compile_request_from(to_message(r));
    EXPECT_EQ(back.source, r.source);
    EXPECT_EQ(back.name, r.name);
    EXPECT_EQ(back.options, r.options);
    EXPECT_EQ(back.arch, r.arch);
    EXPECT_EQ(back.include_dirs, r.include_dirs);
    EXPECT_EQ(back.name_expressions, r.name_expressions);
    EXPECT_EQ(back.headers, r.headers);
}

TEST(NvrtcMessages, AResultRoundTripsAndARefusalThrows) {
    DeviceCompileResult r;
    r.ok = true;
    r.cubin = std::string("\x7f" "ELF\0\1", 6);
    r.log = "warning: x";
    r.compiler = "nvrtc";
    r.ms = 12.5;
    const DeviceCompileResult back = compile_result_from(to_message(r));
    EXPECT_TRUE(back.ok);
    EXPECT_EQ(back.cubin, r.cubin);
    EXPECT_EQ(back.log, r.log);
    EXPECT_DOUBLE_EQ(back.ms, 12.5);
    try {
        compile_result_from({"refused", {{"message", "NVRTC refused the options (-rdc)"}}, {}});
        FAIL() << "a refusal was taken for a result";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "NVRTC refused the options (-rdc)");
    }
}

TEST(NvrtcMessages, MalformedRequestsAreRefused) {
    DeviceCompileRequest r;
    r.source = "int x;";
    r.headers = {{"a.h", "int a;"}};
    worker::Message m = to_message(r);
    m.payload.pop_back();  // shorter than its sizes say
    EXPECT_THROW(compile_request_from(m), Error);
    m = to_message(r);
    m.payload += "x";  // longer
    EXPECT_THROW(compile_request_from(m), Error);
    m = to_message(r);
    m.fields.erase("header-bytes.0");
    EXPECT_THROW(compile_request_from(m), Error);
    EXPECT_THROW(compile_request_from({"run", {}, {}}), Error);
    DeviceCompileResult ok;
    ok.ok = true;  // but no cubin
    EXPECT_THROW(compile_result_from(to_message(ok)), Error);
}

}  // namespace
}  // namespace gi
