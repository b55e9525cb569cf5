// Issue 39, classes 1, 2 and 9 (probe rows A1-A8): a cache entry's text must stay text. It once
// became C++ compiled into the user's program (a newline in <gpu> ended the generated file's
// comment), erased `cache show`'s UNCHECKED line from the reviewer's terminal (an escape sequence
// in <note>), and a carriage return in a note made an entry that failed its own checksum.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../support/gi_tool_run.hpp"
#include "cache/check.hpp"
#include "cache/entry.hpp"
#include "cache/generate.hpp"
#include "grammar/grammar_options.hpp"
#include "process/process.hpp"
#include "source/source_file.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

const std::string kEntryKernel = std::string(GI_TEST_DATA_DIR) + "/cache/scale.cu";
const std::vector<std::string> kEntryRegistration = {"--function", "scaleKernel", "--param", "SCALE=2,3,4", "--param",
                                                     "BLOCK=64,128,256", "--block-size", "BLOCK", "--grid",
                                                     "(n+BLOCK-1)/BLOCK"};
// The probe's payload: a constructor that runs before main, then a line that comments out the rest.
const std::string kInjected =
    "NVIDIA H100\n__attribute__((constructor)) static void gi_injected() { __builtin_puts(\"INJECTED\"); }\n//";
const std::string kEraseLines = "\x1b[2A\x1b[0J\x1b[G  note         reviewed";

std::vector<std::string> with_registration(std::vector<std::string> head, const std::vector<std::string>& tail) {
    head.insert(head.end(), kEntryRegistration.begin(), kEntryRegistration.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
}

bool has_byte(const std::string& text, char byte) { return text.find(byte) != std::string::npos; }

class EntryText : public ::testing::Test {
protected:
    fs::path dir_ = test::fresh_temp_dir("gi-entry-text");
    fs::path cache_ = dir_ / "gi-cache";
    fs::path entry_path_ = cache_ / "scaleKernel.sm_90.xml";

    ProcessResult write_entry(const std::vector<std::string>& more) {
        std::vector<std::string> tail = {"--arch", "90", "--cache-dir", cache_.string(), "--genome", "SCALE=3"};
        tail.insert(tail.end(), more.begin(), more.end());
        return test::gi_tool(with_registration({"cache", "write", kEntryKernel}, tail));
    }
    // An entry gi-tool wrote, changed as `change` says and sealed again: what anyone who can write
    // the file can make (the checksum is not a signature), written without gi-tool's own checks.
    template <typename Change>
    void forge(Change change) {
        const ProcessResult made = write_entry({"--cases", "4", "--elements", "100"});
        ASSERT_TRUE(made.succeeded()) << made.out << made.err;
        CacheEntry entry = read_cache_entry(entry_path_);
        change(entry);
        seal(entry);
        std::ofstream(entry_path_, std::ios::binary | std::ios::trunc) << entry_to_xml(entry);
    }
    ProcessResult apply(const std::vector<std::string>& more = {}) {
        std::vector<std::string> tail = {"--cache-dir", cache_.string(), "--arch", "90", "--wrapper", out("k.gi.cu"),
                                         "--header", out("k.gi.h"), "--options-file", out("k.options")};
        tail.insert(tail.end(), more.begin(), more.end());
        return test::gi_tool(with_registration({"cache", "apply", kEntryKernel}, tail));
    }
    std::string out(const std::string& name) const { return (dir_ / "gen" / name).string(); }
    std::string generated() const {
        std::string all;
        for (const auto& file : fs::directory_iterator(dir_ / "gen")) all += test::file_text(file.path());
        return all;
    }
};

TEST_F(EntryText, Class1_CacheWriteRefusesControlCharactersInEveryProvenanceOption) {
    for (const std::string option : {"--gpu", "--origin", "--driver", "--nvcc-version", "--note"}) {
        for (const std::string& text : {kInjected, std::string("a\rb"), kEraseLines, std::string("x\xc2\x9b" "2J")}) {
            const ProcessResult r = write_entry({"--cases", "4", "--elements", "100", option, text});
            EXPECT_EQ(r.exit_code, 2) << option << "\n" << r.out << r.err;
            EXPECT_NE(r.err.find(option + " holds a control character"), std::string::npos) << r.err;
            EXPECT_FALSE(has_byte(r.err, '\x1b')) << r.err;
            EXPECT_FALSE(fs::exists(entry_path_)) << option << ": an entry was written";
        }
    }
    // Visible text of any script is kept as it is.
    const ProcessResult r = write_entry({"--cases", "4", "--elements", "100", "--gpu", "NVIDIA H100 \"SXM\" caf\xc3\xa9 */ ??/"});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_EQ(read_cache_entry(entry_path_).provenance.gpu, "NVIDIA H100 \"SXM\" caf\xc3\xa9 */ ??/");
}

TEST_F(EntryText, Class9_AnEntryIsNeverWrittenThatWouldNotReadBackIntact) {
    // A note from a run record (cache write --from-run) reaches the writer without an option's check.
    ASSERT_TRUE(write_entry({"--cases", "4", "--elements", "100"}).succeeded());
    CacheEntry entry = read_cache_entry(entry_path_);
    const std::string before = test::file_text(entry_path_);
    for (const std::string& note : {std::string("a\rb"), std::string("a\r\nb"), kEraseLines}) {
        entry.provenance.note = note;
        seal(entry);
        try {
            write_cache_entry(entry_path_, entry);
            ADD_FAILURE() << "written with a note of " << note.size() << " bytes";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("<note> holds a control character"), std::string::npos) << e.what();
        }
        EXPECT_EQ(test::file_text(entry_path_), before) << "the entry there was touched";
    }
}

