#include "cuda/variant_builder.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "compile/cubin_sections.hpp"
#include "compile/device_link.hpp"
#include "compile/nvcc_compiler.hpp"
#include "process/process.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/long_wait.hpp"
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"
#include "variant/shared_guard.hpp"
#include "variant/paired_build.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {

// The most one NVRTC compile in its own process may take before it is killed and the variant
// judged a compile error. In process there was no limit; stereo's slowest variants compile in
// seconds, so this only stops a compiler that hangs.
constexpr long kNvrtcTimeoutMs = 300000;

const std::vector<std::string> kStrictFlags = {"--diag-error=940"};  // missing return statement

// `source` with `names` (a template kernel's instantiations; none for a plain kernel) instantiated:
// nvcc only emits the instantiations something names, and a variant's own may be named by no code
// in the file (or by host code set aside), a kernel in a header by none at all.
std::string instantiating(const std::string& source, const std::vector<std::string>& names) {
    if (names.empty()) return source;
    const bool paired = source.find(std::string("namespace ") + kGuardedNamespace) != std::string::npos;
    std::string text = source + "\nstatic void* const gi_tuned_instantiation[] = {";
    for (const std::string& name : names) {
        text += "(void*)&" + name + ", ";
        if (paired) text += "(void*)&" + std::string(kGuardedNamespace) + "::" + name + ", ";
    }
    return text + "};\n";
}

}  // namespace

VariantBuilder::VariantBuilder(const CudaEvaluatorOptions& options, std::string arch, std::string original, std::string function,
                               std::vector<std::string> instantiations, fs::path kernel_dir)
    : options_(options),
      arch_(std::move(arch)),
      original_(std::move(original)),
      function_(std::move(function)),
      instantiations_(std::move(instantiations)),
      kernel_dir_(std::move(kernel_dir)),
      cache_(options.compile_cache),
      use_nvrtc_(nvrtc_available() && !options.nvcc_only),
      nvrtc_processes_(options.nvrtc_server.empty()
                           ? nullptr
                           : std::make_unique<NvrtcProcesses>(NvrtcProcessOptions{options.nvrtc_server,
                                                                                  std::chrono::milliseconds(kNvrtcTimeoutMs),
                                                                                  options.compile_launcher, options.launcher_retries,
                                                                                  options.compile_launcher_option})),
      pool_(std::make_unique<CompilePool>(options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())))) {}

BuildStats VariantBuilder::stats() const {
    BuildStats s = stats_;
    s.guard_options = fast_guard_builds() ? guard_extra_flags_.front() : "";
    if (nvrtc_processes_) s.nvrtc_processes = nvrtc_processes_->stats();
    return s;
}

// `headers`: device sides of project headers that stand in for the files (device_side_differs).
DeviceCompileResult VariantBuilder::compile_nvcc(const std::string& source, const std::vector<std::string>& flags,
                                                 const std::vector<ProjectHeader>& headers) {
    std::string keyed = source;
    for (const ProjectHeader& h : headers) keyed += "\n// gi-header " + h.include_name + "\n" + h.device_side;
    const std::string key = compiled_code_key(keyed, flags, arch_, "nvcc");
    if (auto hit = cache_.get(key)) return *hit;
    NvccOptions no;
    no.nvcc = options_.nvcc;
    no.arch = arch_;
    no.include_dirs = options_.include_dirs;
    TemporaryDirectory dir("gi-cuda-compile");
    if (!headers.empty()) {
        // Found before the real ones, as NVRTC finds its in-memory headers by name first.
        const fs::path stand_ins = dir.path() / "gi-project-headers";
        for (const ProjectHeader& h : headers) {
            fs::create_directories((stand_ins / h.include_name).parent_path());
            std::ofstream(stand_ins / h.include_name, std::ios::binary) << h.device_side;
        }
        no.include_dirs.insert(no.include_dirs.begin(), stand_ins.string());
    }
    NvccCompiler nvcc(no);
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
    make_loadable(r);
    cache_.put(key, r);
    return r;
}

