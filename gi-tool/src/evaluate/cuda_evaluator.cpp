#include "evaluate/cuda_evaluator.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "compare/tolerance.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_cache.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "evaluate/cuda_classify.hpp"
#include "launch/geometry.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/process.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using worker::Message;

namespace {

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A fixed set of compile threads fed from a queue; futures carry the results back.
class CompilePool {
public:
    explicit CompilePool(int threads) {
        for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
    }
    ~CompilePool() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }
    std::shared_future<DeviceCompileResult> submit(std::function<DeviceCompileResult()> job) {
        std::packaged_task<DeviceCompileResult()> task(std::move(job));
        auto future = task.get_future().share();
        {
            std::lock_guard lock(mutex_);
            queue_.push_back(std::move(task));
        }
        wake_.notify_one();
        return future;
    }

private:
    void loop() {
        for (;;) {
            std::packaged_task<DeviceCompileResult()> task;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
                if (queue_.empty()) return;
                task = std::move(queue_.front());
                queue_.pop_front();
            }
            task();
        }
    }
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::packaged_task<DeviceCompileResult()>> queue_;
    std::vector<std::thread> threads_;
    bool stopping_ = false;
};

// The unedited kernel: the grammar's pieces at their original values reproduce the file.
std::string original_source(const Grammar& grammar) {
    std::string out;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::RuleSlot) out += grammar.rules.at(static_cast<std::size_t>(piece.index)).text;
        else out += piece.text;
    }
    return out;
}

std::string dims_text(const Dim3& d) { return to_string(d); }

}  // namespace

std::string find_worker_program() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (const fs::path& candidate : {self.parent_path() / "gi-worker", self.parent_path() / "worker" / "gi-worker",
                                          self.parent_path().parent_path() / "gi-tool" / "gi-worker"})
            if (fs::exists(candidate)) return candidate.string();
    }
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        std::string dir;
        while (std::getline(dirs, dir, ':'))
            if (!dir.empty() && fs::exists(fs::path(dir) / "gi-worker")) return (fs::path(dir) / "gi-worker").string();
    }
    return "";
}

bool ValidationReport::passed() const {
    for (const auto& c : cases)
        if (c.status != EvalStatus::Ok || c.mismatches > 0) return false;
    return true;
}

std::string ValidationReport::summary() const {
    int held = 0;
    for (const auto& c : cases) held += c.held_out ? 1 : 0;
    std::ostringstream out;
    out << "validated " << cases.size() << " case(s) (" << held << " held out): " << elements << " output elements, "
        << mismatches << " beyond tolerance, worst error " << worst_error << (passed() ? "" : " -- FAILED");
    return out.str();
}

struct CudaEvaluator::Impl {
    struct Slot {
        fs::path path;
        TestCase manifest;                  // no data: the worker reads the blobs
        std::vector<std::string> tolerances;  // per buffer, as text
        bool held_out = false;
        bool used = false;                  // drawn by evaluate()
        double original_ms = 0;             // the original's median time here (0 = not yet)
        std::string poisonable;             // which outputs the original overwrites entirely (learnt once)
    };

    CudaEvaluatorOptions options;
    std::string function;
    std::vector<std::string> arg_names;
    NameValues param_defaults;
    std::vector<std::pair<std::string, std::string>> numeric_params;  // name, default
    LaunchGeometry geometry;
    ToleranceSpec tolerance;
    std::string original;
    int original_barriers = 0;
    std::vector<Slot> slots;
    int training = 0;
    std::string worker_program;

    std::unique_ptr<worker::WorkerProcess> worker;
    std::set<int> loaded, referenced;
    // A second worker started ahead of need with the current case loaded, so a variant that kills
    // its worker costs a swap, not a CUDA start-up and a case load.
    // Several, because a CUDA context takes longer to create than a failing variant takes to fail.
    std::deque<std::unique_ptr<worker::WorkerProcess>> spares;
    int spare_case = -1;
    std::set<int> verified;  // cases whose checksums a worker has already checked
    std::string device;
    std::string arch;

