// kernels/<k>/registration.txt, the declarations gi-optimize needs for each example kernel: every
// value must parse with the tool's own parsers, agree with the kernel file (functions, parameter
// defaults, buffer names) and give the same launch geometry as the kernel file's host functions.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "compare/tolerance.hpp"
#include "emulator/emulated_kernels.hpp"
#include "evaluate/evaluator.hpp"
#include "genome/genome.hpp"
#include "grammar/build_grammar.hpp"
#include "grammar/preprocessed_identity.hpp"
#include "launch/geometry.hpp"
#include "source/source_file.hpp"
#include "tune/tune.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

struct Registration {
    std::string kernel;
    std::vector<std::string> functions, params, flags, tolerances;
    std::string block, grid;
};

Registration read_registration(const std::string& folder) {
    const std::string path = std::string(GI_SOURCE_DIR) + "/kernels/" + folder + "/registration.txt";
    std::ifstream in(path);
    if (!in) throw Error("cannot read " + path);
    Registration r;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string key;
        words >> key;
        std::string value;
        std::getline(words >> std::ws, value);
        if (value.empty()) throw Error(path + ":" + std::to_string(number) + ": '" + key + "' has no value");
        if (key == "kernel") r.kernel = value;
        else if (key == "function") r.functions.push_back(value);
        else if (key == "param") r.params.push_back(value);
        else if (key == "flag") r.flags.push_back(value);
        else if (key == "tolerance") r.tolerances.push_back(value);
        else if (key == "block") r.block = value;
        else if (key == "grid") r.grid = value;
        else throw Error(path + ":" + std::to_string(number) + ": unknown keyword '" + key + "'");
    }
    return r;
}

struct Checked {
    Grammar grammar;
    LaunchGeometry geometry;
    NameValues defaults;  // numeric parameter defaults
};

Checked check_registration(const std::string& folder) {
    const Registration r = read_registration(folder);
    EXPECT_FALSE(r.kernel.empty());
    EXPECT_FALSE(r.functions.empty());
    GrammarOptions options;
    options.functions = r.functions;
    for (const std::string& p : r.params) options.params.push_back(parse_param_declaration(p, "param"));
    for (const std::string& f : r.flags) options.flags.push_back(parse_flag_declaration(f, "flag"));
    options.block_size = r.block;
    const SourceFile source = read_source_file(std::string(GI_SOURCE_DIR) + "/kernels/" + folder + "/" + r.kernel);
    Checked c{build_grammar(source, options), parse_launch_geometry(r.block, r.grid), {}};

    // Each parameter's default (the file's #define) is one of the declared values.
    for (const ParamDeclaration& p : options.params) {
        const Gene* gene = c.grammar.find_gene(p.name);
        EXPECT_NE(gene, nullptr) << p.name;
        if (gene == nullptr) continue;
        EXPECT_NE(std::find(p.values.begin(), p.values.end(), gene->default_value), p.values.end())
            << folder << ": default " << p.name << "=" << gene->default_value << " is not among the declared values";
        if (gene->numeric) c.defaults[p.name] = std::stoll(gene->default_value);
    }
    // Every tolerance names a pointer parameter of the kernel; every geometry name is a numeric
    // parameter or an integer scalar argument.
    const Function* kernel = nullptr;
    for (const Function& f : c.grammar.functions)
        if (f.is_global && f.name == r.functions.front()) kernel = &f;
    EXPECT_NE(kernel, nullptr) << folder;
    if (kernel == nullptr) return c;
    const ToleranceSpec spec = parse_tolerance_spec(r.tolerances, "tolerance");
    std::set<std::string> pointers, integers;
    for (const KernelParameter& p : kernel->parameters) {
        if (p.is_pointer) pointers.insert(p.name);
        else if (p.type.find("int") != std::string::npos) integers.insert(p.name);
    }
    for (const auto& [name, tolerance] : spec.by_name) EXPECT_TRUE(pointers.count(name)) << folder << ": tolerance for " << name;
    for (const auto* dims : {&c.geometry.block, &c.geometry.grid}) {
        for (const Expression& e : *dims)
            for (const std::string& name : e.names())
                EXPECT_TRUE(c.defaults.count(name) || integers.count(name)) << folder << ": " << e.text() << " uses " << name;
    }
    return c;
}

