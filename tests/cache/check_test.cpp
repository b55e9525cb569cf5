#include "../support/gi_tool_run.hpp"
#include "cache/check.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cache/generate.hpp"
#include "genome/genome.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

const char* const kCheckKernel =
    "#define SCALE 2\n"
    "#define BLOCK 128\n"
    "\n"
    "__global__ void scaleKernel(const float* in, float* out, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) {\n"
    "        float v = in[i];\n"
    "        v = v * SCALE;\n"
    "        out[i] = v + 1.0f;\n"
    "    }\n"
    "}\n";

RegisteredKernel kernel(const std::string& text = kCheckKernel, std::vector<std::string> params = {"SCALE=2,3,4", "BLOCK=64,128,256"}) {
    Registration r;
    r.functions = {"scaleKernel"};
    r.params = params;
    r.block_size = "BLOCK";
    r.grid = "(n+BLOCK-1)/BLOCK";
    r.tolerance = {"exact"};
    GrammarOptions options;
    options.functions = r.functions;
    for (const std::string& p : params) options.params.push_back(parse_param_declaration(p, "--param"));
    options.block_size = r.block_size;
    return make_registered_kernel(make_source_file("scale.cu", text), r, options);
}


// What an evolved entry that passed held-out validation says.
Provenance validated() {
    Provenance p;
    p.origin = "evolved";
    p.cases_validated = 2;
    p.elements_validated = 512;
    p.worst_error = 0;
    return p;
}

class CacheCheck : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("gi-cache-check-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path write(const CacheEntry& entry) {
        const fs::path path = dir_ / cache_entry_file_name(entry.registration.functions, entry.architecture);
        write_cache_entry(path, entry);
        return path;
    }
    static std::string reasons(const EntryCheck& check) {
        std::string all;
        for (const std::string& r : check.reasons) all += r + "\n";
        return all;
    }
    fs::path dir_;
};

TEST_F(CacheCheck, ValidEntryRebuildsTheVariantFromTheGenome) {
    const RegisteredKernel k = kernel();
    const Genome genome = parse_genome("SCALE=3 <_scale.cu_9>+<_scale.cu_8>");
    const fs::path path = write(make_cache_entry(k, 90, genome, validated()));
    const EntryCheck check = check_cache_entry(path, k, 90);
    ASSERT_EQ(check.status, EntryStatus::Valid) << reasons(check);
    EXPECT_TRUE(check.reasons.empty());
    ASSERT_TRUE(check.variant);
    EXPECT_EQ(check.variant->source.rfind("// gi-optimize variant: SCALE=3 <_scale.cu_9>+<_scale.cu_8>\n", 0), 0u)
        << check.variant->source;
    EXPECT_NE(check.variant->source.find("#define SCALE 3"), std::string::npos);
    EXPECT_EQ(check.entry->parameters, (std::vector<ParameterValue>{{"SCALE", "3"}, {"BLOCK", "128"}}));
    EXPECT_EQ(check.summary(), path.string() + ": valid");
}

TEST_F(CacheCheck, MissingEntry) {
    const EntryCheck check = check_cache_entry(dir_ / "scaleKernel.sm_90.xml", kernel(), 90);
    EXPECT_EQ(check.status, EntryStatus::Missing);
    EXPECT_NE(check.summary().find("missing: no cache entry for sm_90"), std::string::npos);
}

TEST_F(CacheCheck, EditedKernelSourceIsStale) {
    const fs::path path = write(make_cache_entry(kernel(), 90, parse_genome("SCALE=3"), validated()));
    const EntryCheck check = check_cache_entry(path, kernel(std::string(kCheckKernel) + "// later edit\n"), 90);
    EXPECT_EQ(check.status, EntryStatus::Stale);
    EXPECT_NE(reasons(check).find("the kernel source scale.cu changed since the entry was made"), std::string::npos)
        << reasons(check);
    EXPECT_FALSE(check.variant);
}

