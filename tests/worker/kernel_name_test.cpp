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

// One instantiation of a template kernel, by its template arguments or by the mangled name another
// build gave it (what the recorder stores), and its guarded copy by the same.
TEST(KernelName, OneInstantiationOfATemplate) {
    const std::string k16 = "_Z13MatrixMulCUDAILi16EEvPfS0_S0_ii";  // void MatrixMulCUDA<16>(float*, float*, float*, int, int)
    const std::string k32 = "_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii";
    const std::string g32 = "_ZN10gi_guarded13MatrixMulCUDAILi32EEEvPfS1_S1_ii";
    ASSERT_EQ(demangled(g32), "void gi_guarded::MatrixMulCUDA<32>(float*, float*, float*, int, int)");
    EXPECT_EQ(kernel_instantiation_name(demangled(k32)), "MatrixMulCUDA<32>");
    EXPECT_EQ(kernel_instantiation_name("void ns::k<float, 4>(float*)"), "ns::k<float,4>");
    EXPECT_TRUE(matches("MatrixMulCUDA<32>", k32));
    EXPECT_TRUE(matches("MatrixMulCUDA< 32 >", k32));
    EXPECT_FALSE(matches("MatrixMulCUDA<32>", k16));
    EXPECT_TRUE(matches("MatrixMulCUDA", k16));  // the template's name alone names each of them
    EXPECT_TRUE(matches(k32, k32));
    EXPECT_FALSE(matches(k32, k16));
    EXPECT_TRUE(matches("gi_guarded::" + k32, g32));
    EXPECT_TRUE(matches("gi_guarded::MatrixMulCUDA<32>", g32));
    EXPECT_FALSE(matches("gi_guarded::" + k32, k32));
    EXPECT_FALSE(matches(k32, g32));
    EXPECT_TRUE(matches("ns::k<64>", "_ZN2ns1kILi64EEEvPf"));
    EXPECT_TRUE(matches("k<64>", "_ZN2ns1kILi64EEEvPf"));
    // A mangled name of a plain kernel names exactly that kernel: not an overload of the same name.
    EXPECT_FALSE(matches("_Z5scalePfPKfi", "_Z5scalePd"));
}

}  // namespace
}  // namespace gi::worker
