#include "listed_variants.hpp"

#include <chrono>
#include <fstream>
#include <iterator>

#include "compile/module_variables.hpp"
#include "cuda_driver.hpp"
#include "variant/loop_guard.hpp"
#include "variant/paired_build.hpp"
#include "worker/run_request.hpp"

namespace gi::worker {

// A --once variant's launch: its list line's fields over the case's recorded ones.
LaunchShape shape_from(const Message& m, const TestCase& tc) {
    LaunchShape shape{tc.grid, tc.block, tc.shared_bytes};
    if (m.fields.count("grid")) shape.grid = parse_dim3(m.get("grid"), "grid");
    if (m.fields.count("block")) shape.block = parse_dim3(m.get("block"), "block");
    if (m.fields.count("shared")) shape.shared_bytes = static_cast<unsigned>(m.integer("shared"));
    return shape;
}

// Where `module` keeps the case's module variables (replay.hpp). With `guarded_image`, the module
// is a paired build and the places are those of its guarded half's copies (module_variables.hpp
// finds them among the image's own variables). Throws gi::Error naming a variable the plain half
// has and the guarded half lacks, so that build is not used for the check.
VariablePlaces variable_places(CUmodule module, const TestCase& tc, const std::string* guarded_image) {
    VariablePlaces places(tc.buffers.size());
    std::vector<ModuleVariable> listed;
    bool any = false;
    for (std::size_t b = 0; b < tc.buffers.size(); ++b) {
        const std::string& name = tc.buffers[b].variable;
        if (name.empty()) continue;
        if (guarded_image && !any) listed = module_variables(*guarded_image);
        any = true;
        const std::string lookup = guarded_image ? guarded_variable_name(name, listed, kGuardedNamespace) : name;
        CUdeviceptr address = 0;
        std::size_t bytes = 0;
        if (!lookup.empty() && cuModuleGetGlobal(&address, &bytes, module, lookup.c_str()) == CUDA_SUCCESS) {
            places[b] = {address, bytes};
        } else if (guarded_image) {
            CUdeviceptr plain = 0;
            if (cuModuleGetGlobal(&plain, &bytes, module, name.c_str()) == CUDA_SUCCESS)
                throw Error("its guarded half has no copy of the module variable '" + name + "'");
        }
    }
    return places;
}

// --variants FILE: one variant per line, "CUBIN<TAB>GRID<TAB>BLOCK<TAB>SHARED[<TAB>KERNEL]" (empty
// fields take the case's recorded values, and --kernel names the kernel), so one compute-sanitizer process checks several variants: its start-up,
// the CUDA context and the case's upload are paid once instead of once per variant.
std::vector<OnceVariant> read_variant_list(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot read the variant list");
    std::vector<OnceVariant> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        std::vector<std::string> fields;
        std::size_t from = 0;
        for (std::size_t tab = line.find('\t'); ; tab = line.find('\t', from)) {
            fields.push_back(line.substr(from, tab == std::string::npos ? std::string::npos : tab - from));
            if (tab == std::string::npos) break;
            from = tab + 1;
        }
        if (fields.size() != 4 && fields.size() != 5)
            throw Error(path + ": line " + std::to_string(out.size() + 1) + " needs 4 or 5 tab-separated fields");
        OnceVariant v;
        v.cubin_path = fields[0];
        if (!fields[1].empty()) v.shape.fields["grid"] = fields[1];
        if (!fields[2].empty()) v.shape.fields["block"] = fields[2];
        if (!fields[3].empty()) v.shape.fields["shared"] = fields[3];
        if (fields.size() == 5) v.kernel = fields[4];
        out.push_back(std::move(v));
    }
    if (out.empty()) throw Error(path + ": the variant list is empty");
    return out;
}

// One listed variant run once on the case, as --once and check-variants do: its module loaded,
// the kernel launched (launch_once restores the case's inputs first, so each variant starts from
// the recorded state) and the module unloaded after a launch that succeeded. Throws gi::Error
// (with `label` in front) for a module that cannot be read; returns the launch's result.
LoadedVariant load_listed_variant(const OnceVariant& variant, const std::string& kernel_name, const TestCase& tc,
                                  const std::string& label) {
    std::ifstream in(variant.cubin_path, std::ios::binary);
    const std::string cubin((std::istreambuf_iterator<char>(in)), {});
    if (cubin.empty()) throw Error(label + variant.cubin_path + ": cannot read the compiled module");
    LoadedVariant v;
    v.shape = shape_from(variant.shape, tc);
    check_cuda(cuModuleLoadData(&v.module, cubin.data()), "loading the compiled module");
    v.kernel = find_kernel(v.module, variant.kernel.empty() ? kernel_name : variant.kernel);
    v.places = variable_places(v.module, tc);
    return v;
}

CUresult run_listed_variant(Replay& replay, const OnceVariant& variant, const std::string& kernel_name, const std::string& label,
                            ListedRunTimes* times) {
    using Clock = std::chrono::steady_clock;
    ListedRunTimes ignored;
    ListedRunTimes& t = times ? *times : ignored;
    auto start = Clock::now();
    const LoadedVariant v = load_listed_variant(variant, kernel_name, replay.test_case(), label);
    t.load_ms += ms_since(start);
    start = Clock::now();
    const CUresult r = replay.launch_once(v.kernel, v.shape, v.places);
    t.launch_ms += ms_since(start);
    start = Clock::now();
    if (r == CUDA_SUCCESS) check_cuda(cuModuleUnload(v.module), "unloading the compiled module");
    t.unload_ms += ms_since(start);
    return r;
}

}  // namespace gi::worker