TEST_F(CacheCheck, ChangedRegistrationIsStaleAndSaysWhat) {
    const fs::path path = write(make_cache_entry(kernel(), 90, parse_genome("SCALE=3"), validated()));
    const EntryCheck check = check_cache_entry(path, kernel(kCheckKernel, {"SCALE=2,3,4,5", "BLOCK=64,128,256"}), 90);
    EXPECT_EQ(check.status, EntryStatus::Stale);
    EXPECT_NE(reasons(check).find("registration changed: param 1: 'SCALE=2,3,4' in the entry, 'SCALE=2,3,4,5' now"),
              std::string::npos)
        << reasons(check);
}

TEST_F(CacheCheck, OtherGrammarVersionIsStale) {
    CacheEntry entry = make_cache_entry(kernel(), 90, parse_genome("SCALE=3"), validated());
    entry.grammar_version = kGrammarVersion + 1;
    entry.key = sha256_hex("made by a future gi-tool");
    seal(entry);
    const EntryCheck check = check_cache_entry(write(entry), kernel(), 90);
    EXPECT_EQ(check.status, EntryStatus::Stale);
    EXPECT_NE(reasons(check).find("made with grammar version " + std::to_string(kGrammarVersion + 1)), std::string::npos);
}

TEST_F(CacheCheck, HandEditIsInvalidEvenWhenTheKeyStillMatches) {
    const fs::path path = write(make_cache_entry(kernel(), 90, parse_genome("SCALE=3"), validated()));
    std::ifstream in(path);
    std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    xml.replace(xml.find("SCALE=3]]"), 7, "SCALE=4");
    xml.replace(xml.find("value=\"3\""), 9, "value=\"4\"");
    std::ofstream(path) << xml;
    const EntryCheck check = check_cache_entry(path, kernel(), 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find("checksum mismatch: the file was edited by hand or damaged"), std::string::npos);
}

TEST_F(CacheCheck, CorruptFileIsInvalidWithItsPath) {
    const fs::path path = dir_ / "scaleKernel.sm_90.xml";
    std::ofstream(path) << "<gi-cache-entry format=\"1\"><kernel";
    const EntryCheck check = check_cache_entry(path, kernel(), 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find(path.string()), std::string::npos);
    EXPECT_NE(reasons(check).find("not well-formed XML"), std::string::npos);
}

TEST_F(CacheCheck, EntryForAnotherArchitectureIsInvalid) {
    const fs::path written = write(make_cache_entry(kernel(), 80, parse_genome("SCALE=3"), validated()));
    const fs::path renamed = dir_ / "scaleKernel.sm_90.xml";
    fs::rename(written, renamed);
    const EntryCheck check = check_cache_entry(renamed, kernel(), 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find("the entry is for sm_80, not sm_90"), std::string::npos);
}

// A sealed entry with the right key whose genome does not fit the grammar: what a grammar change
// without a version bump, or a forged file, would look like. validate_genome must refuse it.
TEST_F(CacheCheck, GenomeThatDoesNotFitTheKernelIsInvalid) {
    const RegisteredKernel k = kernel();
    for (const std::string bad : {"SCALE=7", "<_scale.cu_99>", "<IF_scale.cu_6><_scale.cu_8>", "NOSUCH=1", "<<<"}) {
        CacheEntry entry = make_cache_entry(k, 90, parse_genome("SCALE=3"), validated());
        entry.genome = bad;
        seal(entry);
        const EntryCheck check = check_cache_entry(write(entry), k, 90);
        EXPECT_EQ(check.status, EntryStatus::Invalid) << bad;
        EXPECT_FALSE(check.reasons.empty()) << bad;
        EXPECT_FALSE(check.variant) << bad;
    }
}

