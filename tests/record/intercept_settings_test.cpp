// The environment between `gi-tool record` and its launch intercept, which launched kernel is the
// registered one, and how the launched kernels are reported (issue 42).
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "process/process.hpp"
#include "record/intercept_settings.hpp"

namespace gi {
namespace {

EnvironmentLookup lookup_in(const std::map<std::string, std::string>& variables) {
    return [variables](const char* name) -> const char* {
        const auto it = variables.find(name);
        return it == variables.end() ? nullptr : it->second.c_str();
    };
}

std::map<std::string, std::string> intercept_variables(const InterceptSettings& settings) {
    std::map<std::string, std::string> variables{{"GI_RECORD_DIR", "/tmp/cases"}};
    for (const auto& [name, value] : intercept_environment(settings)) variables[name] = value;
    return variables;
}

TEST(InterceptSettings, WhatGiToolSetsIsWhatTheInterceptReads) {
    InterceptSettings settings;
    settings.kernel = "reduce7";
    settings.signature = std::vector<std::string>{"const float* __restrict__", "float*", "unsigned int"};
    const auto variables = intercept_variables(settings);
    EXPECT_EQ(variables.at("GI_RECORD_BY"), "intercept");
    const auto read = intercept_settings(lookup_in(variables));
    ASSERT_TRUE(read);
    EXPECT_EQ(read->kernel, "reduce7");
    EXPECT_EQ(read->signature, settings.signature);

    settings.signature = std::vector<std::string>{};  // a kernel without parameters
    const auto none = intercept_settings(lookup_in(intercept_variables(settings)));
    ASSERT_TRUE(none && none->signature);
    EXPECT_TRUE(none->signature->empty());
    settings.signature.reset();  // the source could not be read
    EXPECT_EQ(intercept_settings(lookup_in(intercept_variables(settings)))->signature, std::nullopt);
}

TEST(InterceptSettings, DoesNothingUnlessAllThreeVariablesSaySo) {
    InterceptSettings settings;
    settings.kernel = "scaleKernel";
    auto variables = intercept_variables(settings);
    EXPECT_TRUE(intercept_settings(lookup_in(variables)));
    for (const char* name : {"GI_RECORD_DIR", "GI_RECORD_FUNCTION", "GI_RECORD_BY"}) {
        auto without = variables;
        without.erase(name);
        EXPECT_FALSE(intercept_settings(lookup_in(without))) << name;
        without[name] = "";
        EXPECT_FALSE(intercept_settings(lookup_in(without))) << name;
    }
    // gi::launch records then, so the intercept must not.
    variables["GI_RECORD_BY"] = "launch";
    EXPECT_FALSE(intercept_settings(lookup_in(variables)));
}

TEST(InterceptSettings, ATemplateNameMatchesEveryInstantiationAndAnInstantiationOne) {
    const std::string reduce6 = "_Z7reduce6IfLj256ELb1EEvPT_S1_j";  // void reduce6<float, 256u, true>(float*, float*, unsigned int)
    EXPECT_TRUE(records_kernel({"reduce6", std::nullopt}, reduce6));
    EXPECT_TRUE(records_kernel({"reduce6<float, 256u, true>", std::nullopt}, reduce6));
    EXPECT_FALSE(records_kernel({"reduce6<double, 256u, true>", std::nullopt}, reduce6));
    EXPECT_FALSE(records_kernel({"reduce5", std::nullopt}, reduce6));
    EXPECT_TRUE(records_kernel({"scaleKernel", std::nullopt}, "_Z11scaleKernelPKfPfif"));
    const std::string in_namespace = "_ZN2ns1kILi4EEEvPK6ParamsPKPfPPKfy";
    EXPECT_TRUE(records_kernel({"ns::k", std::nullopt}, in_namespace));
    EXPECT_TRUE(records_kernel({"k", std::nullopt}, in_namespace));
    // extern "C": the name as it is.
    EXPECT_TRUE(records_kernel({"reduce7", std::nullopt}, "reduce7"));
    EXPECT_FALSE(records_kernel({"reduce7", std::nullopt}, "reduce7x"));
}

TEST(InterceptSettings, ParameterTypesComeFromTheMangledNameElseFromTheSource) {
    const InterceptSettings with_source{"k", std::vector<std::string>{"const double*", "int"}};
    const auto mangled = launched_parameter_types(with_source, "_ZN2ns1kILi4EEEvPK6ParamsPKPfPPKfy");
    ASSERT_TRUE(mangled);
    ASSERT_EQ(mangled->size(), 4u);
    EXPECT_EQ((*mangled)[0].pointee_holds, ParameterHolds::MaybePointers);
    EXPECT_TRUE((*mangled)[1].pointee_const);
    EXPECT_EQ((*mangled)[1].pointee_holds, ParameterHolds::Pointers);
    EXPECT_FALSE((*mangled)[2].pointee_const);
    EXPECT_TRUE((*mangled)[3].maybe_object);

    const auto unmangled = launched_parameter_types(with_source, "reduce7");
    ASSERT_TRUE(unmangled);
    ASSERT_EQ(unmangled->size(), 2u);
    EXPECT_EQ((*unmangled)[0].element, ElementType::F64);
    EXPECT_EQ((*unmangled)[1].element, ElementType::I32);
    EXPECT_FALSE(launched_parameter_types({"reduce7", std::nullopt}, "reduce7"));
}

TEST(InterceptSettings, LaunchedKernelsAreListedByInstantiation) {
    EXPECT_EQ(launched_kernel_name("_Z7reduce6IfLj256ELb1EEvPT_S1_j"), "reduce6<float,256u,true>");
    EXPECT_EQ(launched_kernel_name("_Z11scaleKernelPKfPfif"), "scaleKernel");
    EXPECT_EQ(launched_kernel_name("reduce7"), "reduce7");
    EXPECT_EQ(launched_kernels_text({"reduce5<float>", "reduce6<float>"}, "reduce7"),
              "the program launched reduce5<float>, reduce6<float> but not 'reduce7'");
    EXPECT_NE(launched_kernels_text({}, "reduce7").find("saw no kernel launched"), std::string::npos);
    std::vector<std::string> many;
    for (int i = 0; i < 20; ++i) many.push_back("k" + std::to_string(i));
    EXPECT_NE(launched_kernels_text(many, "x").find("k11 and 8 more but not 'x'"), std::string::npos);
}

TEST(InterceptSettings, ASideFileIsReadOnceALine) {
    TemporaryDirectory folder("gi-side-file");
    EXPECT_TRUE(read_side_file(folder.path(), kLaunchedKernelsFile).empty());
    std::ofstream(folder.path() / kLaunchedKernelsFile) << "a\nb\na\n\nc\n";
    EXPECT_EQ(read_side_file(folder.path(), kLaunchedKernelsFile), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace gi
