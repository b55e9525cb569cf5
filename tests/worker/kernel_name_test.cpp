// gi-worker's rule for which kernel of a module a name means (worker/kernel_name.hpp), on the
// names cuFuncGetName and the demangler give: with a paired build's module (the plain kernel and
// its gi_guarded:: copy), the plain name must find only the plain kernel and "gi_guarded::" + the
// name only the copy, as gi-worker's find_kernel needs exactly one match.
#include <gtest/gtest.h>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "worker/kernel_name.hpp"

namespace gi::worker {
namespace {

std::string demangled(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && out ? std::string(out.get()) : mangled;
}

bool matches(const std::string& wanted, const std::string& mangled) {
    return kernel_name_matches(wanted, mangled, demangled(mangled));
}

TEST(KernelName, QualifiedNameDropsReturnTypeTemplateArgumentsAndParameters) {
    EXPECT_EQ(kernel_qualified_name("blurKernel(float const*, int)"), "blurKernel");
    EXPECT_EQ(kernel_qualified_name("void ns::k<64, (bool)1>(float*)"), "ns::k");
    EXPECT_EQ(kernel_qualified_name("gi_guarded::scale(float*, float const*, int)"), "gi_guarded::scale");
    EXPECT_EQ(kernel_qualified_name("gi_loop_clock"), "gi_loop_clock");
}

TEST(KernelName, PlainNameFindsOnlyThePlainKernelOfAPairedModule) {
    const std::string plain = "_Z5scalePfPKfi";                 // scale(float*, float const*, int)
    const std::string guarded = "_ZN10gi_guarded5scaleEPfPKfi";  // gi_guarded::scale(...)
    ASSERT_EQ(demangled(guarded), "gi_guarded::scale(float*, float const*, int)");
    EXPECT_TRUE(matches("scale", plain));
    EXPECT_FALSE(matches("scale", guarded));
    EXPECT_TRUE(matches("gi_guarded::scale", guarded));
    EXPECT_FALSE(matches("gi_guarded::scale", plain));
    EXPECT_FALSE(matches("scale", "gi_loop_clock"));
    EXPECT_TRUE(matches("gi_loop_clock", "gi_loop_clock"));  // extern "C": not mangled
    // A mangled name still names exactly its own kernel.
    EXPECT_TRUE(matches(guarded, guarded));
    EXPECT_FALSE(matches(plain, guarded));
}

TEST(KernelName, KernelsInTheirOwnNamespaceAndTemplates) {
    const std::string plain = "_ZN2ns1kILi64EEEvPf";                  // void ns::k<64>(float*)
    const std::string guarded = "_ZN10gi_guarded2ns1kILi64EEEvPf";    // void gi_guarded::ns::k<64>(float*)
    ASSERT_EQ(demangled(guarded), "void gi_guarded::ns::k<64>(float*)");
    for (const std::string& name : {"k", "ns::k"}) {
        EXPECT_TRUE(matches(name, plain)) << name;
        EXPECT_FALSE(matches(name, guarded)) << name;
        EXPECT_TRUE(matches("gi_guarded::" + name, guarded)) << name;
        EXPECT_FALSE(matches("gi_guarded::" + name, plain)) << name;
    }
    EXPECT_FALSE(matches("gi_guarded::", guarded));
    EXPECT_FALSE(matches("other", plain));
}

}  // namespace
}  // namespace gi::worker