// The checksum is unkeyed, so anyone can reseal a file: the key and the fields it is made from
// must agree, or the entry is not one gi-tool wrote.
TEST_F(CacheCheck, FieldsThatContradictTheKeyAreInvalid) {
    const RegisteredKernel k = kernel();
    CacheEntry forged_source = make_cache_entry(k, 90, parse_genome("SCALE=3"), validated());
    forged_source.source_sha256 = sha256_hex("another kernel");
    seal(forged_source);
    EntryCheck check = check_cache_entry(write(forged_source), k, 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find("its key is this kernel's but its source-sha256"), std::string::npos) << reasons(check);
    EXPECT_FALSE(check.variant);

    CacheEntry forged_registration = make_cache_entry(k, 90, parse_genome("SCALE=3"), validated());
    forged_registration.registration.tolerance = {"abs=1e9"};
    seal(forged_registration);
    check = check_cache_entry(write(forged_registration), k, 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find("registration (tolerance"), std::string::npos) << reasons(check);
}

TEST_F(CacheCheck, ParametersThatDisagreeWithTheGenomeAreInvalid) {
    CacheEntry entry = make_cache_entry(kernel(), 90, parse_genome("SCALE=3"), validated());
    entry.parameters[0].value = "4";
    seal(entry);
    const EntryCheck check = check_cache_entry(write(entry), kernel(), 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find("<parameters>"), std::string::npos);
}

TEST_F(CacheCheck, WritingRefusesAnInvalidGenome) {
    EXPECT_THROW(make_cache_entry(kernel(), 90, parse_genome("SCALE=9"), validated()), Error);
}

TEST(CacheGenerate, WrapperIncludesOneVariantPerPass) {
    std::vector<ArchitectureChoice> choices(2);
    choices[0] = {80, false, "k.sm_80.cu", "", "missing cache entry", {}};
    choices[1] = {90, true, "k.sm_90.cu", "SCALE=3", "gi-cache/k.sm_90.xml", {{"SCALE", "3"}}};
    const std::string wrapper = wrapper_source("k", "/src/k.cu", choices);
    EXPECT_NE(wrapper.find("#if !defined(__CUDA_ARCH__)\n#include \"k.sm_90.cu\"\n#elif __CUDA_ARCH__ == 900\n"
                           "#include \"k.sm_90.cu\"\n#else\n#include \"/src/k.cu\"\n#endif\n"),
              std::string::npos)
        << wrapper;
    // No variant at all: just the original.
    choices[1].use_variant = false;
    const std::string plain = wrapper_source("k", "/src/k.cu", choices);
    EXPECT_EQ(plain.substr(plain.find("#include")), "#include \"/src/k.cu\"\n");
}

TEST(CacheGenerate, HeaderHasARowPerVariantAndTheOriginal) {
    const RegisteredKernel k = kernel();
    std::vector<ArchitectureChoice> choices(2);
    choices[0] = {80, false, "", "", "stale cache entry", {}};
    choices[1] = {90, true, "", "SCALE=3 BLOCK=64", "gi-cache/\"x\".xml", {{"SCALE", "3"}, {"BLOCK", "64"}}};
    const std::string header = variants_header("scaleKernel", "scaleKernel", k.grammar, choices);
    EXPECT_NE(header.find("struct gi_scaleKernel_variant {"), std::string::npos);
    EXPECT_NE(header.find("    long long SCALE;\n    long long BLOCK;\n"), std::string::npos) << header;
    EXPECT_NE(header.find("{90, \"SCALE=3 BLOCK=64\", \"gi-cache/\\\"x\\\".xml\", 3, 64},"), std::string::npos) << header;
    EXPECT_NE(header.find("{0, \"\", \"original kernel: sm_80 (stale cache entry);\", 2, 128},"), std::string::npos) << header;
    EXPECT_NE(header.find("gi_scaleKernel_variants_count = 2;"), std::string::npos);
    EXPECT_NE(header.find("gi_scaleKernel_variant_for_kernel(const void* kernel)"), std::string::npos);
}