TEST_F(EntryText, Class1_AForgedEntryWhoseProvenanceHoldsCodeIsRefusedAndNeverCompiled) {
    for (const std::string field : {"gpu", "origin", "driver", "nvcc", "date"}) {
        forge([&](CacheEntry& e) {
            std::string& text = field == "gpu"      ? e.provenance.gpu
                                : field == "origin" ? e.provenance.origin
                                : field == "driver" ? e.provenance.driver
                                : field == "nvcc"   ? e.provenance.nvcc
                                                    : e.provenance.date;
            text = kInjected;
        });
        ProcessResult r = apply();
        ASSERT_TRUE(r.succeeded()) << field << "\n" << r.out << r.err;
        EXPECT_NE(r.out.find("original kernel"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("<" + field + "> holds a control character"), std::string::npos) << r.out;
        EXPECT_EQ(generated().find("__attribute__"), std::string::npos) << generated();
        r = apply({"--require"});
        EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
        fs::remove_all(cache_);
    }
    // The probe's A4: a carriage return as a character reference in a resealed file.
    forge([](CacheEntry& e) { e.provenance.gpu = "NVIDIA H100"; });
    std::string xml = test::file_text(entry_path_);
    CacheEntry entry = read_cache_entry(entry_path_);
    entry.provenance.gpu = "NVIDIA H100\rint injected_cr = 1; /*";
    seal(entry);
    const std::string checksum = entry.checksum;
    xml.replace(xml.find("<gpu>NVIDIA H100</gpu>"), 22, "<gpu>NVIDIA H100&#13;int injected_cr = 1; /*</gpu>");
    xml.replace(xml.find(read_cache_entry(entry_path_).checksum), checksum.size(), checksum);
    std::ofstream(entry_path_, std::ios::binary | std::ios::trunc) << xml;
    const ProcessResult r = apply();
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("<gpu> holds a control character (\\x0d"), std::string::npos) << r.out;
    EXPECT_EQ(generated().find("injected_cr"), std::string::npos) << generated();
}

