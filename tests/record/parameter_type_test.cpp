// Kernel parameter types as text (demangled names, source signatures) turned into what the
// recorder needs to know of each argument, for gi-tool's launch intercept (issue 42).
#include <gtest/gtest.h>

#include "record/parameter_type.hpp"

namespace gi {
namespace {

TEST(ParameterType, NumbersAndPointersAsTheDemanglerSpellsThem) {
    const ParameterType in = parameter_type("float const*");
    EXPECT_TRUE(in.is_pointer);
    EXPECT_TRUE(in.pointee_const);
    EXPECT_EQ(in.element, ElementType::F32);
    EXPECT_EQ(in.pointee_holds, ParameterHolds::Data);
    EXPECT_EQ(in.size, 8u);

    const ParameterType n = parameter_type("unsigned int");
    EXPECT_FALSE(n.is_pointer);
    EXPECT_EQ(n.element, ElementType::U32);
    EXPECT_EQ(n.size, 4u);
    EXPECT_FALSE(n.maybe_object);

    EXPECT_TRUE(parameter_type("unsigned long long").maybe_object);
    EXPECT_FALSE(parameter_type("unsigned long").maybe_object);
    EXPECT_EQ(parameter_type("unsigned long").element, ElementType::U64);
    EXPECT_EQ(parameter_type("long").element, ElementType::I64);
    EXPECT_EQ(parameter_type("char").element, ElementType::I8);
    EXPECT_EQ(parameter_type("unsigned char").element, ElementType::U8);
    EXPECT_EQ(parameter_type("bool").element, ElementType::U8);
    EXPECT_EQ(parameter_type("short").element, ElementType::I16);
    EXPECT_EQ(parameter_type("double").element, ElementType::F64);
    EXPECT_EQ(parameter_type("long double").element, ElementType::Bytes);
    EXPECT_EQ(parameter_type("long double").size, 16u);
}

TEST(ParameterType, PointerLevelsAndWhereConstStands) {
    const ParameterType rows = parameter_type("float**");
    EXPECT_TRUE(rows.is_pointer);
    EXPECT_FALSE(rows.pointee_const);
    EXPECT_EQ(rows.pointee_holds, ParameterHolds::Pointers);
    EXPECT_EQ(rows.element, ElementType::Bytes);
    EXPECT_TRUE(parameter_type("float* const*").pointee_const);   // the pointers are const
    EXPECT_FALSE(parameter_type("float const**").pointee_const);  // only what they point to
    EXPECT_TRUE(parameter_type("float const* const*").pointee_const);
    // A top-level const is the parameter's own, not its pointee's.
    EXPECT_FALSE(parameter_type("float* const").pointee_const);
    const ParameterType untyped = parameter_type("void const*");
    EXPECT_TRUE(untyped.is_pointer);
    EXPECT_TRUE(untyped.pointee_const);
    EXPECT_EQ(untyped.element, ElementType::Bytes);
    EXPECT_EQ(untyped.pointee_holds, ParameterHolds::Data);
    const ParameterType callback = parameter_type("void (*)(int)");
    EXPECT_TRUE(callback.is_pointer);
    EXPECT_EQ(callback.pointee_holds, ParameterHolds::Data);
}

TEST(ParameterType, StructsMayHoldPointersAndCudaVectorTypesAreNumbers) {
    const ParameterType params = parameter_type("ns::Params const*");
    EXPECT_TRUE(params.is_class);
    EXPECT_EQ(params.pointee_holds, ParameterHolds::MaybePointers);
    EXPECT_EQ(parameter_type("Pair<int, float>*").pointee_holds, ParameterHolds::MaybePointers);

    const ParameterType by_value = parameter_type("ns::Params");
    EXPECT_TRUE(by_value.is_class);
    EXPECT_EQ(by_value.size, 0u);  // the driver says
    EXPECT_EQ(value_holds(by_value, 24), ParameterHolds::MaybePointers);
    EXPECT_EQ(value_holds(by_value, 4), ParameterHolds::Data);  // too small for a pointer

    const ParameterType quad = parameter_type("float4 const*");
    EXPECT_EQ(quad.element, ElementType::F32);
    EXPECT_EQ(quad.pointee_holds, ParameterHolds::Data);
    const ParameterType pair = parameter_type("int2");
    EXPECT_EQ(pair.element, ElementType::I32);
    EXPECT_EQ(pair.size, 8u);
    EXPECT_EQ(pair.align, 8u);
    EXPECT_EQ(value_holds(pair, 8), ParameterHolds::Data);
    EXPECT_EQ(parameter_type("float3").align, 4u);
    // The vector types <gi/launch.hpp> does not name are bytes, like any struct.
    EXPECT_EQ(parameter_type("double4*").pointee_holds, ParameterHolds::MaybePointers);
    EXPECT_EQ(parameter_type("char4*").element, ElementType::Bytes);
    EXPECT_EQ(value_holds(parameter_type("longlong2"), 16), ParameterHolds::MaybePointers);
    EXPECT_EQ(parameter_type("__half*").pointee_holds, ParameterHolds::MaybePointers);
}

TEST(ParameterType, SourceSpellingsMeanWhatTheDemangledOnesDo) {
    const ParameterType restricted = parameter_type("const float * __restrict__");
    EXPECT_TRUE(restricted.is_pointer);
    EXPECT_TRUE(restricted.pointee_const);
    EXPECT_EQ(restricted.element, ElementType::F32);
    EXPECT_EQ(parameter_type("uint").element, ElementType::U32);
    EXPECT_EQ(parameter_type("size_t").element, ElementType::U64);
    EXPECT_EQ(parameter_type("std::int16_t*").element, ElementType::I16);
    EXPECT_EQ(parameter_type("const int").element, ElementType::I32);
    EXPECT_TRUE(parameter_type("cudaTextureObject_t").maybe_object);
    EXPECT_FALSE(parameter_type("uint64_t").maybe_object);  // unsigned long, as gi::launch sees it
    EXPECT_EQ(parameter_type("unsigned long long int").element, ElementType::U64);
    const ParameterType grid_constant = parameter_type("const __grid_constant__ Params");
    EXPECT_FALSE(grid_constant.is_pointer);
    EXPECT_TRUE(grid_constant.is_class);
    EXPECT_EQ(parameter_type("struct Params *").pointee_holds, ParameterHolds::MaybePointers);
    EXPECT_EQ(parameter_type("half*").pointee_holds, ParameterHolds::MaybePointers);
}

TEST(DemangledParameters, TheParametersOfADemangledKernel) {
    using List = std::vector<std::string>;
    EXPECT_EQ(demangled_parameters("void reduce6<float, 256u, true>(float*, float*, unsigned int)"),
              (List{"float*", "float*", "unsigned int"}));
    EXPECT_EQ(demangled_parameters("blurKernel(float const*, float*, int*, int, int, float)"),
              (List{"float const*", "float*", "int*", "int", "int", "float"}));
    EXPECT_EQ(demangled_parameters("k()"), List{});
    EXPECT_EQ(demangled_parameters("(anonymous namespace)::k(float*)"), List{"float*"});
    EXPECT_EQ(demangled_parameters("void ns::k<(bool)1>(Pair<int, float>*, void (*)(int, int))"),
              (List{"Pair<int, float>*", "void (*)(int, int)"}));
    // An extern "C" kernel's name carries no parameters.
    EXPECT_EQ(demangled_parameters("reduce7"), std::nullopt);
    EXPECT_EQ(demangled_parameters(""), std::nullopt);
    EXPECT_EQ(demangled_parameters("(anonymous namespace)"), std::nullopt);
}

}  // namespace
}  // namespace gi
