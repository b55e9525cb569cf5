// Issue 39, classes 4, 5, 6, 10, 11, 12 and 22 of the second hostile-input probe: where gi-tool
// writes (never through a planted link, never over an input, never half a file, nothing left
// behind), what it reads (every input through one guard, with a size limit), and reading a run
// from read-only media. The probe's row IDs (B9, A25, ...) are in the test names' comments.
// Everything here runs without a GPU.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "genome/genome_list.hpp"
#include "process/process.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::vector<std::string> kOutputsRegistration = {
    "--function", "scaleKernel", "--param", "SCALE=2,3,4", "--param", "BLOCK=64,128,256", "--flag", "-use_fast_math",
    "--block-size", "BLOCK", "--grid", "(n+BLOCK-1)/BLOCK", "--tolerance", "exact"};

class OutputPaths : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = test::fresh_temp_dir("gi-output-paths");
        fs::create_directories(dir_);
        kernel_ = dir_ / "k.cu";
        fs::copy_file(fs::path(GI_TEST_DATA_DIR) / "search" / "small.cu", kernel_);
        scale_ = dir_ / "scale.cu";
        fs::copy_file(fs::path(GI_TEST_DATA_DIR) / "cache" / "scale.cu", scale_);
        precious_ = dir_ / "precious.txt";
        std::ofstream(precious_) << "the user's";
    }

    ProcessResult tool(std::vector<std::string> arguments, std::chrono::seconds timeout = 120s) const {
        arguments.insert(arguments.begin(), GI_TOOL_PATH);
        ProcessOptions options;
        options.timeout = timeout;
        return run_process(arguments, options);
    }
    // `script` run by sh, with "$GI" the gi-tool under test.
    ProcessResult shell(const std::string& script, std::chrono::seconds timeout = 120s) const {
        ProcessOptions options;
        options.timeout = timeout;
        options.working_directory = dir_;
        return run_process({"/bin/sh", "-c", "GI='" + std::string(GI_TOOL_PATH) + "'; " + script}, options);
    }
    std::vector<std::string> evolve(const fs::path& kernel, const fs::path& out) const {
        return {"evolve", kernel.string(), "--function", "scale", "--param", "BLOCK=32,64,128", "--evaluator", "fake",
                "--generations", "2", "--population", "4", "--quiet", "--out", out.string()};
    }
    fs::path run_folder() const {
        const fs::path out = dir_ / "run";
        const ProcessResult r = tool(evolve(kernel_, out));
        EXPECT_TRUE(r.succeeded()) << r.out << r.err;
        return out;
    }
    std::vector<std::string> cache_command(const std::string& sub, const std::vector<std::string>& more) const {
        std::vector<std::string> args = {"cache", sub, scale_.string()};
        args.insert(args.end(), kOutputsRegistration.begin(), kOutputsRegistration.end());
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }
    fs::path cache_with_entry() const {
        const fs::path cache = dir_ / "cache";
        const ProcessResult r = tool(cache_command(
            "write", {"--arch", "90", "--cache-dir", cache.string(), "--genome", "SCALE=3", "--allow-unvalidated"}));
        EXPECT_TRUE(r.succeeded()) << r.out << r.err;
        return cache;
    }
    std::vector<std::string> apply_into(const fs::path& cache, const fs::path& wrapper, const fs::path& header,
                                        const fs::path& options) const {
        return cache_command("apply", {"--cache-dir", cache.string(), "--arch", "90", "--wrapper", wrapper.string(),
                                       "--header", header.string(), "--options-file", options.string()});
    }
    // Files in `folder` whose name says they are a writer's temporary.
    static std::vector<std::string> temporaries_in(const fs::path& folder) {
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(folder))
            if (entry.path().filename().string().find(".tmp") != std::string::npos)
                found.push_back(entry.path().filename().string());
        return found;
    }

    // A process a failed expectation left running (an evolve waiting on its compiler) is ended.
    void TearDown() override {
        for (const pid_t child : children_) {
            int status = 0;
            if (::waitpid(child, &status, WNOHANG) == 0) {
                ::kill(child, SIGKILL);
                ::waitpid(child, &status, 0);
            }
        }
    }

    fs::path dir_, kernel_, scale_, precious_;
    std::vector<pid_t> children_;
};

