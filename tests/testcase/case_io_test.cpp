#include "testcase/case_io.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "util/error.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

class TempDir {
public:
    TempDir() {
        std::random_device device;
        path_ = fs::temp_directory_path() / ("gi-case-test-" + std::to_string(device()));
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

TestCase sample_case() {
    TestCase tc;
    tc.kernel = "blurKernel";
    tc.grid = {128, 64, 1};
    tc.block = {32, 4, 1};
    tc.shared_bytes = 256;
    tc.device = "Test GPU";
    tc.compute_capability = 90;
    CaseBuffer in;
    in.size = 16;
    in.element = ElementType::F32;
    in.before = Bytes(16, 7);
    in.after = in.before;
    CaseBuffer out;
    out.size = 8;
    out.element = ElementType::I32;
    out.read_only = false;
    out.changed = true;
    out.before = Bytes(8, 0);
    out.after = Bytes{1, 2, 3, 4, 5, 6, 7, 8};
    tc.buffers = {in, out};
    CaseArg a0{CaseArg::Kind::Pointer, 8, ElementType::F32, {}, 0, 4, true};
    CaseArg a1{CaseArg::Kind::Pointer, 8, ElementType::I32, {}, 1, 0, false};
    CaseArg a2{CaseArg::Kind::Scalar, 4, ElementType::I32, {0x40, 0x01, 0, 0}, -1, 0, false};
    CaseArg a3{CaseArg::Kind::Null, 8, ElementType::F32, {}, -1, 0, true};
    tc.args = {a0, a1, a2, a3};
    return tc;
}

void overwrite(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string case_error_of(const fs::path& folder, CaseLoad load = CaseLoad::Data) {
    try {
        read_test_case(folder, load);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(TestCaseIo, RoundTripKeepsEverything) {
    TempDir dir;
    const TestCase tc = sample_case();
    const fs::path folder = write_test_case(tc, dir.path());
    EXPECT_EQ(folder.filename(), "blurKernel-0000");
    const TestCase back = read_test_case(folder);
    EXPECT_EQ(back.kernel, tc.kernel);
    EXPECT_EQ(back.grid, tc.grid);
    EXPECT_EQ(back.block, tc.block);
    EXPECT_EQ(back.shared_bytes, 256u);
    EXPECT_EQ(back.device, "Test GPU");
    EXPECT_EQ(back.compute_capability, 90);
    ASSERT_EQ(back.buffers.size(), 2u);
    EXPECT_EQ(back.buffers[0].before, tc.buffers[0].before);
    EXPECT_EQ(back.buffers[0].after, tc.buffers[0].before);
    EXPECT_TRUE(back.buffers[0].read_only);
    EXPECT_FALSE(back.buffers[0].changed);
    EXPECT_EQ(back.buffers[1].after, tc.buffers[1].after);
    EXPECT_TRUE(back.buffers[1].changed);
    EXPECT_EQ(back.buffers[1].element, ElementType::I32);
    EXPECT_EQ(back.buffers[1].after_sha256.size(), 64u);
    ASSERT_EQ(back.args.size(), 4u);
    EXPECT_EQ(back.args[0].kind, CaseArg::Kind::Pointer);
    EXPECT_EQ(back.args[0].offset, 4u);
    EXPECT_TRUE(back.args[0].is_const);
    EXPECT_EQ(back.args[2].value, tc.args[2].value);
    EXPECT_EQ(scalar_as_integer(back.args[2]), 320);
    EXPECT_EQ(back.args[3].kind, CaseArg::Kind::Null);
    // Unchanged buffers store one blob only.
    EXPECT_FALSE(fs::exists(folder / "buffer0.after.bin"));
    EXPECT_TRUE(fs::exists(folder / "buffer1.after.bin"));
}

TEST(TestCaseIo, ManifestOnlyReadsNoBlob) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    fs::remove(folder / "buffer1.after.bin");
    const TestCase tc = read_test_case(folder, CaseLoad::ManifestOnly);
    EXPECT_EQ(tc.buffers.size(), 2u);
    EXPECT_TRUE(tc.buffers[1].after.empty());
}

TEST(TestCaseIo, NumbersCasesAndLeavesNoTemporaryFolder) {
    TempDir dir;
    write_test_case(sample_case(), dir.path());
    const fs::path second = write_test_case(sample_case(), dir.path());
    EXPECT_EQ(second.filename(), "blurKernel-0001");
    for (const auto& entry : fs::directory_iterator(dir.path()))
        EXPECT_NE(entry.path().filename().string().rfind(".tmp-", 0), 0u) << entry.path();
    EXPECT_EQ(list_test_cases(dir.path(), "blurKernel").size(), 2u);
    EXPECT_EQ(list_test_cases(dir.path(), "blur").size(), 0u);
    EXPECT_EQ(list_test_cases(dir.path()).size(), 2u);
    EXPECT_EQ(list_test_cases(second).size(), 1u);  // a case folder lists itself
}

TEST(TestCaseIo, ListingIgnoresRecordingsInProgress) {
    TempDir dir;
    write_test_case(sample_case(), dir.path());
    fs::create_directories(dir.path() / ".tmp-blurKernel-123");
    overwrite(dir.path() / ".tmp-blurKernel-123" / "manifest.xml", "<half");
    EXPECT_EQ(list_test_cases(dir.path()).size(), 1u);
}

TEST(TestCaseIo, MissingFolderIsAClearError) {
    EXPECT_THROW(list_test_cases("/nonexistent/gi-cases"), Error);
    const std::string message = case_error_of("/nonexistent/gi-cases/k-0000");
    EXPECT_NE(message.find("manifest.xml"), std::string::npos) << message;
}

TEST(TestCaseIo, InconsistentCaseIsNotWritten) {
    TempDir dir;
    TestCase tc = sample_case();
    tc.buffers[1].after.pop_back();
    EXPECT_THROW(write_test_case(tc, dir.path()), Error);
    tc = sample_case();
    tc.args[0].buffer = 5;
    EXPECT_THROW(write_test_case(tc, dir.path()), Error);
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(TestCaseIo, TruncatedBlobNamesTheFile) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    overwrite(folder / "buffer1.after.bin", "abc");
    const std::string message = case_error_of(folder);
    EXPECT_NE(message.find("buffer1.after.bin"), std::string::npos) << message;
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST(TestCaseIo, CorruptBlobNamesTheFile) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    overwrite(folder / "buffer0.before.bin", std::string(16, 'x'));
    const std::string message = case_error_of(folder);
    EXPECT_NE(message.find("buffer0.before.bin"), std::string::npos) << message;
    EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
}

TEST(TestCaseIo, MissingBlobNamesTheFile) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    fs::remove(folder / "buffer0.before.bin");
    const std::string message = case_error_of(folder);
    EXPECT_NE(message.find("buffer0.before.bin"), std::string::npos) << message;
    EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

// Each edit of a valid manifest must give an error naming manifest.xml and saying what is wrong.
struct ManifestEdit {
    std::string from, to, expected;
};

class MalformedManifest : public ::testing::TestWithParam<ManifestEdit> {};

TEST_P(MalformedManifest, IsAClearError) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    std::string text = slurp(folder / "manifest.xml");
    const auto at = text.find(GetParam().from);
    ASSERT_NE(at, std::string::npos) << GetParam().from << " not in\n" << text;
    text.replace(at, GetParam().from.size(), GetParam().to);
    overwrite(folder / "manifest.xml", text);
    const std::string message = case_error_of(folder, CaseLoad::Data);
    EXPECT_NE(message.find("manifest.xml"), std::string::npos) << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    TestCaseIo, MalformedManifest,
    ::testing::Values(ManifestEdit{"</gi-test-case>", "", "malformed XML"},
                      ManifestEdit{"gi-test-case format=\"2\"", "gi-test-case format=\"7\"", "format 7"},
                      ManifestEdit{"<kernel name=\"blurKernel\"/>", "", "missing <kernel>"},
                      ManifestEdit{"grid=\"128,64,1\"", "grid=\"128,64\"", "three positive integers"},
                      ManifestEdit{"block=\"32,4,1\"", "block=\"32,0,1\"", "three positive integers"},
                      ManifestEdit{"shared-bytes=\"256\"", "shared-bytes=\"-1\"", "not a non-negative integer"},
                      ManifestEdit{"element=\"i32\" read-only", "element=\"int\" read-only", "unknown element type"},
                      ManifestEdit{"changed=\"true\"", "changed=\"maybe\"", "true or false"},
                      ManifestEdit{"kind=\"scalar\"", "kind=\"struct\"", "unknown argument kind"},
                      ManifestEdit{"bytes=\"40010000\"", "bytes=\"4001000\"", "not hexadecimal"},
                      ManifestEdit{"bytes=\"40010000\"", "bytes=\"41010000\"", "do not match their sha256"},
                      ManifestEdit{"buffer=\"1\"", "buffer=\"9\"", "points to buffer 9"},
                      ManifestEdit{"offset=\"4\"", "offset=\"400\"", "outside its buffer"},
                      ManifestEdit{"arg index=\"1\"", "arg index=\"3\"", "expected index 1"},
                      ManifestEdit{"file=\"buffer0.before.bin\"", "file=\"../x.bin\"", "plain file name"},
                      ManifestEdit{" size=\"16\"", "", "lacks the attribute 'size'"}));

TEST(TestCaseIo, ScalarAsInteger) {
    CaseArg a{CaseArg::Kind::Scalar, 4, ElementType::I32, {0xff, 0xff, 0xff, 0xff}, -1, 0, false};
    EXPECT_EQ(scalar_as_integer(a), -1);
    a.element = ElementType::U32;
    EXPECT_EQ(scalar_as_integer(a), 4294967295LL);
    a.element = ElementType::F32;
    EXPECT_EQ(scalar_as_integer(a), std::nullopt);
    a.element = ElementType::I64;  // wrong size for its type
    EXPECT_EQ(scalar_as_integer(a), std::nullopt);
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {
TEST(TestCaseIo, TrustedLoadSkipsOnlyTheChecksums) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    overwrite(folder / "buffer0.before.bin", std::string(16, 'x'));
    EXPECT_NO_THROW(read_test_case(folder, CaseLoad::DataTrusted));
    overwrite(folder / "buffer0.before.bin", "short");
    EXPECT_THROW(read_test_case(folder, CaseLoad::DataTrusted), Error);
}
}  // namespace
}  // namespace gi

namespace gi {
namespace {

// A case as the recorder writes one for `rowFilter(Params p)` with `struct Params { const float* in;
// float* out; int n; }` and a __constant__ weight array: the struct's pointers are embedded
// pointers, the weights a variable buffer.
TestCase struct_and_variable_case() {
    TestCase tc = sample_case();
    CaseBuffer weights;
    weights.size = 12;
    weights.variable = "c_Kernel";
    weights.before = weights.after = Bytes(12, 3);
    tc.buffers.push_back(weights);
    CaseBuffer table;  // an array of two pointers, to buffer 0 and 1
    table.size = 16;
    table.read_only = true;
    table.before = table.after = Bytes(16, 9);
    table.pointers = {{0, 0, 4}, {8, 1, 0}};
    tc.buffers.push_back(table);
    CaseArg params{CaseArg::Kind::Scalar, 24, ElementType::Bytes, Bytes(24, 1), -1, 0, false};
    params.pointers = {{0, 0, 0}, {8, 1, 4}};
    tc.args.push_back(params);
    return tc;
}

TEST(TestCaseIo, VariablesAndEmbeddedPointersRoundTrip) {
    TempDir dir;
    const fs::path folder = write_test_case(struct_and_variable_case(), dir.path());
    const TestCase back = read_test_case(folder);
    ASSERT_EQ(back.buffers.size(), 4u);
    EXPECT_EQ(back.buffers[2].variable, "c_Kernel");
    EXPECT_TRUE(back.buffers[2].read_only);
    EXPECT_EQ(back.buffers[3].pointers, (std::vector<EmbeddedPointer>{{0, 0, 4}, {8, 1, 0}}));
    ASSERT_EQ(back.args.size(), 5u);
    EXPECT_EQ(back.args[4].pointers, (std::vector<EmbeddedPointer>{{0, 0, 0}, {8, 1, 4}}));
    EXPECT_TRUE(back.buffers[0].variable.empty());
    EXPECT_TRUE(back.args[2].pointers.empty());
}

TEST(TestCaseIo, FormatOneCasesStillRead) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    std::string text = slurp(folder / "manifest.xml");
    text.replace(text.find("format=\"2\""), 10, "format=\"1\"");
    overwrite(folder / "manifest.xml", text);
    EXPECT_EQ(read_test_case(folder).buffers.size(), 2u);
}

TEST(TestCaseIo, EmbeddedPointersThatDoNotHoldAreRefusedWhenWrittenAndRead) {
    TempDir dir;
    TestCase tc = struct_and_variable_case();
    tc.args[4].pointers[1].at = 20;  // 8 bytes from byte 20 overrun the 24-byte struct
    try {
        write_test_case(tc, dir.path());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("argument 4: an embedded pointer at byte 20 does not fit its 24 bytes"),
                  std::string::npos)
            << e.what();
    }
    const fs::path folder = write_test_case(struct_and_variable_case(), dir.path());
    const std::string good = slurp(folder / "manifest.xml");
    const std::vector<std::pair<std::string, std::string>> edits = {
        {"<pointer at=\"8\" buffer=\"1\" offset=\"0\"/>", "<pointer at=\"8\" buffer=\"7\" offset=\"0\"/>"},
        {"<pointer at=\"0\" buffer=\"0\" offset=\"4\"/>", "<pointer at=\"0\" buffer=\"0\" offset=\"99\"/>"},
        {"<pointer at=\"8\" buffer=\"1\" offset=\"4\"/>", "<pointer at=\"8\" buffer=\"1\" offset=\"x\"/>"},
        {"variable=\"c_Kernel\"", "variable=\"\""}};
    const std::vector<std::string> expected = {"points to buffer 7, which does not exist", "beyond its 16 bytes",
                                               "not a non-negative integer", "'variable' is empty"};
    for (std::size_t i = 0; i < edits.size(); ++i) {
        std::string text = good;
        const auto at = text.find(edits[i].first);
        ASSERT_NE(at, std::string::npos) << edits[i].first << " not in\n" << text;
        text.replace(at, edits[i].first.size(), edits[i].second);
        overwrite(folder / "manifest.xml", text);
        const std::string message = case_error_of(folder);
        EXPECT_NE(message.find("manifest.xml:"), std::string::npos) << message;
        EXPECT_NE(message.find(expected[i]), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// A template's instantiation is named with its arguments; its folder name cannot hold them.
TEST(TestCaseIo, AnInstantiationsCasesHaveFolderSafeNamesAndKeepTheirSymbol) {
    TempDir dir;
    TestCase tc = sample_case();
    tc.kernel = "MatrixMulCUDA<32>";
    tc.symbol = "_Z13MatrixMulCUDAILi32EEvPfPKfS2_ii";
    const fs::path folder = write_test_case(tc, dir.path());
    EXPECT_EQ(folder.filename(), "MatrixMulCUDA_32_-0000");
    const std::vector<fs::path> found = list_test_cases(dir.path(), "MatrixMulCUDA<32>");
    ASSERT_EQ(found.size(), 1u);
    const TestCase back = read_test_case(found[0]);
    EXPECT_EQ(back.kernel, "MatrixMulCUDA<32>");
    EXPECT_EQ(back.symbol, tc.symbol);
    EXPECT_TRUE(list_test_cases(dir.path(), "MatrixMulCUDA<16>").empty());
}

// Two names one folder name stands for ("K<16>" and "K_16_"): each kernel lists its own cases.
TEST(TestCaseIo, KernelsSharingAFolderNameListTheirOwnCases) {
    TempDir dir;
    TestCase angle = sample_case();
    angle.kernel = "K<16>";
    TestCase plain = sample_case();
    plain.kernel = "K_16_";
    EXPECT_EQ(write_test_case(angle, dir.path()).filename(), "K_16_-0000");
    EXPECT_EQ(write_test_case(plain, dir.path()).filename(), "K_16_-0001");
    EXPECT_EQ(list_test_cases(dir.path(), "K<16>"), std::vector<fs::path>{dir.path() / "K_16_-0000"});
    EXPECT_EQ(list_test_cases(dir.path(), "K_16_"), std::vector<fs::path>{dir.path() / "K_16_-0001"});
    EXPECT_EQ(list_test_cases(dir.path()).size(), 2u);
    // A case folder given itself is a case of the kernel its manifest names.
    EXPECT_EQ(list_test_cases(dir.path() / "K_16_-0000", "K<16>").size(), 1u);
    EXPECT_TRUE(list_test_cases(dir.path() / "K_16_-0000", "K_16_").empty());
}

TEST(TestCaseIo, AFolderNamedForAnotherKernelIsAnErrorWhenListed) {
    TempDir dir;
    fs::rename(write_test_case(sample_case(), dir.path()), dir.path() / "k-0000");
    for (const std::string& kernel : {std::string("k"), std::string()}) {
        try {
            list_test_cases(dir.path(), kernel);
            ADD_FAILURE() << "listing '" << kernel << "' took a case of blurKernel named k-0000";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("k-0000: the folder is named for kernel 'k' but its manifest.xml records a "
                                                 "launch of 'blurKernel'"),
                      std::string::npos)
                << e.what();
        }
    }
    EXPECT_TRUE(list_test_cases(dir.path(), "blurKernel").empty());  // its name selects no folder
}

TEST(TestCaseIo, MovedCasesTakeTheFirstFreeNumbers) {
    TempDir dir;
    const fs::path out = dir.path() / "out";
    write_test_case(sample_case(), out);
    const fs::path elsewhere = write_test_case(sample_case(), dir.path() / "private");
    const fs::path moved = move_test_case(elsewhere, out);
    EXPECT_EQ(moved, out / "blurKernel-0001");
    EXPECT_FALSE(fs::exists(elsewhere));
    EXPECT_EQ(read_test_case(moved).buffers[1].after, sample_case().buffers[1].after);
    EXPECT_EQ(list_test_cases(out, "blurKernel").size(), 2u);
}

TEST(TestCaseIo, ABlobThatIsNoPlainFileIsNamedSo) {
    TempDir dir;
    const fs::path folder = write_test_case(sample_case(), dir.path());
    const fs::path blob = folder / "buffer0.before.bin";
    fs::rename(blob, dir.path() / "elsewhere.bin");
    fs::create_symlink(dir.path() / "elsewhere.bin", blob);
    std::string message = case_error_of(folder);
    EXPECT_NE(message.find("is a symbolic link"), std::string::npos) << message;
    fs::remove(blob);
    fs::create_directory(blob);
    message = case_error_of(folder);
    EXPECT_NE(message.find("is not a regular file (a folder)"), std::string::npos) << message;
}

TEST(TestCaseIo, APointerIntoAnEmptyBufferTakesOffsetZeroOnly) {
    TempDir dir;
    TestCase tc = sample_case();
    tc.buffers[0].size = 0;
    tc.buffers[0].before = tc.buffers[0].after = {};
    tc.args[0].offset = 0;
    EXPECT_EQ(case_error_of(write_test_case(tc, dir.path())), "");
    tc.args[0].offset = 1;
    const std::string message = case_error_of(write_test_case(tc, dir.path()), CaseLoad::ManifestOnly);
    EXPECT_NE(message.find("pointer offset 1 lies outside its buffer of 0 bytes"), std::string::npos) << message;
}

}  // namespace
}  // namespace gi
