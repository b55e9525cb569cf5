#include "fake_worker_fixture.hpp"

#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "compile/nvrtc_compiler.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "variant/apply.hpp"

namespace gi::gpu_test {

void FakeWorkerEvaluatorTest::set_up(const char* kernel_text, const std::string& block_values, int cases) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    kernel_ = folder_.path() / "scale.cu";
    std::ofstream(kernel_) << kernel_text;
    GrammarOptions options;
    options.functions = {"scale"};
    options.params = {parse_param_declaration("BLOCK=" + block_values, "--param")};
    grammar_ = build_grammar(read_source_file(kernel_), options);
    for (int c = 0; c < cases; ++c) write_test_case(scale_case((1 << 12) >> c), folder_.path() / "cases");
    log_ = folder_.path() / "workers.log";
    ::setenv("GI_FAKE_WORKER", "replay", 1);
    ::setenv("GI_FAKE_LOG", log_.c_str(), 1);
}

void FakeWorkerEvaluatorTest::add_variable_to_cases(const std::string& name, std::uint64_t bytes, bool constant) {
    for (const std::filesystem::path& folder : list_test_cases(folder_.path() / "cases")) {
        TestCase tc = read_test_case(folder);
        CaseBuffer variable;
        variable.size = bytes;
        variable.read_only = constant;
        variable.variable = name;
        variable.before = variable.after = Bytes(bytes, 0);
        tc.buffers.push_back(std::move(variable));
        std::filesystem::remove_all(folder);
        write_test_case(tc, folder_.path() / "cases");
    }
}

void FakeWorkerEvaluatorTest::TearDown() {
    ::unsetenv("GI_FAKE_WORKER");
    ::unsetenv("GI_FAKE_LOG");
}

CudaEvaluatorOptions FakeWorkerEvaluatorTest::options(int spare_workers) const {
    return fake_worker_options(folder_.path() / "cases", spare_workers);
}

Variant FakeWorkerEvaluatorTest::with_block(const std::string& block) const {
    Genome g;
    set_gene(g, "BLOCK", block);
    return make_variant(g, grammar_);
}

std::vector<FakeWorkerEvent> FakeWorkerEvaluatorTest::events() const {
    std::vector<FakeWorkerEvent> out;
    std::ifstream in(log_);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        FakeWorkerEvent e;
        words >> e.pid >> e.what >> e.slot >> e.detail;
        out.push_back(e);
    }
    return out;
}

std::string FakeWorkerEvaluatorTest::passing_sanitizer(const std::filesystem::path& log) const {
    const std::filesystem::path script = folder_.path() / "passing-sanitizer";
    std::ofstream(script) << "#!/bin/sh\nfor a; do list=$a; done\n"
                          << "while read -r line; do echo \"$2\" >> '" << log.string() << "'; done < \"$list\"\n"
                          << "echo \"gi-worker: ran $(grep -c . \"$list\") variant(s)\"\nexit 0\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    return script.string();
}

std::string FakeWorkerEvaluatorTest::session_sanitizer(const std::string& process_body) const {
    const std::filesystem::path script = folder_.path() / "session-sanitizer";
    std::ofstream(script) << "#!/bin/sh\n"
                          << "GI_FAKE_SANITIZER_TOOL=$2; export GI_FAKE_SANITIZER_TOOL\n"
                          << "case \"$*\" in *--log-file*)\n"
                          << "  while [ \"$1\" != --log-file ]; do shift; done; GI_FAKE_SANITIZER_LOG=$2; export GI_FAKE_SANITIZER_LOG\n"
                          << "  for a; do worker=$a; done; exec \"$worker\" ;;\nesac\n"
                          << "for a; do list=$a; done\n"
                          << process_body;
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    return script.string();
}

}  // namespace gi::gpu_test