// ---- class 4: links planted in output folders -------------------------------------------------

TEST_F(OutputPaths, Class4_B9_ALockFileThatIsALinkIsRefusedAndItsTargetKept) {
    fs::create_directories(dir_ / "lk");
    fs::create_symlink(precious_, dir_ / "lk" / ".gi-lock");
    const ProcessResult r = tool(evolve(kernel_, dir_ / "lk"));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find(".gi-lock: is a symbolic link, not gi-tool's lock file"), std::string::npos) << r.err;
    EXPECT_EQ(test::file_text(precious_), "the user's");
}

TEST_F(OutputPaths, Class4_B11_AReportNeverWritesThroughALinkPlantedAsItsTemporary) {
    const fs::path run = run_folder();
    // The name the report's temporary had (FILE.tmp<pid>), planted by a process that then becomes gi-tool.
    const ProcessResult r = shell("ln -s '" + precious_.string() + "' '" + (run / "report.html").string() +
                                  ".tmp'$$ && exec \"$GI\" report --out '" + run.string() + "'");
    EXPECT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_EQ(test::file_text(precious_), "the user's");
    EXPECT_FALSE(fs::is_symlink(run / "report.html"));
    EXPECT_NE(test::file_text(run / "report.html").find("<html"), std::string::npos);
}

TEST_F(OutputPaths, Class4_B10_ACacheReviewPageNeverWritesThroughALinkPlantedAsItsTemporary) {
    const fs::path cache = cache_with_entry();
    fs::create_directories(dir_ / "shared");
    fs::create_symlink(precious_, dir_ / "shared" / "review.html.tmp");
    const ProcessResult r = tool({"cache", "show", cache.string(), "--html", (dir_ / "shared" / "review.html").string()});
    EXPECT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_EQ(test::file_text(precious_), "the user's");
    EXPECT_FALSE(fs::is_symlink(dir_ / "shared" / "review.html"));
}

// ---- class 5: outputs that overwrite inputs ---------------------------------------------------