// Parameter values of an emulated configuration: the defaults with its settings applied.
NameValues values_for(const std::string& settings, NameValues values) {
    std::istringstream words(settings);
    std::string item;
    while (words >> item) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;  // "defaults"
        const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
        if (values.count(name)) values[name] = std::stoll(value);
    }
    return values;
}

std::vector<long long> evaluate(const std::vector<Expression>& dims, const NameValues& names) {
    std::vector<long long> out;
    for (const Expression& e : dims) out.push_back(e.evaluate(names));
    while (out.size() < 3) out.push_back(1);
    return out;
}

void expect_geometry(const std::vector<long long>& block, const std::vector<long long>& grid,
                     const std::pair<emu::dim3, emu::dim3>& actual, const std::string& what) {
    EXPECT_EQ(block, (std::vector<long long>{actual.first.x, actual.first.y, actual.first.z})) << what << " block";
    EXPECT_EQ(grid, (std::vector<long long>{actual.second.x, actual.second.y, actual.second.z})) << what << " grid";
}

TEST(KernelRegistration, StereoMatchesTheKernelFile) {
    const Checked c = check_registration("stereo");
    ASSERT_FALSE(emu::stereo_configs().empty());
    for (const emu::StereoConfig& config : emu::stereo_configs()) {
        for (auto [width, height] : {std::pair{320, 240}, std::pair{641, 479}, std::pair{37, 16}}) {
            NameValues names = values_for(config.name, c.defaults);
            names["width"] = width;
            names["height"] = height;
            expect_geometry(evaluate(c.geometry.block, names), evaluate(c.geometry.grid, names),
                            config.geometry(width, height), config.name);
        }
    }
}

TEST(KernelRegistration, BsplineMatchesTheKernelFile) {
    const Checked c = check_registration("bspline");
    ASSERT_FALSE(emu::bspline_configs().empty());
    for (const emu::BsplineConfig& config : emu::bspline_configs()) {
        for (int active : {1, 62076, 100001}) {
            NameValues names = values_for(config.name, c.defaults);
            names["active_count"] = active;
            expect_geometry(evaluate(c.geometry.block, names), evaluate(c.geometry.grid, names), config.geometry(active),
                            config.name);
        }
    }
}

TEST(KernelRegistration, HydroMatchesTheKernelFile) {
    const Checked c = check_registration("hydro");
    ASSERT_FALSE(emu::hydro_configs().empty());
    for (const emu::HydroConfig& config : emu::hydro_configs()) {
        for (auto [nx, ny] : {std::pair{1024, 1024}, std::pair{37, 29}}) {
            NameValues names = values_for(config.name, c.defaults);
            names["nx"] = nx;
            names["ny"] = ny;
            expect_geometry(evaluate(c.geometry.block, names), evaluate(c.geometry.grid, names),
                            config.geometry(nx, ny), config.name);
        }
    }
}

// The gate corpus (issue 44) is registered as a new user would: the kernel, a tolerance, no
// parameters, the recorded geometry. Each registration must still parse and name the kernel's
// own buffers.
TEST(KernelRegistration, CorpusKernelsParseAndNameTheirBuffers) {
    for (const char* kernel :
         {"thermal", "aniso_diffusion", "dp_sweep", "wavefront", "lu_update", "elimination", "matmul", "fir_decimate",
          "row_norms", "pcm_to_float", "conv1d"}) {
        SCOPED_TRACE(kernel);
        const Checked c = check_registration(kernel);
        EXPECT_TRUE(c.geometry.block.empty() && c.geometry.grid.empty()) << "the corpus launches with its recorded geometry";
        EXPECT_TRUE(c.defaults.empty());
    }
}

// The same preprocessed program (grammar/preprocessed_identity.hpp) for points that differ only in
// genes no live code reads, and not otherwise; the tuner measures each program once.
std::string program(const Grammar& grammar, const std::string& genome) {
    const Variant v = make_variant(parse_genome(genome), grammar);
    std::string identity = preprocessed_identity(v.source);
    for (const std::string& option : v.compile_options) identity += "\n" + option;
    return identity;
}

