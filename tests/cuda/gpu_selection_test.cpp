// `--gpus all|N|LIST` read and resolved against the GPUs a driver sees (cuda/gpu_selection.hpp).
#include "cuda/gpu_selection.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/error.hpp"

namespace gi {
namespace {

// The UsageError parsing `text` throws, or "" when it is accepted.
std::string gpu_selection_refusal(const std::string& text) {
    try {
        parse_gpu_selection(text);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

std::string gpu_resolution_refusal(const std::string& text, int devices) {
    try {
        resolve_gpu_selection(parse_gpu_selection(text), devices);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

TEST(MultiGpuSelection, ReadsAllACountAndAList) {
    EXPECT_EQ(parse_gpu_selection("all").kind, GpuSelection::Kind::All);
    const GpuSelection two = parse_gpu_selection("2");
    EXPECT_EQ(two.kind, GpuSelection::Kind::Count);
    EXPECT_EQ(two.count, 2);
    const GpuSelection list = parse_gpu_selection("3,0");
    EXPECT_EQ(list.kind, GpuSelection::Kind::List);
    EXPECT_EQ(list.ordinals, (std::vector<int>{3, 0}));
    EXPECT_EQ(list.first(), 3);
    EXPECT_TRUE(parse_gpu_selection("1").just_the_default());
    EXPECT_FALSE(parse_gpu_selection("all").just_the_default());
}

TEST(MultiGpuSelection, ErrorsNameTheOptionAndTheText) {
    for (const std::string bad : {"", "0", "two", "-1", "2x", "0,,1", "0,1,", "1,1", "0,x", "99999", "all,1"}) {
        const std::string why = gpu_selection_refusal(bad);
        EXPECT_EQ(why.rfind("--gpus ", 0), 0u) << "'" << bad << "': " << why;
        EXPECT_NE(why.find(bad), std::string::npos) << "'" << bad << "': " << why;
    }
    EXPECT_NE(gpu_selection_refusal("1,1").find("named twice"), std::string::npos);
}

TEST(MultiGpuSelection, ResolvesAgainstTheGpusTheDriverSees) {
    EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("all"), 4), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("all"), 0), (std::vector<int>{0}));  // a worker that did not say
    EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("2"), 4), (std::vector<int>{0, 1}));
    EXPECT_EQ(resolve_gpu_selection(parse_gpu_selection("2,0"), 4), (std::vector<int>{2, 0}));
    const std::string more = gpu_resolution_refusal("4", 2);
    EXPECT_EQ(more.rfind("--gpus 4: ", 0), 0u) << more;
    EXPECT_NE(more.find("sees 2 GPUs"), std::string::npos) << more;
    const std::string missing = gpu_resolution_refusal("0,3", 2);
    EXPECT_EQ(missing.rfind("--gpus 0,3: there is no GPU 3", 0), 0u) << missing;
}

}  // namespace
}  // namespace gi
