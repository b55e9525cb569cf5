#include "cache/entry.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <atomic>
#include <functional>
#include <thread>
#include <unistd.h>

#include "cache/files.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

CacheEntry sample() {
    CacheEntry e;
    e.kernel_file = "stereo.cu";
    e.architecture = 90;
    e.key = std::string(64, 'a');
    e.source_sha256 = std::string(64, 'b');
    e.grammar_version = 1;
    e.registration.functions = {"stereoKernel"};
    e.registration.params = {"BLOCK_W=32,64,128"};
    e.registration.flags = {"-use_fast_math"};
    e.registration.block_size = "BLOCK_W";
    e.registration.grid = "20,240";
    e.registration.tolerance = {"exact"};
    e.genome = "BLOCK_W=32 <_stereo.cu_88> <IF_stereo.cu_90><IF_stereo.cu_95> <_stereo.cu_70>+<_stereo.cu_71>";
    e.parameters = {{"BLOCK_W", "32"}};
    e.provenance.origin = "evolved";
    e.provenance.gpu = "NVIDIA H100 80GB HBM3";
    e.provenance.driver = "580.65";
    e.provenance.nvcc = "13.0.48";
    e.provenance.date = "2025-01-02T03:04:05Z";
    e.provenance.tool_version = "0.1.0";
    e.provenance.original_ms = 1.2345678912345;
    e.provenance.variant_ms = 0.1;
    e.provenance.cases_validated = 12;
    e.provenance.elements_validated = 921600;
    e.provenance.worst_error = 0;
    e.provenance.note = "seed 1 & <budget> 5 min";
    seal(e);
    return e;
}

std::string expect_corrupt(const std::string& xml) {
    try {
        parse_cache_entry(xml, "gi-cache/k.sm_90.xml");
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("gi-cache/k.sm_90.xml"), std::string::npos) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "parsed without error:\n" << xml;
    return {};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

TEST(CacheEntry, XmlRoundTripsExactly) {
    const CacheEntry e = sample();
    const std::string xml = entry_to_xml(e);
    EXPECT_NE(xml.find("<![CDATA[BLOCK_W=32 <_stereo.cu_88>"), std::string::npos) << xml;
    const CacheEntry back = parse_cache_entry(xml, "x.xml");
    EXPECT_EQ(back, e);
    EXPECT_TRUE(checksum_matches(back));
    EXPECT_EQ(entry_to_xml(back), xml);
}

// Entries already shipped must keep reading and checksumming as written: the writer, the reader and
// the checksum walk one declaration of the fields, and a change to it shows here as a byte difference.
TEST(CacheEntry, AShippedEntryIsWrittenBackByteForByte) {
    const std::filesystem::path path = std::filesystem::path(GI_SOURCE_DIR) / "consumer-example/gi-cache/stereo_kernel.sm_90.xml";
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty()) << path;
    const CacheEntry entry = parse_cache_entry(text, path.string());
    EXPECT_TRUE(checksum_matches(entry));
    EXPECT_EQ(entry_to_xml(entry), text);
}

TEST(CacheEntry, ChecksumCoversEveryField) {
    const CacheEntry base = sample();
    const std::vector<std::function<void(CacheEntry&)>> edits = {
        [](CacheEntry& e) { e.kernel_file = "other.cu"; },
        [](CacheEntry& e) { e.architecture = 80; },
        [](CacheEntry& e) { e.key[0] = 'c'; },
        [](CacheEntry& e) { e.source_sha256[3] = 'c'; },
        [](CacheEntry& e) { e.grammar_version = 2; },
        [](CacheEntry& e) { e.registration.functions.push_back("x"); },
        [](CacheEntry& e) { e.registration.params[0] = "BLOCK_W=32"; },
        [](CacheEntry& e) { e.registration.flags.clear(); },
        [](CacheEntry& e) { e.registration.block_size = "64"; },
        [](CacheEntry& e) { e.registration.grid = "1"; },
        [](CacheEntry& e) { e.registration.tolerance = {"abs=1"}; },
        [](CacheEntry& e) { e.genome = "BLOCK_W=64"; },
        [](CacheEntry& e) { e.parameters[0].value = "64"; },
        [](CacheEntry& e) { e.provenance.origin = "x"; },
        [](CacheEntry& e) { e.provenance.gpu = "x"; },
        [](CacheEntry& e) { e.provenance.driver = "x"; },
        [](CacheEntry& e) { e.provenance.nvcc = "x"; },
        [](CacheEntry& e) { e.provenance.date = "x"; },
        [](CacheEntry& e) { e.provenance.tool_version = "x"; },
        [](CacheEntry& e) { e.provenance.original_ms = 2; },
        [](CacheEntry& e) { e.provenance.variant_ms = 0.01; },
        [](CacheEntry& e) { e.provenance.cases_validated = 1; },
        [](CacheEntry& e) { e.provenance.elements_validated = 1; },
        [](CacheEntry& e) { e.provenance.worst_error = 1e-3; },
        [](CacheEntry& e) { e.provenance.note = ""; },
    };
    for (std::size_t i = 0; i < edits.size(); ++i) {
        CacheEntry e = base;
        edits[i](e);
        EXPECT_FALSE(checksum_matches(e)) << "edit " << i << " not detected";
    }
}

