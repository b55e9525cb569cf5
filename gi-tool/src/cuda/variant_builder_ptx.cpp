// The variant builder's PTX path (issue 46): a variant whose genome has PTX edits is its source's
// PTX from nvcc's front end (once per source: the variants of one parent share it; NVRTC's where
// nvcc cannot make it, cuda/nvcc_ptx_edits.hpp: ptx_as_evaluated), the edits applied
// (ptx/ptx_edit.hpp), and ptxas alone (compile/ptx_compiler.hpp). nvcc's, because the user's
// build makes that PTX, and NVRTC's differs wherever a kernel has a __shared__ array.
//
// The edits travel in the variant's flags (flags_of), under a name no compiler sees, so every way a
// variant is built (search, the sanitizer gate, validation) takes this path without knowing of it.
// Such a variant has no loop-guarded or paired build: the guards are source code, and the edits'
// instruction indexes are those of the plain build's PTX; a variant that hangs costs a worker
// (its run's timeout), as it would without guards.
#include <algorithm>
#include <mutex>

#include "compile/nvcc_compiler.hpp"
#include "compile/ptx_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "cuda/variant_builder.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_module.hpp"
#include "util/error.hpp"

namespace gi {

namespace {
constexpr const char* kPtxEditsFlag = "--gi-ptx-edits=";
bool is_ptx_edits_flag(const std::string& flag) { return flag.rfind(kPtxEditsFlag, 0) == 0; }
}  // namespace

struct VariantBuilder::PtxBase {
    bool ok = false;
    std::string log;  // why there is no PTX to edit
    double ms = 0;    // what the front end took
    PtxModule module;
};

std::vector<std::string> ptx_edits_flag(const Genome& genome) {
    std::string text;
    for (const Edit& edit : ptx_edits_of(genome)) text += (text.empty() ? "" : " ") + edit_to_text(edit);
    if (text.empty()) return {};
    return {kPtxEditsFlag + text};
}

bool VariantBuilder::has_ptx_edits(const std::vector<std::string>& flags) {
    return std::any_of(flags.begin(), flags.end(), is_ptx_edits_flag);
}

std::shared_ptr<const VariantBuilder::PtxBase> VariantBuilder::ptx_base(const std::string& source,
                                                                         const std::vector<std::string>& flags,
                                                                         const std::string& instance) {
    std::optional<NvrtcJob> job = nvrtc_job(source, flags, instance);
    auto base = std::make_shared<PtxBase>();
    if (!job) {
        base->log = "the variant's device side cannot be cut out of its file (its brackets do not balance)";
        return base;
    }
    const std::string key = job->key + " ptx";
    {
        std::lock_guard lock(ptx_mutex_);
        if (auto it = ptx_bases_.find(key); it != ptx_bases_.end()) return it->second;
    }
    // The whole file, as the build compiles it: nvcc needs no cut device side or stand-in headers
    // (ptx_as_evaluated makes its own for NVRTC, should nvcc fail).
    DeviceCompileRequest request = job->request;
    request.source = source;
    request.headers.clear();
    try {
        const DeviceCompileResult r = ptx_as_evaluated(request, options_.nvcc);
        base->ok = r.ok;
        base->log = r.log;
        base->ms = r.ms;
        if (r.ok) base->module = parse_ptx(r.ptx, "variant.ptx");
    } catch (const Error& e) {
        base->ok = false;
        base->log = e.what();
    }
    std::lock_guard lock(ptx_mutex_);
    return ptx_bases_.emplace(key, std::move(base)).first->second;
}

DeviceCompileResult VariantBuilder::compile_ptx_edited(const std::string& source, const std::vector<std::string>& flags,
                                                       const std::string& instance) {
    std::vector<std::string> plain;
    std::vector<Edit> edits;
    for (const std::string& flag : flags) {
        if (!is_ptx_edits_flag(flag)) plain.push_back(flag);
        else for (const Edit& e : parse_genome(flag.substr(std::string(kPtxEditsFlag).size())).edits) edits.push_back(e);
    }
    DeviceCompileResult r;
    r.compiler = "ptxas";
    const std::shared_ptr<const PtxBase> base = ptx_base(source, plain, instance);
    if (!base->ok) {
        r.log = base->log;
        return r;
    }
    std::string edited;
    try {
        edited = apply_ptx_edits(base->module, edits).ptx;
    } catch (const Error& e) {
        r.log = e.what();
        return r;
    }
    const std::vector<std::string> assembler = ptxas_options_for(plain);
    const std::string key = compiled_code_key(edited, assembler, arch_, "ptxas");
    if (auto hit = cache_.get(key)) return *hit;
    try {
        r = compile_ptx(edited, arch_, assembler, find_ptxas(options_.nvcc));
    } catch (const Error& e) {  // no ptxas, or it cannot be started: this variant's verdict, not the run's end
        r.log = e.what();
        return r;
    }
    make_loadable(r);
    cache_.put(key, r);
    return r;
}

}  // namespace gi