// -rdc=true (separable compilation) gives relocatable device code: linked alone, as the program's
// device link would, before anything loads it (compile/device_link.hpp). A file that needs another
// translation unit's symbols fails here, saying which.
void VariantBuilder::make_loadable(DeviceCompileResult& r) const {
    if (!r.ok || !is_relocatable_cubin(r.cubin)) return;
    DeviceLinkResult linked = link_device_code(r.cubin, arch_, options_.nvcc);
    r.ok = linked.ok;
    r.cubin = std::move(linked.cubin);
    if (!linked.ok) r.log = linked.log;
}

std::optional<VariantBuilder::NvrtcJob> VariantBuilder::nvrtc_job(const std::string& source, const std::vector<std::string>& flags,
                                                                   const std::string& instance) const {
    DeviceCompileRequest request;
    request.source = source;
    if (device_side_) {
        std::optional<DeviceSide> cut = device_side_of(source, "variant.cu");
        if (!cut) return std::nullopt;  // unbalanced brackets: nvcc's verdict
        request.source = std::move(cut->source);
        request.headers = device_side_headers_;
    }
    // A paired build holds the template twice: its guarded copy's instantiations too.
    std::vector<std::string> names = instantiations_;
    if (!instance.empty() && std::find(names.begin(), names.end(), instance) == names.end()) names.push_back(instance);
    if (source.find(std::string("namespace ") + kGuardedNamespace) != std::string::npos)
        for (std::size_t k = 0, n = names.size(); k < n; ++k) names.push_back(std::string(kGuardedNamespace) + "::" + names[k]);
    std::vector<std::string> keyed = flags;
    for (const std::string& name : names) keyed.push_back("--name-expression=" + name);
    // The cut project headers are part of what NVRTC compiled (a --compile-cache outlives
    // the run, and the headers may change while the kernel file does not).
    if (device_side_) keyed.insert(keyed.end(), project_side_key_.begin(), project_side_key_.end());
    const std::string key = compiled_code_key(request.source, keyed, arch_, device_side_ ? "nvrtc-device-side" : "nvrtc");
    request.options = flags;
    request.arch = arch_;
    request.include_dirs = options_.include_dirs;
    request.name_expressions = names;
    return NvrtcJob{std::move(request), key};
}

DeviceCompileResult VariantBuilder::compile(const std::string& source, const std::vector<std::string>& flags, bool whole_file,
                                            const std::string& instance) {
    if (has_ptx_edits(flags)) return compile_ptx_edited(source, flags, instance);
    if (use_nvrtc_ && !whole_file && nvrtc_options_for(flags)) {
        std::optional<NvrtcJob> job = nvrtc_job(source, flags, instance);
        if (!job) return compile_nvcc(source, flags);
        if (auto hit = cache_.get(job->key)) return *hit;
        try {
            DeviceCompileResult r = nvrtc_processes_ ? nvrtc_processes_->compile(job->request) : compile_with_nvrtc(job->request);
            make_loadable(r);
            cache_.put(job->key, r);
            return r;
        } catch (const CompileLauncherError&) {
            throw;  // the launcher, not the variant: the run stops
        } catch (const Error&) {
            // NVRTC refused the options: nvcc takes them.
        }
    }
    // The recorded cases' instantiations too: a template kernel defined in a header has no host code
    // in its file to instantiate them, and validation with nvcc found none in the module (issue 40's
    // reduction sample). Names a file's own code cannot take (an instantiation in an anonymous
    // namespace, say) fall back to the variant's own.
    std::vector<std::string> names = instantiations_;
    if (!instance.empty() && std::find(names.begin(), names.end(), instance) == names.end()) names.push_back(instance);
    if (names.size() > (instance.empty() ? 0u : 1u)) {
        DeviceCompileResult all = compile_nvcc(instantiating(source, names), flags);
        if (all.ok) return all;
    }
    return compile_nvcc(instantiating(source, instance.empty() ? std::vector<std::string>{} : std::vector<std::string>{instance}),
                        flags);
}

