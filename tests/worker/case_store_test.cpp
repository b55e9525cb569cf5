// Cases sent to workers whose node does not see the master's files (worker/case_store.hpp):
// named by their manifest's sha256, checked when stored, found again by a later worker.
#include "worker/case_store.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "../support/gpu_fixture.hpp"
#include "testcase/case_io.hpp"

namespace gi::worker {
namespace {
namespace fs = std::filesystem;

class CaseStoreTest : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = test::fresh_temp_dir("gi-case-store");
        fs::create_directories(root_);
        case_ = write_test_case(gpu_test::scale_case(256), root_ / "cases");
        sha256_ = case_content_sha256(case_);
    }
    LoadCase load() const {
        LoadCase l;
        l.slot = 0;
        l.path = case_.string();
        l.sha256 = sha256_;
        return l;
    }
    fs::path root_, case_;
    std::string sha256_;
};

TEST_F(CaseStoreTest, AReadableCaseIsReadWhereItIsAndNeverSent) {
    CaseStore store(root_ / "store");
    EXPECT_EQ(store.locate(load()), case_);
    LoadCase without_hash = load();
    without_hash.sha256.clear();
    EXPECT_EQ(store.locate(without_hash, false), case_);  // no launcher: as before
}

// A node that does not see the master's folder (or sees another file there) asks for the case;
// once stored, this and any later worker of the node read the stored copy.
TEST_F(CaseStoreTest, ACaseSentOnceIsStoredCheckedAndFoundAgain) {
    CaseStore store(root_ / "store");
    EXPECT_FALSE(store.locate(load(), false));
    LoadCase elsewhere = load();
    elsewhere.path = (root_ / "not-here").string();
    EXPECT_FALSE(store.locate(elsewhere));
    const Message reply = store.put(put_case_message(case_, sha256_));
    ASSERT_EQ(reply.type, "case-stored") << reply.get("message");
    const std::optional<fs::path> stored = store.locate(load(), false);
    ASSERT_TRUE(stored);
    EXPECT_EQ(*stored, root_ / "store" / sha256_);
    EXPECT_EQ(read_test_case(*stored).buffers.size(), read_test_case(case_).buffers.size());
    EXPECT_EQ(CaseStore(root_ / "store").locate(elsewhere), stored);  // a later worker on the node
    EXPECT_EQ(store.put(put_case_message(case_, sha256_)).type, "case-stored");  // sent twice: kept once
    EXPECT_EQ((fs::status(root_ / "store").permissions() & fs::perms::others_all), fs::perms::none);
}

TEST_F(CaseStoreTest, ACaseThatDoesNotMatchItsHashIsNotStored) {
    CaseStore store(root_ / "store");
    Message wrong_hash = put_case_message(case_, std::string(64, 'a'));
    EXPECT_EQ(store.put(wrong_hash).type, "error");
    Message damaged = put_case_message(case_, sha256_);
    damaged.payload.back() ^= 1;  // a blob's last byte: its manifest's sha256 no longer holds
    const Message reply = store.put(damaged);
    EXPECT_EQ(reply.type, "error");
    EXPECT_FALSE(store.locate(load(), false));
    Message escaping = put_case_message(case_, sha256_);
    escaping.fields["file0"] = "../manifest.xml";
    EXPECT_NE(store.put(escaping).get("message").find("is not a file name"), std::string::npos);
    EXPECT_FALSE(fs::exists(root_ / "manifest.xml"));
    Message bad_key = put_case_message(case_, "../x");
    EXPECT_EQ(store.put(bad_key).type, "error");
}

}  // namespace
}  // namespace gi::worker