    CompiledCodeCache cache;
    std::unique_ptr<CompilePool> pool;
    bool use_nvrtc = nvrtc_available();
    bool compiler_decided = false;
    std::shared_ptr<DeviceCompileResult> original_cubin;
    std::map<std::string, EvalResult> sanitized;  // by variant key
    CudaEvaluatorStats stats;

    explicit Impl(CudaEvaluatorOptions o) : options(std::move(o)), cache(options.compile_cache) {}

    // ---- worker -------------------------------------------------------------------------
    worker::WorkerOptions worker_options() const {
        worker::WorkerOptions wo;
        wo.executable = worker_program;
        return wo;
    }

    Message load_message(int index) const {
        const Slot& slot = slots.at(static_cast<std::size_t>(index));
        Message m{"load-case",
                  {{"slot", std::to_string(index)}, {"path", slot.path.string()}, {"verify", verified.count(index) ? "0" : "1"}},
                  {}};
        for (std::size_t b = 0; b < slot.tolerances.size(); ++b) m.fields["tolerance" + std::to_string(b)] = slot.tolerances[b];
        return m;
    }

    void start_worker(int want_case = -1) {
        if (worker && worker->running()) return;
        if (worker) ++stats.worker_restarts;
        worker.reset();
        loaded.clear();
        referenced.clear();
        if (want_case >= 0 && adopt_spare(want_case)) {
            prepare_spare(want_case);
            return;
        }
        worker = std::make_unique<worker::WorkerProcess>(worker_options());
        Message reply;
        try {
            reply = worker->request({"hello", {}, {}}, std::chrono::seconds(120));
        } catch (const worker::WorkerFailure& e) {
            throw Error(std::string("the GPU worker failed to start: ") + e.what());
        }
        if (reply.type == "error") throw Error("cannot use the GPU: " + reply.get("message"));
        device = reply.get("device");
        if (arch.empty()) arch = options.arch.empty() ? "sm_" + reply.get("compute-capability") : options.arch;
    }

    // Tops the spare workers for `index` up to options.spare_workers (their requests are
    // pipelined; the replies are read when one is adopted).
    void prepare_spare(int index) {
        if (spare_case != index) {
            for (auto& w : spares) w->kill();
            spares.clear();
            spare_case = index;
        }
        while (static_cast<int>(spares.size()) < options.spare_workers) {
            try {
                auto w = std::make_unique<worker::WorkerProcess>(worker_options());
                w->send({"hello", {}, {}}, std::chrono::seconds(5));
                w->send(load_message(index), std::chrono::seconds(5));
                spares.push_back(std::move(w));
            } catch (const std::exception&) {
                return;  // the main worker's path will report what is wrong
            }
        }
    }

    bool adopt_spare(int index) {
        if (spares.empty() || spare_case != index) return false;
        std::unique_ptr<worker::WorkerProcess> candidate = std::move(spares.front());
        spares.pop_front();
        const auto wait_start = Clock::now();
        struct WaitTimer {
            double& total;
            Clock::time_point start;
            ~WaitTimer() { total += ms_since(start); }
        } timer{stats.spare_wait_ms, wait_start};
        try {
            if (candidate->receive("hello", std::chrono::seconds(120)).type != "ready") return false;
            if (candidate->receive("load-case", std::chrono::seconds(300)).type != "case-loaded") return false;
        } catch (const worker::WorkerFailure&) {
            return false;
        }
        worker = std::move(candidate);
        loaded.insert(index);
        verified.insert(index);
        return true;
    }

    void drop_worker() {
        if (worker) worker->kill();
    }

    Message request(const Message& m, std::chrono::milliseconds timeout) {
        start_worker();
        return worker->request(m, timeout);
    }

    void ensure_loaded(int index) {
        start_worker(index);
        if (loaded.count(index)) return;
        Message reply;
        try {
            reply = worker->request(load_message(index), std::chrono::seconds(300));
        } catch (const worker::WorkerFailure& e) {
            throw Error(slots[index].path.string() + ": the GPU worker failed while loading this case: " + e.what());
        }
        if (reply.type != "case-loaded")
            throw Error(reply.get("message", "the GPU worker could not load " + slots[index].path.string()));
        loaded.insert(index);
        verified.insert(index);
    }

