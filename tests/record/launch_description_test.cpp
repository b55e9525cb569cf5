// gi-tool's launch intercept describes a kernel's arguments from its demangled name (or its source
// signature); gi::launch from the C++ types (<gi/launch.hpp>). A launch recorded either way must
// give the same case, byte for byte, so the two descriptions must agree type for type. Built where
// the CUDA headers are (tests/CMakeLists.txt); nothing of CUDA is linked.
#include <gtest/gtest.h>

#ifdef GI_TEST_LAUNCH_HEADER
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <gi/launch.hpp>

#include "record/parameter_type.hpp"

namespace gi {
namespace {

struct InterceptPairOfInts {
    int a, b;
};
struct InterceptTiny {
    char c;
};
struct InterceptPointers {
    const float* in;
    float* out;
    int n;
};

template <typename T>
void expect_described_alike(const char* text) {
    SCOPED_TRACE(text);
    const T value{};
    const launch_detail::ArgInfo expected = launch_detail::describe(value);
    const ParameterType type = parameter_type(text);
    EXPECT_EQ(type.is_pointer, expected.is_pointer);
    EXPECT_EQ(type.pointee_const, expected.pointee_const);
    EXPECT_EQ(type.maybe_object, expected.maybe_object);
    EXPECT_EQ(static_cast<int>(type.element), static_cast<int>(expected.element));
    const ParameterHolds holds = type.is_pointer ? type.pointee_holds : value_holds(type, sizeof(T));
    EXPECT_EQ(static_cast<int>(holds), static_cast<int>(expected.holds));
    if (type.size != 0) EXPECT_EQ(type.size, sizeof(T));
    if (type.align != 0) EXPECT_EQ(type.align, alignof(T));
}

// A type by value and through pointers, as the demangler spells them ("float4", "float4 const*").
template <typename T>
void expect_every_form_alike(const std::string& name) {
    expect_described_alike<T>(name.c_str());
    expect_described_alike<T*>((name + "*").c_str());
    expect_described_alike<const T*>((name + " const*").c_str());
    expect_described_alike<T**>((name + "**").c_str());
    expect_described_alike<T* const*>((name + "* const*").c_str());
    expect_described_alike<const T**>((name + " const**").c_str());
}

TEST(LaunchDescription, NumbersAsTheDemanglerSpellsThem) {
    expect_every_form_alike<bool>("bool");
    expect_every_form_alike<char>("char");
    expect_every_form_alike<signed char>("signed char");
    expect_every_form_alike<unsigned char>("unsigned char");
    expect_every_form_alike<short>("short");
    expect_every_form_alike<unsigned short>("unsigned short");
    expect_every_form_alike<int>("int");
    expect_every_form_alike<unsigned int>("unsigned int");
    expect_every_form_alike<long>("long");
    expect_every_form_alike<unsigned long>("unsigned long");
    expect_every_form_alike<long long>("long long");
    expect_every_form_alike<unsigned long long>("unsigned long long");
    expect_every_form_alike<float>("float");
    expect_every_form_alike<double>("double");
    expect_every_form_alike<long double>("long double");
    expect_every_form_alike<wchar_t>("wchar_t");
    expect_every_form_alike<char16_t>("char16_t");
    expect_every_form_alike<char32_t>("char32_t");
    expect_described_alike<void*>("void*");
    expect_described_alike<const void*>("void const*");
    expect_described_alike<void**>("void**");
}

TEST(LaunchDescription, CudaVectorAndHalfTypes) {
    expect_every_form_alike<char1>("char1");
    expect_every_form_alike<char2>("char2");
    expect_every_form_alike<char3>("char3");
    expect_every_form_alike<char4>("char4");
    expect_every_form_alike<uchar1>("uchar1");
    expect_every_form_alike<uchar2>("uchar2");
    expect_every_form_alike<uchar3>("uchar3");
    expect_every_form_alike<uchar4>("uchar4");
    expect_every_form_alike<short1>("short1");
    expect_every_form_alike<short2>("short2");
    expect_every_form_alike<short3>("short3");
    expect_every_form_alike<short4>("short4");
    expect_every_form_alike<ushort1>("ushort1");
    expect_every_form_alike<ushort2>("ushort2");
    expect_every_form_alike<ushort3>("ushort3");
    expect_every_form_alike<ushort4>("ushort4");
    expect_every_form_alike<int1>("int1");
    expect_every_form_alike<int2>("int2");
    expect_every_form_alike<int3>("int3");
    expect_every_form_alike<int4>("int4");
    expect_every_form_alike<uint1>("uint1");
    expect_every_form_alike<uint2>("uint2");
    expect_every_form_alike<uint3>("uint3");
    expect_every_form_alike<uint4>("uint4");
    expect_every_form_alike<longlong1>("longlong1");
    expect_every_form_alike<longlong2>("longlong2");
    expect_every_form_alike<ulonglong2>("ulonglong2");
    expect_every_form_alike<float1>("float1");
    expect_every_form_alike<float2>("float2");
    expect_every_form_alike<float3>("float3");
    expect_every_form_alike<float4>("float4");
    expect_every_form_alike<double1>("double1");
    expect_every_form_alike<double2>("double2");
    expect_every_form_alike<double3>("double3");
    expect_every_form_alike<__half>("__half");
    expect_every_form_alike<__nv_bfloat16>("__nv_bfloat16");
}

TEST(LaunchDescription, StructsAndArraysOfPointers) {
    expect_every_form_alike<InterceptPairOfInts>("InterceptPairOfInts");
    expect_every_form_alike<InterceptTiny>("InterceptTiny");
    expect_every_form_alike<InterceptPointers>("gi::(anonymous namespace)::InterceptPointers");
    expect_described_alike<const float* const*>("float const* const*");
}

// An extern "C" kernel's parameters come from its source, written as people write them.
TEST(LaunchDescription, SourceSpellings) {
    expect_described_alike<const float*>("const float* __restrict__");
    expect_described_alike<float*>("float *");
    expect_described_alike<const float*>("float const *");
    expect_described_alike<unsigned int>("uint");
    expect_described_alike<std::size_t>("size_t");
    expect_described_alike<const std::uint8_t*>("const std::uint8_t*");
    expect_described_alike<cudaTextureObject_t>("cudaTextureObject_t");
    expect_described_alike<const __half*>("const half*");
    expect_described_alike<float4*>("float4 *__restrict__");
    expect_described_alike<const int>("const int");
}

TEST(LaunchDescription, GiLaunchRecordsUnlessTheInterceptDoes) {
    using launch_detail::records_itself;
    EXPECT_TRUE(records_itself("/tmp/cases", nullptr));
    EXPECT_TRUE(records_itself("/tmp/cases", "launch"));
    EXPECT_FALSE(records_itself("/tmp/cases", "intercept"));
    EXPECT_FALSE(records_itself(nullptr, nullptr));
    EXPECT_FALSE(records_itself("", nullptr));
}

}  // namespace
}  // namespace gi
#endif
