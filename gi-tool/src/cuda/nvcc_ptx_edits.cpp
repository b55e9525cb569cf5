#include "cuda/nvcc_ptx_edits.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include "compile/device_side.hpp"
#include "compile/nvcc_dryrun.hpp"
#include "compile/nvcc_ptx.hpp"
#include "compile/ptx_compiler.hpp"
#include "process/process.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_rebase.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace fs = std::filesystem;
namespace {

void forward(const ProcessResult& r, std::ostream& out, std::ostream& err) {
    out << r.out;
    err << r.err;
}

// The edited PTX in place of cicc's, for the steps after it.
std::vector<std::string> edit_ptx_file(const ArchitecturePtxEdits& request, const std::string& file) {
    const std::string virtual_arch = virtual_architecture(request.arch);
    const PtxModule nvcc_ptx = parse_ptx(read_text_file(file, "PTX nvcc's front end wrote"), "nvcc's PTX for " + virtual_arch);
    const std::vector<Edit> edits = rebase_ptx_edits(request.base, nvcc_ptx, request.edits, request.function);
    const PtxEditResult edited = apply_ptx_edits(nvcc_ptx, edits);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << edited.ptx;
    return edited.skipped;
}

}  // namespace

DeviceCompileResult ptx_as_evaluated(DeviceCompileRequest request, const std::string& nvcc) {
    request.ptx = true;
    std::string nvcc_log;
    try {
        DeviceCompileResult by_nvcc = compile_ptx_with_nvcc(request, nvcc);
        if (by_nvcc.ok) return by_nvcc;
        nvcc_log = "nvcc -ptx failed:\n" + by_nvcc.log;
    } catch (const Error& e) {  // no nvcc to run: NVRTC's PTX, which the build may not match
        nvcc_log = e.what();
    }
    if (!nvrtc_available()) {
        DeviceCompileResult none;
        none.log = nvcc_log;
        return none;
    }
    DeviceCompileResult r = compile_with_nvrtc(request);
    if (r.ok) return r;
    std::string logs = nvcc_log + "\n(NVRTC, the whole file:)\n" + r.log;
    std::optional<DeviceSide> cut = device_side_of(request.source, request.name);
    if (!cut) {
        r.log = logs;
        return r;
    }
    request.source = std::move(cut->source);
    request.headers.insert(request.headers.begin(), host_header_stand_ins().begin(), host_header_stand_ins().end());
    r = compile_with_nvrtc(request);
    if (!r.ok) r.log = logs + "\n(NVRTC, its device side alone:)\n" + r.log;
    return r;
}

NvccPtxEditsOutcome compile_with_ptx_edits(const NvccPtxEdits& request, std::ostream& out, std::ostream& err) {
    if (request.command.empty()) throw Error("no compile command after --");
    const std::string& nvcc = request.command.front();
    const NvccDependencySplit split =
        split_dependency_options(std::vector<std::string>(request.command.begin() + 1, request.command.end()));
    const std::string object = value_after(split.compile, "-o");
    std::error_code ec;
    if (!object.empty()) fs::remove(object, ec);  // a failure below leaves no object, not an old one

    ProcessOptions options;
    options.timeout = request.step_timeout;
    if (!split.depend.empty()) {
        std::vector<std::string> argv{nvcc};
        argv.insert(argv.end(), split.depend.begin(), split.depend.end());
        const ProcessResult r = run_process(argv, options);
        forward(r, out, err);
        if (!r.succeeded()) throw Error("writing the dependency file failed: " + command_line_text(argv));
    }

    // The steps' scratch files go to a folder of this build's own (nvcc names them after its
    // process id, which another build's nvcc may have by the time a step runs).
    TemporaryDirectory scratch("gi-nvcc-ptx");
    std::vector<std::string> dryrun{nvcc, "--dryrun"};
    dryrun.insert(dryrun.end(), split.compile.begin(), split.compile.end());
    ProcessOptions planning = options;
    planning.environment.emplace_back("TMPDIR", scratch.path().string());
    const ProcessResult plan = run_process(dryrun, planning);
    if (!plan.succeeded()) {
        err << plan.err;
        throw Error("nvcc refused the command: " + command_line_text(dryrun));
    }
    const NvccTrajectory trajectory = parse_nvcc_dryrun(plan.err);

    if (request.architectures.empty()) throw Error("no architecture's PTX edits to apply");
    std::vector<std::string> archs;
    for (const NvccStep& step : trajectory.steps)
        if (!step.virtual_arch.empty()) archs.push_back(step.virtual_arch);
    for (const ArchitecturePtxEdits& target : request.architectures) {
        const std::string virtual_arch = virtual_architecture(target.arch);
        if (std::find(archs.begin(), archs.end(), virtual_arch) == archs.end())
            throw Error("the command compiles no PTX for " + virtual_arch + " to apply the edits to (its PTX: " +
                        (archs.empty() ? std::string("none") : join(archs, ", ")) + "): " + command_line_text(request.command));
    }

    NvccPtxEditsOutcome outcome;
    ProcessOptions stepping = options;
    stepping.environment = trajectory.environment;
    for (const NvccStep& step : trajectory.steps) {
        const ProcessResult r = run_process({"/bin/sh", "-c", step.command}, stepping);
        if (step.cleanup && !r.succeeded()) continue;
        forward(r, out, err);
        if (!r.succeeded()) {
            fs::remove(object, ec);
            throw Error("nvcc's step failed (" +
                        (r.timed_out ? std::string("ran too long") : "exit status " + std::to_string(r.exit_code)) +
                        "): " + excerpt(step.command, 400));
        }
        const auto target = std::find_if(request.architectures.begin(), request.architectures.end(), [&](const ArchitecturePtxEdits& t) {
            return !step.virtual_arch.empty() && virtual_architecture(t.arch) == step.virtual_arch;
        });
        if (target == request.architectures.end()) continue;
        try {
            for (std::string& skipped : edit_ptx_file(*target, step.ptx_output)) outcome.skipped.push_back(std::move(skipped));
        } catch (const Error&) {
            fs::remove(object, ec);
            throw;
        }
        outcome.edited_ptx.push_back(step.ptx_output);
    }
    return outcome;
}

}  // namespace gi