    Message run_message(int index, const std::string& role, const DeviceCompileResult& code, const ResolvedGeometry& g,
                        bool time) {
        Message m{"run",
                  {{"slot", std::to_string(index)},
                   {"role", role},
                   {"kernel", function},
                   {"grid", dims_text(g.grid)},
                   {"block", dims_text(g.block)},
                   {"shared", std::to_string(slots[index].manifest.shared_bytes)},
                   {"warmups", std::to_string(options.warmups)},
                   {"repetitions", std::to_string(options.repetitions)},
                   {"time", time ? "1" : "0"}},
                  code.cubin};
        return m;
    }

    // Establishes the original's reference on a case (once per worker) and returns its timing.
    Timing run_original(int index, bool time) {
        const auto start = Clock::now();
        const ResolvedGeometry g = resolve_geometry(geometry, slots[index].manifest, param_defaults, arg_names);
        for (int attempt = 0;; ++attempt) {
            ensure_loaded(index);
            const bool first = !referenced.count(index);
            Message m = run_message(index, "original", *original_cubin, g, time);
            // A probe with poisoned outputs may crash an original that reads its outputs; then
            // the case is replayed without poisoning.
            if (attempt > 0) m.fields["probe-poison"] = "0";
            if (first && !slots[index].poisonable.empty()) m.fields["poisonable"] = slots[index].poisonable;
            Message reply;
            try {
                reply = worker->request(m, std::chrono::seconds(300));
            } catch (const worker::WorkerFailure& e) {
                if (attempt == 0 && first) continue;
                throw Error(slots[index].path.string() + ": the original kernel did not run: " + e.what());
            }
            const RunVerdict v = classify_run_reply(reply);
            if (v.restart_worker) drop_worker();
            if (v.result.status != EvalStatus::Ok) {
                if (attempt == 0 && first && v.result.status == EvalStatus::Crash) continue;
                throw Error(slots[index].path.string() + ": the original kernel fails on this case: " + v.result.detail);
            }
            if (first && v.mismatches > 0)
                std::cerr << "gi-tool: note: " << slots[index].path.string() << ": on this GPU the original kernel's "
                          << "outputs differ from the recorded ones in " << v.mismatches << " of " << v.elements
                          << " elements (nondeterminism, or compiled with other options than the program's); "
                          << "variants are compared with this GPU's original\n";
            referenced.insert(index);
            if (first && slots[index].poisonable.empty()) slots[index].poisonable = reply.get("poisonable");
            stats.original_ms += ms_since(start);
            if (!time) return {};
            Timing t = summarise_timings(v.times_ms);
            slots[index].original_ms = t.median_ms;
            return t;
        }
    }

    // A variant's run request is answered in stages ("started" before its check launch, "checked"
    // after it, then the result), each with its own deadline: a hung kernel is killed after the
    // original's time x factor + margin, not after the allowance for the whole request.
    Message run_variant_request(int index, const Message& m) {
        using std::chrono::milliseconds;
        const double base = slots[index].original_ms > 0 ? slots[index].original_ms : 1000.0;
        const auto kernel_allowance = milliseconds(static_cast<long long>(options.timeout_margin_ms + options.timeout_factor * base));
        const auto rest = milliseconds(static_cast<long long>(
            5000 + options.timeout_margin_ms + options.timeout_factor * base * (options.warmups + options.repetitions)));
        worker->send(m, std::chrono::seconds(30));
        Message reply = worker->receive("run", std::chrono::seconds(30));  // module load and copies
        if (reply.type == "started") reply = worker->receive("run", kernel_allowance);
        if (reply.type == "checked") reply = worker->receive("run", rest);  // comparison and timed launches
        return reply;
    }

