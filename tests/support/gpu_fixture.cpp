#include "gpu_fixture.hpp"

#include <cstring>
#include <random>

#include "worker/case_messages.hpp"
#include "worker/worker_process.hpp"

namespace gi::gpu_test {
namespace fs = std::filesystem;

std::string worker_path() {
    const fs::path candidate = fs::path(GI_TOOL_PATH).parent_path() / "gi-worker";
    return fs::exists(candidate) ? candidate.string() : "";
}

const std::string& gpu_unavailable_reason() {
    static const std::string reason = []() -> std::string {
        const std::string worker = worker_path();
        if (worker.empty()) return "no CUDA toolkit at build time: gi-worker was not built";
        try {
            worker::WorkerProcess w({worker, {}, {}, {}});
            const worker::Message reply = w.request(worker::hello_message(), std::chrono::seconds(60));
            if (reply.type == "error") return "no usable GPU: " + worker::error_reply_from(reply).message;
            return "";
        } catch (const std::exception& e) {
            return std::string("no CUDA driver or device: gi-worker cannot start (") + e.what() + ")";
        }
    }();
    return reason;
}

TestCase scale_case(int n) {
    TestCase tc;
    tc.kernel = "scale";
    tc.grid = {static_cast<std::uint32_t>((n + 255) / 256), 1, 1};
    tc.block = {256, 1, 1};
    CaseBuffer out;
    out.size = static_cast<std::uint64_t>(n) * 4;
    out.element = ElementType::F32;
    out.read_only = false;
    out.changed = true;
    out.before = Bytes(out.size, 0);
    CaseBuffer in = out;
    in.read_only = true;
    in.changed = false;
    std::vector<float> values(static_cast<std::size_t>(n));
    std::mt19937 rng(7);
    for (auto& v : values) v = std::uniform_real_distribution<float>(0.5f, 1.5f)(rng);
    std::memcpy(in.before.data(), values.data(), in.size);
    in.after = in.before;
    for (auto& v : values) v *= 2.0f;
    out.after.resize(out.size);
    std::memcpy(out.after.data(), values.data(), out.size);
    tc.buffers = {out, in};
    CaseArg a0;
    a0.kind = CaseArg::Kind::Pointer;
    a0.size = 8;
    a0.element = ElementType::F32;
    a0.buffer = 0;
    CaseArg a1 = a0;
    a1.buffer = 1;
    a1.is_const = true;
    CaseArg a2;
    a2.kind = CaseArg::Kind::Scalar;
    a2.size = 4;
    a2.element = ElementType::I32;
    a2.value.resize(4);
    std::memcpy(a2.value.data(), &n, 4);
    tc.args = {a0, a1, a2};
    return tc;
}

CudaEvaluatorOptions fake_worker_options(const std::filesystem::path& cases, int spare_workers) {
    CudaEvaluatorOptions o;
    o.cases = cases;
    o.function = "scale";
    o.block = "BLOCK";
    o.grid = "ceil(n/BLOCK)";
    o.worker = std::filesystem::read_symlink("/proc/self/exe").string();
    o.timeout_margin_ms = 300;  // generous: the fake replies at once, a loaded CI machine may not
    o.spare_workers = spare_workers;
    o.arch = "sm_90";
    o.set_aside = 0;  // every case is a training case; the set-aside tests ask for it
    return o;
}

TempFolder::TempFolder() {
    std::random_device device;
    path_ = fs::temp_directory_path() / ("gi-gpu-test-" + std::to_string(device()));
    fs::create_directories(path_);
}

TempFolder::~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

}  // namespace gi::gpu_test