TEST_F(OutputPaths, Class5_B1_B3_B7_NoOutputReplacesTheKernelOrACacheEntry) {
    const fs::path cache = cache_with_entry();
    const fs::path entry = cache / "scaleKernel.sm_90.xml";
    const std::string kernel_text = test::file_text(kernel_), scale_text = test::file_text(scale_),
                      entry_text = test::file_text(entry);
    fs::create_symlink(kernel_, dir_ / "link.cu");
    struct Refused {
        std::vector<std::string> command;
        std::string message;
    };
    const std::vector<Refused> refused = {
        {{"grammar", kernel_.string(), "--function", "scale", "-o", kernel_.string()},  // B1
         "-o " + kernel_.string() + " is the kernel file itself; write the grammar to another file"},
        {{"grammar", kernel_.string(), "--function", "scale", "-o", (dir_ / "link.cu").string()},
         "is the kernel file itself; write the grammar to another file"},
        {{"cache", "show", cache.string(), "--html", entry.string()},  // B2
         "--html " + entry.string() + " would be an entry of the cache folder"},
        {{"cache", "show", cache.string(), "--html", (cache / "new.xml").string()}, "would be an entry of the cache folder"},
        {{"cache", "show", entry.string(), "--html", entry.string()}, "is a cache entry it shows itself"},
        {{"cache", "show", cache.string(), "--html", scale_.string(), "--kernel", scale_.string()},  // B3
         "--html " + scale_.string() + " is the kernel file itself"},
        {apply_into(cache, scale_, dir_ / "gen" / "h.gi.h", dir_ / "gen" / "o.options"),  // B7
         "--wrapper " + scale_.string() + " is the kernel file itself"},
        {apply_into(cache, dir_ / "gen" / "k.gi.cu", entry, dir_ / "gen" / "o.options"),
         "--header " + entry.string() + " would be an entry of the cache folder"},
        {apply_into(cache, dir_ / "gen" / "k.gi.cu", dir_ / "gen" / "k.gi.cu", dir_ / "gen" / "o.options"),
         "--header " + (dir_ / "gen" / "k.gi.cu").string() + " is also the file of --wrapper"},
    };
    for (const Refused& r : refused) {
        const ProcessResult run = tool(r.command);
        EXPECT_EQ(run.exit_code, 2) << r.message << "\n" << run.out << run.err;
        EXPECT_NE(run.err.find(r.message), std::string::npos) << run.err;
    }
    EXPECT_EQ(test::file_text(kernel_), kernel_text);
    EXPECT_EQ(test::file_text(scale_), scale_text);
    EXPECT_EQ(test::file_text(entry), entry_text);
    EXPECT_FALSE(fs::exists(cache / "new.xml"));
    EXPECT_FALSE(fs::exists(dir_ / "gen")) << "a refused command wrote some of its outputs";
    // The variant file beside the wrapper is an output too: it may not be the kernel.
    fs::create_directories(dir_ / "beside");
    fs::copy_file(scale_, dir_ / "beside" / "scaleKernel.sm_90.cu");
    const fs::path beside_kernel = dir_ / "beside" / "scaleKernel.sm_90.cu";
    std::vector<std::string> beside = {"cache", "apply", beside_kernel.string()};
    beside.insert(beside.end(), kOutputsRegistration.begin(), kOutputsRegistration.end());
    beside.insert(beside.end(), {"--cache-dir", cache.string(), "--arch", "90", "--wrapper", (dir_ / "beside" / "w.cu").string(),
                                 "--header", (dir_ / "h.gi.h").string(), "--options-file", (dir_ / "o.options").string()});
    const ProcessResult run = tool(beside);
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("the variant file beside --wrapper: " + beside_kernel.string() + " is the kernel file itself"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(test::file_text(beside_kernel), scale_text);
}

TEST_F(OutputPaths, Class5_B4_B6_AReportReplacesNothingOfItsRunNorTheKernel) {
    const fs::path run = run_folder();
    for (const char* name : {"checkpoint.xml", "history.sqlite", "run.xml", "best.cu", "best.genome"}) {
        if (!fs::exists(run / name)) continue;
        const std::string before = test::file_text(run / name);
        const ProcessResult r = tool({"report", "--out", run.string(), "-o", (run / name).string()});
        EXPECT_EQ(r.exit_code, 2) << name << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find(std::string("is the run's ") + name + " itself; write the page to another file"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(test::file_text(run / name), before) << name;
    }
    const std::string kernel_text = test::file_text(kernel_);
    const ProcessResult r = tool({"report", "--out", run.string(), "-o", kernel_.string(), kernel_.string(), "--function",
                                  "scale", "--param", "BLOCK=32,64,128"});  // B6
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("is the kernel file itself"), std::string::npos) << r.err;
    EXPECT_EQ(test::file_text(kernel_), kernel_text);
}

TEST_F(OutputPaths, Class5_B8_EvolveRefusesAKernelThatIsOneOfItsOutputs) {
    const fs::path folder = dir_ / "kb";
    fs::create_directories(folder);
    fs::copy_file(kernel_, folder / "best.cu");
    const std::string original = test::file_text(folder / "best.cu");
    const ProcessResult r = tool(evolve(folder / "best.cu", folder));
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("kb/best.cu is the kernel file itself; evolve writes its best.cu there: choose another --out folder"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(test::file_text(folder / "best.cu"), original);
    EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1) << "evolve wrote into the folder";
}

// ---- class 6: every input through the same guard ----------------------------------------------

TEST_F(OutputPaths, Class6_B24_B25_ABestGenomeThatIsADeviceOrAFifoIsRefusedAtOnce) {
    const fs::path run = run_folder();
    const std::vector<std::string> write = {"--arch", "90", "--cache-dir", (dir_ / "cw").string(), "--from-run", run.string(),
                                            "--allow-unvalidated", "--allow-unfinished"};
    std::vector<std::string> command = {"cache", "write", kernel_.string(), "--function", "scale", "--param",
                                        "BLOCK=32,64,128"};
    command.insert(command.end(), write.begin(), write.end());
    fs::remove(run / "best.genome");
    fs::create_symlink("/dev/null", run / "best.genome");  // a device: read as an empty genome before
    ProcessResult r = tool(command, 30s);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("best.genome: is not a regular file (a device or a pipe?)"), std::string::npos) << r.err;
    fs::remove(run / "best.genome");
    ASSERT_EQ(::mkfifo((run / "best.genome").c_str(), 0644), 0);  // hung until killed before
    r = tool(command, 30s);
    EXPECT_FALSE(r.timed_out) << "reading a FIFO as the genome hangs";
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("best.genome: is not a regular file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "cw"));
}

TEST_F(OutputPaths, Class6_AGenomeListThatIsAFifoIsRefusedAtOnce) {
    // cuda-bench --genomes read its file with a plain stream: a FIFO waited for a writer.
    const fs::path fifo = dir_ / "genomes.txt";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    std::atomic<bool> done{false};
    std::thread writer([&] {  // ends a wait that would otherwise never end
        for (int i = 0; i < 30 && !done; ++i) std::this_thread::sleep_for(100ms);
        const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
    });
    const auto start = std::chrono::steady_clock::now();
    std::string message = "read";
    try {
        read_genome_lines(fifo.string());
    } catch (const Error& e) {
        message = e.what();
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    done = true;
    writer.join();
    EXPECT_NE(message.find("genomes.txt: is not a regular file (a device or a pipe?)"), std::string::npos) << message;
    EXPECT_LT(waited, 2s);
}

// ---- class 10: full disks, signals ------------------------------------------------------------

// A "disk" of 512 (dash) or 1024 (bash) bytes per file, as a full one: writes past it fail (EFBIG).
std::string on_a_full_disk(const std::string& command) {
    return "trap '' XFSZ; ulimit -f 1 && exec \"$GI\" " + command;
}

TEST_F(OutputPaths, Class10_B12_B16_B17_B18_AFullDiskLeavesTheOldFilesNoTemporaryAndSaysWhy) {
    const fs::path cache = cache_with_entry();
    const std::string entry = test::file_text(cache / "scaleKernel.sm_90.xml");
    std::string reg;
    for (const std::string& word : kOutputsRegistration) reg += " '" + word + "'";
    // B12: cache write over a good entry.
    ProcessResult r = shell(on_a_full_disk("cache write scale.cu" + reg + " --arch 90 --cache-dir cache --genome "
                                           "'SCALE=4' --allow-unvalidated --note '" + std::string(600, 'n') + "'"));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_EQ(test::file_text(cache / "scaleKernel.sm_90.xml"), entry);
    EXPECT_TRUE(temporaries_in(cache).empty()) << temporaries_in(cache).front();
    // B16: cache apply's generated files.
    r = shell(on_a_full_disk("cache apply scale.cu" + reg + " --cache-dir cache --arch 90 --wrapper gen/k.gi.cu "
                                                             "--header gen/k.gi.h --options-file gen/k.options"));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_TRUE(temporaries_in(dir_ / "gen").empty()) << temporaries_in(dir_ / "gen").front();
    // B17: grammar -o over a file it would truncate.
    std::ofstream(dir_ / "g.bnf") << "the previous grammar";
    r = shell(on_a_full_disk("grammar k.cu --function scale --param BLOCK=32,64,128 -o g.bnf"));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_EQ(test::file_text(dir_ / "g.bnf"), "the previous grammar");
    // B18: the review page.
    r = shell(on_a_full_disk("cache show cache --html page.html"));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "page.html"));
    EXPECT_TRUE(temporaries_in(dir_).empty()) << temporaries_in(dir_).front();
}