    // ---- compile ------------------------------------------------------------------------
    DeviceCompileResult compile_nvcc(const std::string& source, const std::vector<std::string>& flags) {
        const std::string key = compiled_code_key(source, flags, arch, "nvcc");
        if (auto hit = cache.get(key)) return *hit;
        NvccOptions no;
        no.nvcc = options.nvcc;
        no.arch = arch;
        no.include_dirs = options.include_dirs;
        NvccCompiler nvcc(no);
        TemporaryDirectory dir("gi-cuda-compile");
        const fs::path src = dir.path() / "variant.cu", out = dir.path() / "variant.cubin";
        {
            std::ofstream f(src, std::ios::binary);
            f << source;
        }
        const CompileOutcome outcome = nvcc.compile(src, out, flags, "variant.cu");
        DeviceCompileResult r;
        r.compiler = "nvcc";
        r.ms = outcome.seconds * 1000;
        r.log = outcome.status == CompileOutcome::Status::Ok ? outcome.log : outcome.first_errors;
        if (outcome.status == CompileOutcome::Status::Ok) {
            std::ifstream in(out, std::ios::binary);
            r.cubin.assign(std::istreambuf_iterator<char>(in), {});
            r.ok = !r.cubin.empty();
        }
        cache.put(key, r);
        return r;
    }

    DeviceCompileResult compile(const std::string& source, const std::vector<std::string>& flags) {
        if (use_nvrtc && nvrtc_options_for(flags)) {
            const std::string key = compiled_code_key(source, flags, arch, "nvrtc");
            if (auto hit = cache.get(key)) return *hit;
            DeviceCompileRequest request;
            request.source = source;
            request.options = flags;
            request.arch = arch;
            request.include_dirs = options.include_dirs;
            try {
                DeviceCompileResult r = compile_with_nvrtc(request);
                cache.put(key, r);
                return r;
            } catch (const Error&) {
                // NVRTC refused the options: nvcc takes them.
            }
        }
        return compile_nvcc(source, flags);
    }

    void prepare_original() {
        if (original_cubin) return;
        start_worker();
        if (!pool) pool = std::make_unique<CompilePool>(options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency()));
        DeviceCompileResult r = compile(original, {});
        if (!r.ok && use_nvrtc) {
            // Host code or headers NVRTC cannot take: the whole run compiles with nvcc.
            const std::string nvrtc_log = r.log;
            use_nvrtc = false;
            r = compile_nvcc(original, {});
            if (r.ok) std::cerr << "gi-tool: note: NVRTC cannot compile the kernel file (" << first_error_lines(nvrtc_log, 1)
                                << "); compiling variants with nvcc\n";
        }
        if (!r.ok) throw Error("the original kernel does not compile for " + arch + ":\n" + first_error_lines(r.log, 5));
        stats.compiler = use_nvrtc ? "nvrtc" : "nvcc";
        original_cubin = std::make_shared<DeviceCompileResult>(std::move(r));
    }

    std::shared_future<DeviceCompileResult> submit(const Variant& v) {
        std::string source = v.source;
        std::vector<std::string> flags = v.compile_options;
        return pool->submit([this, source = std::move(source), flags = std::move(flags)] { return compile(source, flags); });
    }

    NameValues params_of(const Genome& genome) const {
        NameValues values = param_defaults;
        for (const GeneSetting& s : genome.settings) {
            auto it = values.find(s.name);
            if (it == values.end()) continue;
            try {
                it->second = std::stoll(s.value);
            } catch (const std::exception&) {
                throw Error("gene " + s.name + "=" + s.value + " is not an integer, so it cannot size the launch");
            }
        }
        return values;
    }

    // One variant on one loaded, referenced case.
    RunVerdict run_variant(int index, const Variant& variant, const DeviceCompileResult& code, bool time) {
        RunVerdict v;
        if (!code.ok) {
            v.result.status = EvalStatus::CompileError;
            v.result.detail = first_error_lines(code.log, 3);
            return v;
        }
        ResolvedGeometry g;
        try {
            g = resolve_geometry(geometry, slots[index].manifest, params_of(variant.genome), arg_names);
        } catch (const Error& e) {
            v.result.status = EvalStatus::Crash;
            v.result.detail = std::string("launch geometry: ") + e.what();
            return v;
        }
        if (!referenced.count(index) || !worker || !worker->running()) run_original(index, false);
        const auto start = Clock::now();
        try {
            const Message reply = run_variant_request(index, run_message(index, "variant", code, g, time));
            v = classify_run_reply(reply);
        } catch (const worker::WorkerFailure& e) {
            v = classify_worker_failure(e);
            if (v.result.status == EvalStatus::Timeout) ++stats.timeouts;
        }
        stats.run_ms += ms_since(start);
        if (v.restart_worker) drop_worker();
        if (v.result.status == EvalStatus::Ok && time) v.result.time = summarise_timings(v.times_ms);
        return v;
    }
};