TEST(KernelRegistration, GenesNoLiveCodeReadsGiveTheSameProgram) {
    const Grammar stereo = check_registration("stereo").grammar;
    EXPECT_FALSE(program(stereo, "").empty());
    // The disparity in global memory: OUT_TYPE is not read.
    EXPECT_EQ(program(stereo, "OUT_TYPE=short"), program(stereo, ""));
    EXPECT_EQ(program(stereo, "OUT_TYPE=int BLOCK_W=128"), program(stereo, "BLOCK_W=128"));
    // In shared memory it is.
    EXPECT_NE(program(stereo, "STORE_DISPARITY_PIXEL=1 OUT_TYPE=short"), program(stereo, "STORE_DISPARITY_PIXEL=1"));
    for (const char* genome : {"BLOCK_W=128", "ROWS_PER_THREAD=3", "XHALO=1", "DPER=2", "STORE_MIN_SSD=2", "USE_MUL24=0",
                               "dlcm=ca", "STORE_DISPARITY_PIXEL=2"})
        EXPECT_NE(program(stereo, genome), program(stereo, "")) << genome;
    const Grammar bspline = check_registration("bspline").grammar;
    // Constant memory holds the basis table: the x weights come from it whatever directxBasis says.
    EXPECT_EQ(program(bspline, "constantBasis=1 directxBasis=1"), program(bspline, "constantBasis=1"));
    EXPECT_NE(program(bspline, "directxBasis=1"), program(bspline, ""));
    for (const char* genome : {"BLOCK_SIZE=64", "BasisA=1", "RemX=1", "c_UseBSpline=1", "use_fast_math=1"})
        EXPECT_NE(program(bspline, genome), program(bspline, "")) << genome;
    const Grammar hydro = check_registration("hydro").grammar;
    for (const char* genome : {"BLOCK_X=32", "BLOCK_Y=4", "MANIFEST_INTERP=1", "MANIFEST_FLUX=1", "SYNC_LOAD=1", "SYNC_STORE=1"})
        EXPECT_NE(program(hydro, genome), program(hydro, "")) << genome;
}

// Stereo's whole space (155,520 points) takes tens of seconds to list: a part of it here.
Grammar smaller_stereo() {
    GrammarOptions options;
    options.functions = {"stereo_kernel"};
    for (const char* p : {"BLOCK_W=64,128", "ROWS_PER_THREAD=3,40", "XHALO=0,1", "DPER=1,4", "STORE_DISPARITY_PIXEL=0,1,2",
                          "STORE_MIN_SSD=0,2", "OUT_TYPE=float,int,short", "USE_MUL24=0,1"})
        options.params.push_back(parse_param_declaration(p, "param"));
    return build_grammar(read_source_file(std::string(GI_SOURCE_DIR) + "/kernels/stereo/stereo.cu"), options);
}

TEST(KernelRegistration, ExhaustiveSweepsLeaveOutTheSameProgramTwice) {
    for (const char* kernel : {"stereo", "bspline", "hydro"}) {
        SCOPED_TRACE(kernel);
        const Grammar grammar = std::string(kernel) == "stereo" ? smaller_stereo() : check_registration(kernel).grammar;
        Rng rng(1);
        bool sampled = true;
        double space = 0;
        std::size_t same = 0;
        const auto start = std::chrono::steady_clock::now();
        const std::vector<Genome> points = tune_points(Genome{}, grammar, 1000000, rng, sampled, space, &same);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_FALSE(sampled);
        EXPECT_EQ(static_cast<double>(points.size() + same + 1), space);
        std::cout << kernel << ": " << space << " points, " << points.size() + 1 << " distinct programs, " << same
                  << " left out (" << seconds << " s)\n";
        // 576 points; the third with the disparity in global memory does not read OUT_TYPE (x3).
        if (std::string(kernel) == "stereo") EXPECT_GE(same, 128u);
        if (std::string(kernel) == "bspline") EXPECT_GE(same, 1536u);  // directxBasis x2 under constantBasis
    }
}

}  // namespace
}  // namespace gi