TEST_F(OutputPaths, Class10_E20_SigtermOrSigintDuringEvolveLeaveNoCompileFolder) {
    // A compiler that takes its time (as nvcc does) and goes when gi-tool goes.
    const fs::path nvcc = dir_ / "slow-nvcc.sh";
    std::ofstream(nvcc) << "#!/bin/sh\nwhile kill -0 $PPID 2>/dev/null; do sleep 0.1; done\n";
    fs::permissions(nvcc, fs::perms::owner_all);
    for (const int signal : {SIGTERM, SIGINT}) {
        const fs::path temp = dir_ / ("tmp" + std::to_string(signal));
        fs::create_directories(temp);
        const pid_t child = ::fork();
        if (child == 0) {
            ::setenv("TMPDIR", temp.c_str(), 1);
            ::signal(SIGINT, SIG_DFL);
            const std::string out = (dir_ / ("co" + std::to_string(signal))).string();
            ::execl(GI_TOOL_PATH, GI_TOOL_PATH, "evolve", kernel_.c_str(), "--function", "scale", "--param",
                    "BLOCK=32,64,128", "--evaluator", "compile-only", "--nvcc", nvcc.c_str(), "--generations", "3",
                    "--population", "4", "--quiet", "--out", out.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ASSERT_GT(child, 0);
        children_.push_back(child);
        auto compile_folders = [&] {
            int n = 0;
            for (const auto& entry : fs::directory_iterator(temp)) n += entry.path().filename().string().rfind("gi-", 0) == 0;
            return n;
        };
        for (int wait = 0; wait < 600 && compile_folders() == 0; ++wait) std::this_thread::sleep_for(50ms);
        EXPECT_GT(compile_folders(), 0) << "evolve made no temporary compile folder";
        std::this_thread::sleep_for(300ms);  // the compiler running
        ::kill(child, signal);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "status " << status;
        EXPECT_EQ(compile_folders(), 0) << "signal " << signal << " left a temporary folder in " << temp;
    }
}

// ---- class 11: history on read-only media, or while it is made --------------------------------

TEST_F(OutputPaths, Class11_B22_HistoryReadsAGoodRunOnReadOnlyMedia) {
    const fs::path run = run_folder();
    // A read-only bind mount in a private mount namespace (no root needed where user namespaces are).
    const ProcessResult probe = shell("unshare -rm sh -c \"mount --bind '" + run.string() + "' '" + run.string() +
                                      "' && mount -o remount,bind,ro '" + run.string() + "' && ! touch '" +
                                      run.string() + "/x'\" 2>&1");
    if (!probe.succeeded()) GTEST_SKIP() << "cannot make a read-only mount here: " << probe.out << probe.err;
    const ProcessResult r =
        shell("unshare -rm sh -c \"mount --bind '" + run.string() + "' '" + run.string() +
              "' && mount -o remount,bind,ro '" + run.string() + "' && exec \\\"$GI\\\" history --out '" + run.string() +
              "' --best 2\"");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.err.find("not a gi-optimize history database"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("speedup"), std::string::npos) << r.out;
}

TEST_F(OutputPaths, Class11_E16_HistoryOfADatabaseWithoutTablesYetIsNotCalledForeign) {
    fs::create_directories(dir_ / "starting");
    std::ofstream{dir_ / "starting" / "history.sqlite"};  // evolve has created it, not yet its tables
    const ProcessResult r = tool({"history", "--out", (dir_ / "starting").string()});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_EQ(r.err.find("move it away"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("holds no history yet"), std::string::npos) << r.err;
}

// ---- class 12: size limits --------------------------------------------------------------------

TEST_F(OutputPaths, Class12_B29_B30_AnOversizedRunRecordOrManifestIsRefusedBeforeItIsRead) {
    fs::create_directories(dir_ / "hugerun");
    fs::create_directories(dir_ / "hugecase" / "k-0000");
    for (const fs::path& file : {dir_ / "hugerun" / "run.xml", dir_ / "hugecase" / "k-0000" / "manifest.xml"}) {
        std::ofstream(file) << "<x/>";
        fs::resize_file(file, std::uintmax_t{8} << 30);  // sparse: no disk used
    }
    // A memory limit as the probe's: without the size check these end in std::bad_alloc.
    ProcessResult r = shell("ulimit -v 4000000 && exec \"$GI\" report --out hugerun");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("run.xml: the run record has 8589934592 bytes, more than the"), std::string::npos) << r.err;
    r = shell("ulimit -v 4000000 && exec \"$GI\" cases hugecase");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("manifest.xml: the test-case manifest has 8589934592 bytes, more than the"), std::string::npos)
        << r.err;
}

TEST_F(OutputPaths, Class12_C9_AHugeBlobIsVerifiedInPiecesNotHeldInMemory) {
    TestCase tc;
    tc.kernel = "k";
    tc.grid = {1, 1, 1};
    tc.block = {32, 1, 1};
    CaseBuffer buffer;
    buffer.size = 4;
    buffer.element = ElementType::F32;
    buffer.before = Bytes(4, 0);
    buffer.after = Bytes(4, 0);
    tc.buffers = {buffer};
    CaseArg pointer;
    pointer.kind = CaseArg::Kind::Pointer;
    pointer.size = 8;
    pointer.element = ElementType::F32;
    pointer.buffer = 0;
    tc.args = {pointer};
    const fs::path folder = write_test_case(tc, dir_ / "bigcase");
    // 256 MiB of zeros, sparse, where the manifest says 4 bytes: the manifest says so too now.
    constexpr std::uintmax_t kBig = std::uintmax_t{256} << 20;
    const fs::path manifest = folder / kManifestName;
    std::string text = test::file_text(manifest);
    const std::size_t at = text.find("size=\"4\"");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, 8, "size=\"" + std::to_string(kBig) + "\"");
    std::ofstream(manifest, std::ios::binary | std::ios::trunc) << text;
    fs::resize_file(folder / "buffer0.before.bin", kBig);
    // gi-tool itself maps 100-150 MB (NVRTC's library): held whole, the blob would not fit beside
    // it under this limit; hashed in pieces, it is found corrupt.
    const ProcessResult r = shell("ulimit -v 350000 && exec \"$GI\" cases bigcase", 300s);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("buffer0.before.bin: corrupt test-case data: its sha256 differs"), std::string::npos) << r.err;
}

// ---- class 22: concurrent writers of the same outputs -----------------------------------------

TEST_F(OutputPaths, Class22_A25_EightConcurrentCacheAppliesIntoTheSameOutputsAllSucceed) {
    const fs::path cache = cache_with_entry();
    const fs::path gen = dir_ / "capp";
    for (int round = 0; round < 3; ++round) {
        std::vector<ProcessResult> results(8);
        std::vector<std::thread> builds;
        for (int i = 0; i < 8; ++i)
            builds.emplace_back([&, i] { results[i] = tool(apply_into(cache, gen / "k.gi.cu", gen / "k.gi.h", gen / "k.options")); });
        for (std::thread& t : builds) t.join();
        for (const ProcessResult& r : results) EXPECT_TRUE(r.succeeded()) << "round " << round << ": " << r.out << r.err;
    }
    EXPECT_TRUE(temporaries_in(gen).empty());
    EXPECT_NE(test::file_text(gen / "k.gi.cu").find("scaleKernel"), std::string::npos);
}

}  // namespace
}  // namespace gi