// Defence in depth: whatever reaches the generated files (a genome, an origin, a reason) stays
// inside its comment or string, also where no reader refused it first. Compiled and run with the
// host compiler under -std=c++14, where "??/" is still a trigraph.
TEST_F(EntryText, Class1_GeneratedFilesKeepAnyTextInsideCommentsAndStrings) {
    const std::string hostile = kInjected + "\r int injected_cr = 1; */ int injected_block = 1; /* ??/\\";
    const RegisteredKernel kernel = make_registered_kernel(
        make_source_file("scale.cu", test::file_text(kEntryKernel)),
        [] {
            Registration r;
            r.functions = {"scaleKernel"};
            r.params = {"SCALE=2,3,4"};
            return r;
        }(),
        [] {
            GrammarOptions options;
            options.functions = {"scaleKernel"};
            options.params.push_back(parse_param_declaration("SCALE=2,3,4", "--param"));
            return options;
        }());
    std::vector<ArchitectureChoice> choices(2);
    choices[0] = {80, false, "", "", hostile, {}};
    choices[1] = {90, true, "variant.inc", "SCALE=3 " + hostile, hostile, {{"SCALE", "3"}}};
    fs::create_directories(dir_ / "gen");
    std::ofstream(dir_ / "gen" / "variant.inc") << "int gi_kernel_marker() { return 90; }\n";
    std::ofstream(dir_ / "gen" / "original.inc") << "int gi_kernel_marker() { return 0; }\n";
    std::ofstream(dir_ / "gen" / "k.gi.cu") << wrapper_source("scaleKernel " + hostile, (dir_ / "gen" / "original.inc").string(), choices);
    std::ofstream(dir_ / "gen" / "k.gi.h") << variants_header("scaleKernel", "scaleKernel " + hostile, kernel.grammar, choices);
    std::ofstream(dir_ / "gen" / "main.cpp")
        << "#include <cstdio>\n#include \"k.gi.cu\"\n#include \"k.gi.h\"\n"
           "int main() {\n"
           "    const gi_scaleKernel_variant* v = gi_scaleKernel_variant_for_architecture(90);\n"
           "    std::printf(\"marker %d scale %lld\\n%s\\n\", gi_kernel_marker(), v->SCALE, v->origin);\n"
           "    return 0;\n}\n";
    EXPECT_FALSE(has_byte(generated(), '\r'));
    const fs::path program = dir_ / "main";
    const ProcessResult built = run_process({"g++", "-std=c++14", "-Wall", "-Werror", "-Wno-comment", "-Wno-trigraphs",
                                             (dir_ / "gen" / "main.cpp").string(), "-o", program.string()});
    ASSERT_TRUE(built.succeeded()) << built.out << built.err << generated();
    const ProcessResult ran = run_process({program.string()});
    ASSERT_TRUE(ran.succeeded()) << ran.out << ran.err;
    // A constructor injected into the program would have printed before main().
    EXPECT_EQ(ran.out.rfind("marker 90 scale 3\n", 0), 0u) << ran.out;
    // The origin reads back byte for byte from the header's string.
    EXPECT_EQ(ran.out.substr(ran.out.find('\n') + 1), hostile + "\n");
}

// docs/cmake.md's trust model, what an entry can do: a genome inside the grammar may still make a
// wrong kernel (here it deletes the scaling), and the build uses it as the entry says, because
// nothing at build time re-runs the variant. Review is the control.
TEST_F(EntryText, TrustModel_AWrongKernelWithinTheGrammarIsBuiltAsTheEntrySays) {
    std::vector<std::string> tail = {"--arch", "90", "--cache-dir", cache_.string(), "--genome", "<_scale.cu_9>",
                                     "--cases", "4", "--elements", "100"};
    const ProcessResult written = test::gi_tool(with_registration({"cache", "write", kEntryKernel}, tail));
    ASSERT_TRUE(written.succeeded()) << written.out << written.err;
    const ProcessResult r = apply({"--require"});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_NE(r.out.find("variant from"), std::string::npos) << r.out;
    const std::string variant = test::file_text(dir_ / "gen" / "scaleKernel.sm_90.cu");
    EXPECT_EQ(variant.find("v = v * SCALE;"), std::string::npos) << variant;
    EXPECT_NE(variant.find("out[i] = v + 1.0f;"), std::string::npos) << variant;
}

TEST_F(EntryText, Class2_ReviewAndBuildOutputCarryNoEscapeSequences) {
    // A5 and A6: a note and a waiver that would erase the lines above them.
    forge([](CacheEntry& e) {
        e.provenance.note = kEraseLines;
        e.provenance.waiver = "--allow-unvalidated\x1b[2K\x1b[1G";
    });
    for (const ProcessResult& r : {test::gi_tool({"cache", "show", cache_.string()}), apply(),
                                   test::gi_tool({"cache", "verify", cache_.string()})}) {
        EXPECT_FALSE(has_byte(r.out + r.err, '\x1b')) << r.out << r.err;
        EXPECT_NE((r.out + r.err).find("\\x1b"), std::string::npos) << r.out << r.err;
    }
    // A7: a recorded case's kernel name.
    TestCase tc;
    tc.kernel = "k\x1b[2J\x1b[31mRED";
    tc.grid = {1, 1, 1};
    tc.block = {1, 1, 1};
    const fs::path cases = dir_ / "cases";
    write_test_case(tc, cases);
    const ProcessResult r = test::gi_tool({"cases", cases.string()});
    EXPECT_FALSE(has_byte(r.out + r.err, '\x1b')) << r.out << r.err;
}

}  // namespace
}  // namespace gi
