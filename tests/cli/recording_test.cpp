// `gi-tool record` with its launch intercept (issue 42): the environment the program runs with,
// the kernel's signature read from its source, and what the error says when nothing was recorded.
#include <gtest/gtest.h>

#include <map>

#include "cli/recording.hpp"

namespace gi::cli {
namespace {

std::map<std::string, std::string> as_map(const std::vector<std::pair<std::string, std::string>>& variables) {
    return {variables.begin(), variables.end()};
}

RecordingRequest intercept_request() {
    RecordingRequest request;
    request.program = {"./reduction", "--n", "1000"};
    request.out = "/tmp/cases";
    request.recorded_name = "reduce6";
    request.limit = 4;
    request.with = RecordWith::Intercept;
    request.intercept_library = "/opt/gi/bin/libgi-intercept.so";
    request.signature = std::vector<std::string>{"const float*", "float*", "unsigned int"};
    return request;
}

TEST(RecordingEnvironment, TheInterceptIsPreloadedAheadOfTheCallersAndGiLaunchStandsAside) {
    const auto variables = as_map(recording_environment(intercept_request(), "/tmp/cases/.tmp-record-x", "libfaketime.so"));
    EXPECT_EQ(variables.at("LD_PRELOAD"), "/opt/gi/bin/libgi-intercept.so:libfaketime.so");
    EXPECT_EQ(variables.at("GI_RECORD_BY"), "intercept");
    EXPECT_EQ(variables.at("GI_RECORD_FUNCTION"), "reduce6");
    EXPECT_EQ(variables.at("GI_RECORD_SIGNATURE"), "const float*;float*;unsigned int");
    EXPECT_EQ(variables.at("GI_RECORD_DIR"), "/tmp/cases/.tmp-record-x");
    EXPECT_EQ(variables.at("GI_RECORD_KNOWN_DIR"), "/tmp/cases");
    EXPECT_EQ(variables.at("GI_RECORD_LIMIT"), "4");
    EXPECT_EQ(as_map(recording_environment(intercept_request(), "/f", "")).at("LD_PRELOAD"),
              "/opt/gi/bin/libgi-intercept.so");
}

TEST(RecordingEnvironment, RecordingWithGiLaunchPreloadsNothing) {
    RecordingRequest request = intercept_request();
    request.with = RecordWith::Launch;
    const auto variables = as_map(recording_environment(request, "/f", "libfaketime.so"));
    EXPECT_EQ(variables.count("LD_PRELOAD"), 0u);
    EXPECT_EQ(variables.count("GI_RECORD_FUNCTION"), 0u);
    EXPECT_EQ(variables.at("GI_RECORD_BY"), "launch");  // an outer intercept's setting does not silence gi::launch
    EXPECT_EQ(variables.at("GI_RECORD_DIR"), "/f");
}

TEST(RecordingEnvironment, AnExternCKernelsSignatureComesFromItsSource) {
    const std::string file = std::string(GI_SOURCE_DIR) + "/tests/corpus/extern_c.cu";
    EXPECT_EQ(source_signature(file, "vector_add", "record"),
              (std::vector<std::string>{"float*", "const float*", "const float*", "int"}));
    EXPECT_EQ(source_signature(file, "vector_scale", "record"), (std::vector<std::string>{"float*", "float", "int"}));
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(source_signature(file, "no_such_kernel", "record"), std::nullopt);
    EXPECT_NE(::testing::internal::GetCapturedStderr().find("could not be read"), std::string::npos);
}

RecordingResult ran_and_exited_0() {
    RecordingResult result;
    result.process.exit_code = 0;
    return result;
}

TEST(RecordingProblem, NothingRecordedListsTheKernelsTheProgramLaunched) {
    RecordingResult result = ran_and_exited_0();
    result.launched = {"reduce5<float>", "reduce6<float,256u,true>"};
    RecordingRequest request = intercept_request();
    request.recorded_name = "reduce7";
    const std::string why = recording_problem(request, result, 0);
    EXPECT_NE(why.find("recorded no launch of 'reduce7': the program launched reduce5<float>, reduce6<float,256u,true> "
                       "but not 'reduce7'"),
              std::string::npos)
        << why;
    result.launched.clear();
    EXPECT_NE(recording_problem(request, result, 0).find("the launch intercept saw no kernel launched"), std::string::npos);
    // Recording with gi::launch: the old advice.
    request.with = RecordWith::Launch;
    EXPECT_NE(recording_problem(request, result, 0).find("through gi::launch(kernel, \"reduce7\""), std::string::npos);
}

TEST(RecordingProblem, ALaunchTheInterceptCouldNotRecordFailsTheRun) {
    RecordingResult result = ran_and_exited_0();
    result.added = {"/tmp/cases/.tmp-record-x/reduce6-0000"};
    result.intercept_errors = {"gi-intercept recording 'reduce6': argument 0 points to host memory; ..."};
    const std::string why = recording_problem(intercept_request(), result, 0);
    EXPECT_NE(why.find("` ran, and its launches of 'reduce6' cannot be recorded:\n  gi-intercept recording 'reduce6': "
                       "argument 0 points to host memory"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("--record-with launch"), std::string::npos) << why;
    // A program that failed after the intercept refused a launch: the refusal is what it says.
    result.process.exit_code = 1;
    EXPECT_NE(recording_problem(intercept_request(), result, 0).find("` failed, and its launches of 'reduce6' cannot be "
                                                                     "recorded"),
              std::string::npos);
    result.process.exit_code = 0;
    result.intercept_errors.clear();
    EXPECT_EQ(recording_problem(intercept_request(), result, 0), "");
}

}  // namespace
}  // namespace gi::cli