CudaEvaluator::CudaEvaluator(const Grammar& grammar, CudaEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
    Impl& s = *impl_;
    const Function* kernel = nullptr;
    for (const Function& f : grammar.functions)
        if (f.is_global && (s.options.function.empty() || f.name == s.options.function)) {
            kernel = &f;
            break;
        }
    if (!kernel)
        throw UsageError("--function: no __global__ function '" + s.options.function + "' in " + grammar.source_path);
    s.function = kernel->name;
    for (const KernelParameter& p : kernel->parameters) s.arg_names.push_back(p.name);
    for (const Gene& gene : grammar.genes) {
        if (gene.kind != GeneKind::Param || !gene.numeric) continue;
        try {
            s.param_defaults[gene.name] = std::stoll(gene.default_value);
        } catch (const std::exception&) {
        }
    }
    s.geometry = parse_launch_geometry(s.options.block, s.options.grid);
    s.tolerance = parse_tolerance_spec(s.options.tolerances, "--tolerance");
    s.original = original_source(grammar);
    s.original_barriers = count_barriers(s.original);
    if (s.options.include_dirs.empty()) {
        const fs::path folder = fs::path(grammar.source_path).parent_path();
        s.options.include_dirs.push_back(folder.empty() ? "." : folder.string());
    }

    if (s.options.cases.empty()) throw UsageError("--cases: the cuda evaluator needs a folder of recorded test cases");
    const std::string recorded = s.options.recorded_name.empty() ? s.function : s.options.recorded_name;
    auto add_cases = [&](const fs::path& dir, bool held_out) {
        std::vector<fs::path> found = list_test_cases(dir, recorded);
        if (found.empty()) found = list_test_cases(dir);
        for (const fs::path& path : found) {
            Impl::Slot slot;
            slot.path = path;
            slot.held_out = held_out;
            slot.manifest = read_test_case(path, CaseLoad::ManifestOnly);
            if (slot.manifest.args.size() != s.arg_names.size())
                throw Error(path.string() + ": the recorded launch passes " + std::to_string(slot.manifest.args.size()) +
                            " arguments but '" + s.function + "' takes " + std::to_string(s.arg_names.size()) +
                            " (were these cases recorded from another kernel?)");
            check_recorded_geometry(s.geometry, slot.manifest, s.param_defaults, s.arg_names);
            for (std::size_t b = 0; b < slot.manifest.buffers.size(); ++b) {
                std::vector<std::string> names;
                for (std::size_t a = 0; a < slot.manifest.args.size(); ++a)
                    if (slot.manifest.args[a].buffer == static_cast<int>(b)) {
                        names.push_back(s.arg_names[a]);
                        names.push_back("arg" + std::to_string(a));
                    }
                slot.tolerances.push_back(to_string(s.tolerance.for_names(names)));
            }
            s.slots.push_back(std::move(slot));
        }
    };
    add_cases(s.options.cases, false);
    s.training = static_cast<int>(s.slots.size());
    if (s.training == 0)
        throw Error(s.options.cases.string() + ": no recorded test cases for '" + recorded +
                    "' (run the program with GI_RECORD_DIR=" + s.options.cases.string() + ")");
    if (!s.options.held_out.empty()) add_cases(s.options.held_out, true);

    s.worker_program = s.options.worker.empty() ? find_worker_program() : s.options.worker;
    if (s.worker_program.empty())
        throw Error("cannot find gi-worker, the cuda evaluator's GPU process, next to gi-tool or on PATH "
                    "(build the gi-worker target, or pass --worker PATH)");
}

