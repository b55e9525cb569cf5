#pragma once
// Two recorded cases of the same launch compared: the launch intercept must record what gi::launch
// records (issue 42), and a launch made another way must give the same case. Byte for byte, file
// by file, unless the cases hold device addresses (a struct of pointers, an array of pointers):
// two runs of a program may place its buffers at other addresses, which replay relocates anyway,
// so those are compared field by field with the addresses' bytes left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "gi_tool_run.hpp"
#include "testcase/case_io.hpp"

namespace gi::test {

inline void expect_same_case_files(const std::filesystem::path& a, const std::filesystem::path& b) {
    const std::set<std::string> names = file_names(a);
    EXPECT_EQ(names, file_names(b)) << a << " and " << b;
    for (const std::string& name : names)
        EXPECT_TRUE(file_text(a / name) == file_text(b / name)) << (a / name) << " differs from " << (b / name);
}

// `tc` with the bytes of every embedded device address zeroed, and what depends on them dropped.
inline TestCase without_addresses(TestCase tc) {
    auto clear = [](Bytes& bytes, const std::vector<EmbeddedPointer>& pointers) {
        for (const EmbeddedPointer& p : pointers)
            if (p.at + 8 <= bytes.size()) std::fill_n(bytes.begin() + static_cast<long>(p.at), 8, 0);
    };
    for (CaseArg& arg : tc.args) clear(arg.value, arg.pointers);
    for (CaseBuffer& buffer : tc.buffers) {
        clear(buffer.before, buffer.pointers);
        clear(buffer.after, buffer.pointers);
        buffer.before_sha256.clear();
        buffer.after_sha256.clear();
    }
    return tc;
}

inline void expect_same_case(const std::filesystem::path& a, const std::filesystem::path& b) {
    SCOPED_TRACE(a.string() + " against " + b.string());
    const TestCase x = without_addresses(read_test_case(a));
    const TestCase y = without_addresses(read_test_case(b));
    const auto has_addresses = [](const TestCase& tc) {
        return std::any_of(tc.args.begin(), tc.args.end(), [](const CaseArg& arg) { return !arg.pointers.empty(); }) ||
               std::any_of(tc.buffers.begin(), tc.buffers.end(), [](const CaseBuffer& b) { return !b.pointers.empty(); });
    };
    if (!has_addresses(x) && !has_addresses(y)) return expect_same_case_files(a, b);
    EXPECT_EQ(x.kernel, y.kernel);
    EXPECT_EQ(x.symbol, y.symbol);
    EXPECT_EQ(x.grid, y.grid);
    EXPECT_EQ(x.block, y.block);
    EXPECT_EQ(x.shared_bytes, y.shared_bytes);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.compute_capability, y.compute_capability);
    ASSERT_EQ(x.args.size(), y.args.size());
    for (std::size_t i = 0; i < x.args.size(); ++i) {
        SCOPED_TRACE("argument " + std::to_string(i));
        EXPECT_EQ(x.args[i].kind, y.args[i].kind);
        EXPECT_EQ(x.args[i].size, y.args[i].size);
        EXPECT_EQ(x.args[i].element, y.args[i].element);
        EXPECT_EQ(x.args[i].value, y.args[i].value);
        EXPECT_EQ(x.args[i].buffer, y.args[i].buffer);
        EXPECT_EQ(x.args[i].offset, y.args[i].offset);
        EXPECT_EQ(x.args[i].is_const, y.args[i].is_const);
        EXPECT_EQ(x.args[i].pointers, y.args[i].pointers);
    }
    ASSERT_EQ(x.buffers.size(), y.buffers.size());
    for (std::size_t i = 0; i < x.buffers.size(); ++i) {
        SCOPED_TRACE("buffer " + std::to_string(i));
        EXPECT_EQ(x.buffers[i].size, y.buffers[i].size);
        EXPECT_EQ(x.buffers[i].element, y.buffers[i].element);
        EXPECT_EQ(x.buffers[i].read_only, y.buffers[i].read_only);
        EXPECT_EQ(x.buffers[i].changed, y.buffers[i].changed);
        EXPECT_TRUE(x.buffers[i].before == y.buffers[i].before);
        EXPECT_TRUE(x.buffers[i].after == y.buffers[i].after);
        EXPECT_EQ(x.buffers[i].variable, y.buffers[i].variable);
        EXPECT_EQ(x.buffers[i].pointers, y.buffers[i].pointers);
    }
}

// Every case of `kernel` in `a` against its namesake in `b`, in recording order.
inline void expect_same_cases(const std::filesystem::path& a, const std::filesystem::path& b, const std::string& kernel) {
    const std::vector<std::filesystem::path> x = list_test_cases(a, kernel), y = list_test_cases(b, kernel);
    ASSERT_EQ(x.size(), y.size()) << "cases of '" << kernel << "' in " << a << " and " << b;
    ASSERT_FALSE(x.empty()) << "no case of '" << kernel << "' in " << a;
    for (std::size_t i = 0; i < x.size(); ++i) expect_same_case(x[i], y[i]);
}

}  // namespace gi::test