TEST(CacheEntry, HandEditedValueIsDetectedReformattingIsNot) {
    const std::string xml = entry_to_xml(sample());
    EXPECT_FALSE(checksum_matches(parse_cache_entry(replaced(xml, "BLOCK_W=32 <_stereo", "BLOCK_W=64 <_stereo"), "x")));
    EXPECT_FALSE(checksum_matches(parse_cache_entry(replaced(xml, "value=\"32\"", "value=\"128\""), "x")));
    EXPECT_FALSE(checksum_matches(parse_cache_entry(replaced(xml, "<variant-ms>0.1<", "<variant-ms>0.01<"), "x")));
    // Indentation between elements carries no meaning.
    EXPECT_TRUE(checksum_matches(parse_cache_entry(replaced(xml, "    <genome>", "<genome>"), "x")));
}

TEST(CacheEntry, MalformedFilesAreCorruptWithPathAndLine) {
    const std::string xml = entry_to_xml(sample());
    EXPECT_NE(expect_corrupt(xml.substr(0, xml.size() / 2)).find("not well-formed"), std::string::npos);
    expect_corrupt("");
    EXPECT_NE(expect_corrupt("<other/>").find("root element"), std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "format=\"1\"", "format=\"7\"")).find("format"), std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "<parameters>", "<extra/><parameters>")).find("unknown element <extra>"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "<key ", "<key evil=\"1\" ")).find("unknown attribute 'evil'"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "<worst-error>0</worst-error>", "<worst-error>zero</worst-error>"))
                  .find("needs a number"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "<cases-validated>12<", "<cases-validated>12.5<")).find("integer"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "architecture=\"sm_90\"", "architecture=\"gpu\"")).find("architecture"),
              std::string::npos);
    const auto genome_start = xml.find("    <genome>");
    const auto genome_end = xml.find("</genome>") + 10;
    EXPECT_NE(expect_corrupt(xml.substr(0, genome_start) + xml.substr(genome_end)).find("lacks <genome>"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "<genome>", "<genome><a/>")).find("must hold text"), std::string::npos);
    // A second text node passes the checksum (it reads the first) while another reader sees both.
    EXPECT_NE(expect_corrupt(replaced(xml, "</genome>", "<![CDATA[ <_stereo.cu_99>]]></genome>")).find("2 pieces of text"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "</genome>", "<!-- x --></genome>")).find("not elements or comments"),
              std::string::npos);
    EXPECT_NE(expect_corrupt(replaced(xml, "<nvcc>", "<nvcc>1</nvcc><nvcc>")).find("appears twice"), std::string::npos);
    const std::string line_error = expect_corrupt(replaced(xml, "<gpu>", "<gpu attr=\"\">"));
    EXPECT_NE(line_error.find("gi-cache/k.sm_90.xml:"), std::string::npos) << line_error;
}

TEST(CacheEntry, WriteIsAtomicAndReadable) {
    const auto dir = std::filesystem::temp_directory_path() / ("gi-cache-entry-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto path = dir / "sub" / "k.sm_90.xml";
    write_cache_entry(path, sample());
    EXPECT_EQ(read_cache_entry(path), sample());
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
    EXPECT_THROW(read_cache_entry(dir / "missing.xml"), Error);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Entries are read only when they are plain files of an entry's size: a committed link to an
// endless device used to be read without end (issue 18, 1 and 10).
TEST(CacheEntryFiles, LinksFoldersDevicesAndHugeFilesAreRefusedUnread) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("gi-entry-files-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "folder.sm_90.xml");
    std::filesystem::create_symlink("/dev/urandom", dir / "link.sm_90.xml");
    std::ofstream(dir / "huge.sm_90.xml") << std::string(kMaxCacheEntryBytes + 1, 'x');
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"folder.sm_90.xml", "not a plain file"}, {"link.sm_90.xml", "is a symbolic link"}, {"huge.sm_90.xml", "more than any entry holds"}};
    for (const auto& [name, expected] : cases) {
        try {
            read_cache_entry(dir / name);
            ADD_FAILURE() << name << ": read";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(list_cache_entries(dir).size(), 3u);  // listed, so verify and show report each
    std::filesystem::remove_all(dir);
}

// Several builds writing one entry at once: each writer has its own temporary file, so none fails
// for another's rename and the entry is whole at the end (issue 18, 8).
TEST(CacheEntryFiles, ConcurrentWritersOfOneEntry) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("gi-entry-writers-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    CacheEntry entry = sample();
    seal(entry);
    std::atomic<int> failures{0};
    std::vector<std::thread> writers;
    for (int w = 0; w < 4; ++w)
        writers.emplace_back([&] {
            for (int i = 0; i < 40; ++i) {
                try {
                    write_cache_entry(dir / "k.sm_90.xml", entry);
                } catch (const Error&) {
                    ++failures;
                }
            }
        });
    for (auto& t : writers) t.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(read_cache_entry(dir / "k.sm_90.xml"), entry);
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gi