CudaEvaluator::~CudaEvaluator() {
    if (impl_->worker && impl_->worker->running()) {
        try {
            impl_->worker->request({"quit", {}, {}}, std::chrono::seconds(5));
        } catch (const std::exception&) {
        }
        impl_->worker->kill();
    }
    for (auto& w : impl_->spares) w->kill();
}

int CudaEvaluator::case_count() const { return impl_->training; }

const CudaEvaluatorStats& CudaEvaluator::stats() const { return impl_->stats; }

std::string CudaEvaluator::device_name() {
    impl_->start_worker();
    return impl_->device;
}

std::string CudaEvaluator::arch() {
    impl_->start_worker();
    return impl_->arch;
}

BatchResult CudaEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    Impl& s = *impl_;
    if (case_index < 0 || case_index >= s.training)
        throw Error("case index " + std::to_string(case_index) + " is out of range (the evaluator has " +
                    std::to_string(s.training) + " training cases)");
    s.prepare_original();
    s.slots[case_index].used = true;
    s.prepare_spare(case_index);

    // Compiles start at once and run on every core while the GPU works through the batch.
    std::vector<std::shared_future<DeviceCompileResult>> compiles;
    std::map<std::string, std::size_t> first_with_key;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (first_with_key.count(variants[i].key)) {
            compiles.emplace_back();
            continue;
        }
        first_with_key[variants[i].key] = i;
        compiles.push_back(s.submit(variants[i]));
    }

    BatchResult batch;
    batch.original = s.run_original(case_index, true);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::size_t first = first_with_key[variants[i].key];
        if (first != i) {
            batch.results.push_back(batch.results[first]);
            ++s.stats.duplicates;
            ++s.stats.variants;
            continue;
        }
        const auto wait_start = Clock::now();
        const DeviceCompileResult code = compiles[i].get();
        s.stats.compile_wait_ms += ms_since(wait_start);
        if (code.cached) ++s.stats.cache_hits;
        else {
            ++s.stats.compiled;
            s.stats.compile_cpu_ms += code.ms;
        }
        batch.results.push_back(s.run_variant(case_index, variants[i], code, true).result);
        ++s.stats.variants;
    }
    return batch;
}

EvalResult CudaEvaluator::sanitize(const Variant& variant, int case_index) {
    return sanitize_many({variant}, case_index).front();
}