// Host code in the kernel's own file includes the header after #defining the parameters (issue 16:
// `bx = (int)v->BLOCK_W` became `bx = (int)v->16`): the header compiles there, and the values are
// read by name.
TEST_F(CacheCheck, TheVariantsHeaderWorksWhereTheParametersAreMacros) {
    const RegisteredKernel k = kernel();
    std::vector<ArchitectureChoice> choices(1);
    choices[0] = {90, true, "", "SCALE=3 BLOCK=64", "gi-cache/k.xml", {{"SCALE", "3"}, {"BLOCK", "64"}}};
    std::ofstream(dir_ / "scaleKernel.gi.h") << variants_header("scaleKernel", "scaleKernel", k.grammar, choices);
    std::ofstream(dir_ / "host.cpp") << "#define SCALE 2\n#define BLOCK 128\n#include \"scaleKernel.gi.h\"\n#include <cstdio>\n"
                                        "int main() {\n"
                                        "    const gi_scaleKernel_variant* v = gi_scaleKernel_variant_for_architecture(90);\n"
                                        "    std::printf(\"%lld %lld %lld %d %d\\n\", gi_scaleKernel_parameter(v, \"SCALE\"),\n"
                                        "                gi_scaleKernel_parameter(v, \"BLOCK\"), gi_scaleKernel_parameter(v, \"NONE\"), SCALE, BLOCK);\n"
                                        "}\n";
    const ProcessResult compiled = run_process({"c++", "-Wall", "-Werror", "-o", (dir_ / "host").string(), (dir_ / "host.cpp").string()});
    ASSERT_TRUE(compiled.succeeded()) << compiled.out << compiled.err;
    const ProcessResult ran = run_process({(dir_ / "host").string()});
    EXPECT_EQ(ran.out, "3 64 -1 2 128\n");  // the variant's values by name; the file's macros intact
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

class CacheCheckValidation : public CacheCheck {};

TEST_F(CacheCheckValidation, AnUnvalidatedEntryIsRefusedUnlessItsWriterOptedIn) {
    const RegisteredKernel k = kernel();
    Provenance unchecked;
    unchecked.origin = "evolved";
    const fs::path path = write(make_cache_entry(k, 90, parse_genome("SCALE=3"), unchecked));
    EntryCheck check = check_cache_entry(path, k, 90);
    EXPECT_EQ(check.status, EntryStatus::Invalid);
    EXPECT_NE(reasons(check).find("not validated: its genome was never checked on inputs its search did not see"),
              std::string::npos)
        << reasons(check);
    EXPECT_FALSE(check.variant);

    unchecked.waiver = "--allow-unvalidated: a hand-picked genome, not validated by gi-tool";
    write(make_cache_entry(k, 90, parse_genome("SCALE=3"), unchecked));
    check = check_cache_entry(path, k, 90);
    EXPECT_EQ(check.status, EntryStatus::Valid) << reasons(check);
    EXPECT_EQ(check.entry->provenance.waiver, unchecked.waiver);

    // The original kernel (an empty genome) is safe without any check.
    write(make_cache_entry(k, 90, Genome{}, Provenance{}));
    EXPECT_EQ(check_cache_entry(path, k, 90).status, EntryStatus::Valid);
}

TEST_F(CacheCheckValidation, TheWaiverIsCoveredByTheChecksum) {
    const RegisteredKernel k = kernel();
    Provenance unchecked;
    unchecked.waiver = "--allow-unvalidated: a hand-picked genome, not validated by gi-tool";
    const fs::path path = write(make_cache_entry(k, 90, parse_genome("SCALE=3"), unchecked));
    std::string xml = test::file_text(path);
    const std::string element = "<waiver>" + unchecked.waiver + "</waiver>";
    ASSERT_NE(xml.find(element), std::string::npos) << xml;
    xml.replace(xml.find(element), element.size(), "<waiver>x</waiver>");
    std::ofstream(path) << xml;
    EXPECT_NE(reasons(check_cache_entry(path, k, 90)).find("checksum mismatch"), std::string::npos);
}

}  // namespace
}  // namespace gi