// Whether cutting the host code out changes no device code: nvcc builds the whole original and
// its device side, and every kernel and module section of the second must be in the first
// byte for byte. Template kernels that only host code instantiated are instantiated by address.
std::string VariantBuilder::device_side_differs(const DeviceSide& cut) {
    std::string text = cut.source;
    if (!instantiations_.empty()) {
        text += "\nstatic void* const gi_device_side_instantiations[] = {";
        for (const std::string& name : instantiations_) text += "(void*)&" + name + ", ";
        text += "};\n";
    }
    const DeviceCompileResult whole = compile_nvcc(original_, options_.compile_options);
    const DeviceCompileResult part = compile_nvcc(text, options_.compile_options, project_side_);
    if (!whole.ok || !part.ok) return "nvcc does not compile its device side alone: " + first_error_lines(part.log, 1);
    try {
        if (!same_device_code(part.cubin, whole.cubin)) return "nvcc builds different device code from the file without its host code";
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

DeviceCompileResult VariantBuilder::prepare() {
    if (use_nvrtc_ && !nvrtc_options_for(options_.compile_options)) {
        // Said, since it costs: nvcc compiles a variant 2-8x slower (issue 19: the consumer
        // example's -diag-suppress=177 sent stereo's every compile to nvcc, unnoticed).
        std::string first;
        for (const std::string& o : options_.compile_options)
            if (!nvrtc_options_for({o})) {
                first = o;
                break;
            }
        nvrtc_refusal_ = "NVRTC has no equivalent of the compile option '" + first + "'";
        std::cerr << "gi-tool: note: " << nvrtc_refusal_ << "; compiling variants with nvcc (slower)\n";
        use_nvrtc_ = false;  // every variant's flags start with these options: decided once, here
    }
    DeviceCompileResult r = compile(original_, options_.compile_options);
    if (!r.ok && use_nvrtc_) {
        // Host code or host headers: NVRTC takes the file's device side, when cutting the host
        // code out is shown to change no device code; else the whole run compiles with nvcc.
        const std::string whole_file_log = r.log;
        device_side_ = true;
        std::vector<std::string> stand_in_names;
        device_side_headers_ = host_header_stand_ins();
        for (const auto& [name, text] : device_side_headers_) stand_in_names.push_back(name);
        project_side_ = project_headers(original_, kernel_dir_, options_.include_dirs, toolkit_include_dirs(), stand_in_names);
        for (const ProjectHeader& h : project_side_) {
            device_side_headers_.emplace_back(h.include_name, h.device_side);
            project_side_key_.push_back("--gi-header=" + h.include_name + ":" + sha256_hex(h.device_side));
        }
        r = compile(original_, options_.compile_options);
        const std::optional<DeviceSide> cut = device_side_of(original_, "variant.cu");
        const std::string why = !cut   ? "its brackets do not balance"
                                : r.ok ? device_side_differs(*cut)
                                       : first_error_lines(r.log, 1);
        if (why.empty()) {
            std::cerr << "gi-tool: note: NVRTC compiles the kernel file's device side (" << cut->host_definitions
                      << " host definitions and the host headers set aside";
            if (!project_side_.empty()) {
                std::cerr << "; the host code of the project's headers too:";
                for (const ProjectHeader& h : project_side_) std::cerr << " " << h.include_name;
            }
            std::cerr << "; nvcc builds the same device code from it); the result is validated as nvcc builds the "
                         "whole file\n";
        } else {
            device_side_ = false;
            project_side_.clear();
            project_side_key_.clear();
            use_nvrtc_ = false;
            r = compile_nvcc(original_, options_.compile_options);
            nvrtc_refusal_ = first_error_lines(whole_file_log, 1) + "; its device side alone: " + why;
            if (r.ok) std::cerr << "gi-tool: note: NVRTC cannot compile the kernel file (" << nvrtc_refusal_
                                << "); compiling variants with nvcc\n";
        }
    }
    if (!r.ok) throw Error("the original kernel does not compile for " + arch_ + ":\n" + first_error_lines(r.log, 5));
    // The original's build says which compiler variants get: options NVRTC lacks send every one to nvcc.
    stats_.compiler = r.compiler == "nvrtc" && device_side_ ? "nvrtc (device side)" : r.compiler;
    // An edit that deletes a `return` leaves undefined behaviour the compiler sees (warning 940):
    // such a variant may pass every check by luck (on the H100 its loop-guarded build
    // deadlocked while the plain one "worked"), so it is a compile error, unless the original
    // itself has the warning.
    std::vector<std::string> strict = options_.compile_options;
    strict.insert(strict.end(), kStrictFlags.begin(), kStrictFlags.end());
    if (compile(original_, strict).ok) strict_flags_ = kStrictFlags;
    else
        std::cerr << "gi-tool: note: the original kernel has a non-void function without a return at its end "
                     "(nvcc warning 940); variants with the same flaw are not rejected\n";
    decide_guard_builds();
    return r;
}

std::vector<std::string> VariantBuilder::flags_of(const Variant& v) const {
    std::vector<std::string> flags = options_.compile_options;
    flags.insert(flags.end(), v.compile_options.begin(), v.compile_options.end());
    flags.insert(flags.end(), strict_flags_.begin(), strict_flags_.end());
    const std::vector<std::string> ptx = ptx_edits_flag(v.genome);  // variant_builder_ptx.cpp
    flags.insert(flags.end(), ptx.begin(), ptx.end());
    return flags;
}

std::vector<std::string> VariantBuilder::original_flags() const { return flags_of(Variant{}); }

// Which guards the guarded builds get, whether they compile fast and apart from the plain builds,
// or optimised as those and in their module.
void VariantBuilder::decide_guard_builds() {
    pairing_ = false;
    guard_extra_flags_.clear();
    guards_ = HangGuards{options_.barrier_guard, options_.shared_guard};
    if (!options_.loop_guard) return;
    const std::vector<std::string> flags = original_flags();
    decide_shared_guard(flags);
    if (!decide_fast_guard_builds(flags)) decide_pairing(flags);
}

// The guarded build only runs the check (hangs, barriers, __shared__ bounds, outputs); the plain
// build is timed, shipped and compared too. Compiled at full optimisation, the guards' clock reads
// and bounds checks in every unrolled copy of a loop made NVRTC take 5-7 s for stereo variants
// with `#pragma unroll 13` on the disparity loop (0.5 s unguarded), and the whole generation
// waited for them; at -Ofc=mid it took 0.1 s. Needs CUDA 12.8 or later; an older compiler's
// refusal leaves guarded builds optimised, as before.
bool VariantBuilder::decide_fast_guard_builds(const std::vector<std::string>& flags) {
    const std::string& level = options_.guard_fast_compile;
    if (level.empty() || level == "0") return false;
    const std::string guarded = guarded_source(original_);
    if (guarded.empty()) return false;  // nothing to guard: no guarded builds at all
    std::vector<std::string> fast = flags;
    fast.push_back("-Ofc=" + level);
    const DeviceCompileResult r = compile(guarded, fast);
    if (!r.ok) {
        std::cerr << "gi-tool: note: guarded builds are optimised as the plain ones (slower compiles): the compiler "
                     "does not take -Ofc=" << level << " (CUDA 12.8 and later do): " << first_error_lines(r.log, 1) << "\n";
        return false;
    }
    guard_extra_flags_ = {"-Ofc=" + level};
    return true;
}

std::vector<std::string> VariantBuilder::guarded_flags(const std::vector<std::string>& flags) const {
    std::vector<std::string> out = flags;
    out.insert(out.end(), guard_extra_flags_.begin(), guard_extra_flags_.end());
    return out;
}

VariantBuild VariantBuilder::build_original(const std::string& instance) {
    return build(original_, paired_source_of(original_), original_flags(), false, instance);
}

void VariantBuilder::use_optimised_guard_builds(const std::string& why) {
    if (!fast_guard_builds()) return;
    std::cerr << "gi-tool: note: " << why << "; variants' guarded builds are optimised as their plain builds in this "
                 "run (slower compiles)\n";
    guard_extra_flags_.clear();
    decide_pairing(original_flags());
}

// Whether variants get their guarded copy in the plain build's module: only when the original's
// paired build compiles, so a file that cannot be compiled twice in one unit costs one failed
// compile per run, not one per variant.
void VariantBuilder::decide_pairing(const std::vector<std::string>& flags) {
    pairing_ = false;
    if (!options_.paired_guard_build) return;
    std::string why = paired_build_refusal(original_, function_);
    if (why.empty()) {
        const DeviceCompileResult r = compile(paired_source(original_, "variant.cu", guards_).source, flags);
        if (r.ok) {
            pairing_ = true;
            return;
        }
        why = "the kernel file does not compile twice in one unit: " + first_error_lines(r.log, 1);
    }
    std::cerr << "gi-tool: note: each variant's loop-guarded build is compiled and loaded separately (" << why << ")\n";
}

// The shared-memory guard's checks must compile where the original's accesses are; when they do
// not (a name shadowed by a class with its own operator[], say), the run goes without that guard
// instead of leaving every variant's build unguarded.
void VariantBuilder::decide_shared_guard(const std::vector<std::string>& flags) {
    if (!guards_.shared_arrays || guard_shared_arrays(original_).accesses == 0) return;
    const DeviceCompileResult r = compile(guard_hangs(original_, "variant.cu", guards_).source, flags);
    if (r.ok) return;
    guards_.shared_arrays = false;
    std::cerr << "gi-tool: note: the shared-memory guard is off for this kernel (its checked accesses do not compile: "
              << first_error_lines(r.log, 1) << "); a variant that indexes a __shared__ array out of bounds costs a worker\n";
}

// The guarded source, or "" when there is nothing to guard.
std::string VariantBuilder::guarded_source(const std::string& source) const {
    if (!options_.loop_guard) return "";
    LoopGuardResult g = guard_hangs(source, "variant.cu", guards_);
    return g.any() ? std::move(g.source) : std::string();
}

std::string VariantBuilder::paired_source_of(const std::string& source) const {
    if (!pairing_ || !paired_build_refusal(source, function_).empty()) return "";
    LoopGuardResult g = paired_source(source, "variant.cu", guards_);
    return g.any() ? std::move(g.source) : std::string();
}

VariantBuild VariantBuilder::build(const std::string& source, const std::string& paired, const std::vector<std::string>& flags,
                                   bool whole_file, const std::string& instance) {
    VariantBuild b;
    if (has_ptx_edits(flags)) {  // no guarded or paired build (variant_builder_ptx.cpp)
        b.code = compile(source, flags, whole_file, instance);
        return b;
    }
    if (!paired.empty()) {
        DeviceCompileResult r = compile(paired, flags, whole_file, instance);
        if (r.ok) {
            b.code = std::move(r);
            b.paired = true;
            return b;
        }
        b.failed_pair = std::move(r);
    }
    b.code = compile(source, flags, whole_file, instance);
    if (const std::string guarded = guarded_source(source); b.code.ok && !guarded.empty())
        b.guarded = compile(guarded, guarded_flags(flags), whole_file, instance);
    return b;
}

void VariantBuilder::submit_ahead(const Variant& v, const std::string& instance) {
    if (!ahead_.count(v.key)) ahead_.emplace(v.key, submit(v, instance));
}

namespace {

// A compile job's result, recording in `ready` that the job ended now (the latest of a variant's
// jobs counts: Pending::ready_ns).
template <class Result>
Result stamped(Result result, std::atomic<std::int64_t>& ready) {
    const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    std::int64_t seen = ready.load();
    while (seen < now && !ready.compare_exchange_weak(seen, now)) {
    }
    return result;
}

}  // namespace

VariantBuilder::Pending VariantBuilder::submit(const Variant& v, const std::string& instance) {
    if (auto it = ahead_.find(v.key); it != ahead_.end()) {
        Pending started = std::move(it->second);
        ahead_.erase(it);
        ++stats_.built_ahead;
        return started;
    }
    Pending b;
    if (has_ptx_edits(flags_of(v))) {  // no guarded or paired build (variant_builder_ptx.cpp)
        b.plain = pool_->submit<DeviceCompileResult>([this, source = v.source, flags = flags_of(v), instance, ready = b.ready_ns] {
            return stamped(compile(source, flags, false, instance), *ready);
        });
        return b;
    }
    if (std::string paired = paired_source_of(v.source); !paired.empty()) {
        b.paired = pool_->submit<VariantBuild>(
            [this, source = v.source, paired = std::move(paired), flags = flags_of(v), instance, ready = b.ready_ns] {
                return stamped(build(source, paired, flags, false, instance), *ready);
            });
        return b;
    }
    b.plain = pool_->submit<DeviceCompileResult>([this, source = v.source, flags = flags_of(v), instance, ready = b.ready_ns] {
        return stamped(compile(source, flags, false, instance), *ready);
    });
    std::string guarded = guarded_source(v.source);
    if (!guarded.empty())
        b.guarded = pool_->submit<DeviceCompileResult>(
            [this, source = std::move(guarded), flags = guarded_flags(flags_of(v)), instance, ready = b.ready_ns] {
                return stamped(compile(source, flags, false, instance), *ready);
            });
    return b;
}

bool VariantBuilder::ready(const Pending& pending) {
    auto done = [](const auto& job) {
        return !job.valid() || job.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    if (pending.paired.valid()) return done(pending.paired);
    if (!done(pending.plain)) return false;
    // As collect(): the guarded build is waited for only beside a plain one that compiled.
    return !pending.plain.valid() || !pending.plain.get().ok || done(pending.guarded);
}

VariantBuild VariantBuilder::collect(const Pending& pending) {
    const LongWait noted(use_nvrtc_ ? "a variant's NVRTC compile (killed after " + std::to_string(kNvrtcTimeoutMs / 1000) + " s)"
                                    : std::string("a variant's nvcc compile"));
    VariantBuild out;
    if (pending.paired.valid()) {
        out = pending.paired.get();
    } else {
        out.code = pending.plain.get();
        if (out.code.ok && pending.guarded.valid()) out.guarded = pending.guarded.get();
    }
    // A guarded job still running after a failed plain build is not waited for: it changes nothing.
    const std::int64_t ready = pending.ready_ns ? pending.ready_ns->load() : 0;
    out.ready = ready > 0 ? std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(ready))
                          : std::chrono::steady_clock::now();
    count(out);
    settle(out);
    return out;
}

void VariantBuilder::count_compile(const DeviceCompileResult& code, bool guarded) {
    if (code.cached) {
        ++stats_.cache_hits;
        return;
    }
    ++stats_.compiled;
    if (guarded) ++stats_.guard_compiled;
    stats_.compile_cpu_ms += code.ms;
}

void VariantBuilder::count(const VariantBuild& b) {
    if (b.failed_pair) {
        count_compile(*b.failed_pair, false);
        ++stats_.paired_fallbacks;
    }
    count_compile(b.code, false);
    if (b.paired) ++stats_.paired_builds;
    if (b.guarded) count_compile(*b.guarded, true);
}

void VariantBuilder::settle(VariantBuild& b) {
    if (!b.code.ok) b.guarded.reset();
    if (b.guarded && !b.guarded->ok) {
        ++stats_.unguarded;
        b.guarded.reset();
    }
}

}  // namespace gi