std::vector<EvalResult> CudaEvaluator::sanitize_many(const std::vector<Variant>& variants, int case_index) {
    Impl& s = *impl_;
    std::vector<EvalResult> results(variants.size());
    std::map<std::string, std::size_t> first_with_key;
    std::vector<std::size_t> to_check;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (auto it = s.sanitized.find(variants[i].key); it != s.sanitized.end()) {
            results[i] = it->second;
        } else if (first_with_key.emplace(variants[i].key, i).second) {
            to_check.push_back(i);
        }
    }
    if (!to_check.empty()) {
        if (case_index < 0 || case_index >= static_cast<int>(s.slots.size()))
            throw Error("case index " + std::to_string(case_index) + " is out of range for sanitize()");
        const std::string sanitizer = find_compute_sanitizer(s.options.sanitizer);
        s.prepare_original();
        // Compiling happens here, one at a time (the variants were compiled for evaluate(), so these
        // are cache hits); only the sanitizer processes, which share nothing, run in parallel.
        std::vector<std::function<EvalResult()>> runs;
        std::vector<std::size_t> run_index;
        for (std::size_t i : to_check) {
            const Variant& variant = variants[i];
            const DeviceCompileResult code = s.compile(variant.source, variant.compile_options);
            if (!code.ok) {
                results[i].status = EvalStatus::CompileError;
                results[i].detail = first_error_lines(code.log, 3);
                continue;
            }
            const ResolvedGeometry g =
                resolve_geometry(s.geometry, s.slots[case_index].manifest, s.params_of(variant.genome), s.arg_names);
            std::vector<std::string> tools{"memcheck"};
            // Removing a barrier is the edit that makes races; only then pay for the slower checkers.
            if (count_barriers(variant.source) < s.original_barriers) {
                tools.push_back("racecheck");
                tools.push_back("synccheck");
            }
            const double base = s.slots[case_index].original_ms > 0 ? s.slots[case_index].original_ms : 100;
            std::vector<std::string> launch{s.worker_program, "--once",
                                            "--case", s.slots[case_index].path.string(), "--kernel", s.function,
                                            "--grid", dims_text(g.grid), "--block", dims_text(g.block), "--shared",
                                            std::to_string(s.slots[case_index].manifest.shared_bytes)};
            runs.push_back([sanitizer, tools, launch, base, cubin_bytes = code.cubin]() {
                TemporaryDirectory dir("gi-sanitize");
                const fs::path cubin = dir.path() / "variant.cubin";
                {
                    std::ofstream out(cubin, std::ios::binary);
                    out.write(cubin_bytes.data(), static_cast<std::streamsize>(cubin_bytes.size()));
                }
                constexpr int kErrorExit = 86;
                ProcessOptions po;
                po.timeout = std::chrono::milliseconds(static_cast<long long>(60000 + 1000 * base));
                EvalResult result;
                for (const std::string& tool : tools) {
                    std::vector<std::string> argv{sanitizer, "--tool", tool, "--error-exitcode", std::to_string(kErrorExit),
                                                  "--print-limit", "20"};
                    argv.insert(argv.end(), launch.begin(), launch.end());
                    argv.push_back("--cubin");
                    argv.push_back(cubin.string());
                    const ProcessResult pr = run_process(argv, po);
                    result = classify_sanitizer_exit(pr.exit_code, pr.timed_out, kErrorExit, pr.out + "\n" + pr.err, tool);
                    if (pr.signal != 0 && !pr.timed_out) {
                        result.status = EvalStatus::Crash;
                        result.detail = "compute-sanitizer " + tool + " was killed by signal " + std::to_string(pr.signal);
                    }
                    if (result.status != EvalStatus::Ok) break;
                }
                return result;
            });
            run_index.push_back(i);
        }
        // Several at once: each is a separate process with its own CUDA context, mostly waiting on
        // instrumentation; the gate runs between evaluate() calls, so no timed launch shares the GPU.
        const std::size_t parallel = std::max<std::size_t>(
            1, s.options.sanitize_jobs > 0 ? static_cast<std::size_t>(s.options.sanitize_jobs)
                                           : std::min<std::size_t>(8, std::max(1u, std::thread::hardware_concurrency()) / 2));
        for (std::size_t from = 0; from < runs.size(); from += parallel) {
            std::vector<std::future<EvalResult>> running;
            for (std::size_t k = from; k < std::min(runs.size(), from + parallel); ++k)
                running.push_back(std::async(std::launch::async, runs[k]));
            for (std::size_t k = 0; k < running.size(); ++k) results[run_index[from + k]] = running[k].get();
        }
        for (std::size_t i : to_check) s.sanitized[variants[i].key] = results[i];
    }
    for (std::size_t i = 0; i < variants.size(); ++i)
        if (auto it = first_with_key.find(variants[i].key); it != first_with_key.end() && it->second != i)
            results[i] = results[it->second];
    return results;
}

ValidationReport CudaEvaluator::validate(const Variant& variant) {
    Impl& s = *impl_;
    s.prepare_original();
    const DeviceCompileResult code = s.compile(variant.source, variant.compile_options);
    ValidationReport report;
    for (int index = 0; index < static_cast<int>(s.slots.size()); ++index) {
        const Impl::Slot& slot = s.slots[index];
        if (!slot.held_out && slot.used) continue;
        s.ensure_loaded(index);
        if (!s.referenced.count(index)) s.run_original(index, false);
        const RunVerdict v = s.run_variant(index, variant, code, false);
        CaseValidation c;
        c.case_path = slot.path.string();
        c.held_out = slot.held_out;
        c.status = v.result.status;
        c.elements = v.elements;
        c.mismatches = v.mismatches;
        c.worst_error = v.worst_error;
        c.error = v.result.error;
        c.detail = v.result.detail;
        report.elements += c.elements;
        report.mismatches += c.mismatches;
        report.worst_error = std::max(report.worst_error, c.worst_error);
        report.cases.push_back(std::move(c));
    }
    return report;
}

}  // namespace gi
