// The real gi-worker through a worker launcher (skips without a GPU): started as
// `sh -c 'exec "$@"' sh env ... gi-worker`, it answers as a local one, and a case whose path it
// cannot read as named (a node without the master's folder) is asked for, stored and loaded from
// its store (worker/case_store.hpp). Run on a GPU machine:
//   build/tests/tests/gi_tests --gtest_filter='GpuLaunchedWorker.*'
#include <gtest/gtest.h>

#include <chrono>

#include "../support/gpu_fixture.hpp"
#include "testcase/case_io.hpp"
#include "worker/case_messages.hpp"
#include "worker/case_store.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace {

using namespace std::chrono_literals;
using worker::Message;

TEST(GpuLaunchedWorker, ACaseItsNodeCannotReadIsSentOnceAndLoadedFromTheStore) {
    GI_REQUIRE_GPU();
    gpu_test::TempFolder folder;
    const std::filesystem::path case_dir = write_test_case(gpu_test::scale_case(1 << 16), folder.path() / "cases");
    const std::string sha256 = worker::case_content_sha256(case_dir);
    worker::WorkerOptions options{gpu_test::worker_path(), {}, {}, {}};
    options.env["GI_WORKER_CASE_STORE"] = (folder.path() / "store").string();
    options.launcher = {"sh", "-c", "exec \"$@\"", "sh"};
    worker::WorkerProcess w(options);
    ASSERT_EQ(w.request(worker::hello_message(), 60s).type, "ready");

    worker::LoadCase load;
    load.slot = 0;
    load.path = (folder.path() / "elsewhere" / case_dir.filename()).string();  // not on this "node"
    load.sha256 = sha256;
    ASSERT_EQ(w.request(to_message(load), 60s).type, "case-missing");
    const Message stored = w.request(worker::put_case_message(case_dir, sha256), 60s);
    ASSERT_EQ(stored.type, "case-stored") << stored.get("message");
    const Message loaded = w.request(to_message(load), 60s);
    ASSERT_EQ(loaded.type, "case-loaded") << loaded.get("message");
    EXPECT_GT(worker::case_loaded_from(loaded).device_bytes, 0u);

    // The master's own path, with its hash, is read in place.
    load.slot = 1;
    load.path = case_dir.string();
    EXPECT_EQ(w.request(to_message(load), 60s).type, "case-loaded");
}

}  // namespace
}  // namespace gi
