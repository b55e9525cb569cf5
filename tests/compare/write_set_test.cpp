// Write sets (compare/write_set.hpp) learnt from kernels simulated on the host: each "kernel" is a
// function over the case's buffers, run from the recorded contents and with one buffer poisoned
// with each pattern, as gi-worker runs the original. Then a variant is checked as gi-worker checks
// it: from the buffer's recorded contents with its write set poisoned, compared with the reference.
#include "compare/write_set.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "compare/compare.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using HostKernel = std::function<void(std::vector<Bytes>&)>;

constexpr std::size_t kElements = 4096;

std::vector<float> floats_of(const Bytes& b) {
    std::vector<float> v(b.size() / 4);
    std::memcpy(v.data(), b.data(), v.size() * 4);
    return v;
}

Bytes bytes_of_floats(const std::vector<float>& v) {
    Bytes b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

// A case of two float buffers: 0 the output, 1 the input (its values 1, 2, 3...). `answered`: the
// output already holds out = 2 * in before the launch (a timing loop's second launch).
std::vector<Bytes> recorded_case(bool answered) {
    std::vector<float> in(kElements), out(kElements, 0.0f);
    for (std::size_t i = 0; i < kElements; ++i) in[i] = static_cast<float>(i + 1);
    if (answered)
        for (std::size_t i = 0; i < kElements; ++i) out[i] = 2.0f * in[i];
    return {bytes_of_floats(out), bytes_of_floats(in)};
}

std::vector<Bytes> run_kernel(const HostKernel& kernel, std::vector<Bytes> buffers) {
    kernel(buffers);
    return buffers;
}

// gi-worker's probe of buffer `b`: the reference run, then one run from each poison pattern.
WriteSet probe(const HostKernel& kernel, const std::vector<Bytes>& recorded, std::size_t b, ElementType type = ElementType::F32) {
    const std::vector<Bytes> reference = run_kernel(kernel, recorded);
    std::vector<Bytes> first = recorded, second = recorded;
    fill_poison(first[b].data(), first[b].size(), type, Poison::First);
    fill_poison(second[b].data(), second[b].size(), type, Poison::Second);
    const std::vector<Bytes> from_first = run_kernel(kernel, first), from_second = run_kernel(kernel, second);
    const bool others = other_outputs_differ(reference, from_first, b) || other_outputs_differ(reference, from_second, b);
    return learn_write_set(type, recorded[b].size(), reference[b].data(), from_first[b].data(), from_second[b].data(), others);
}

// gi-worker's check of a variant on buffer `b`: from the recorded contents with the write set
// poisoned, against the original's outputs from the recorded contents.
BufferComparison check_variant(const HostKernel& original, const HostKernel& variant, const std::vector<Bytes>& recorded,
                               std::size_t b, const WriteSet& set) {
    const std::vector<Bytes> reference = run_kernel(original, recorded);
    std::vector<Bytes> masked = recorded;
    apply_poison(masked[b].data(), set, ElementType::F32);
    const std::vector<Bytes> outputs = run_kernel(variant, masked);
    return compare_buffer(ElementType::F32, reference[b].data(), outputs[b].data(), reference[b].size(), Tolerance{},
                          !set.poisoned.empty());
}

// out[i] = 2 * in[i] for i in [0, count).
HostKernel scale_first(std::size_t count) {
    return [count](std::vector<Bytes>& buffers) {
        std::vector<float> out = floats_of(buffers[0]);
        const std::vector<float> in = floats_of(buffers[1]);
        for (std::size_t i = 0; i < count; ++i) out[i] = 2.0f * in[i];
        buffers[0] = bytes_of_floats(out);
    };
}

const HostKernel kDoesNothing = [](std::vector<Bytes>&) {};

TEST(WriteSet, AnOutputOverwrittenEntirelyIsPoisonedWholeEvenWhenItHeldTheAnswer) {
    const HostKernel scale = scale_first(kElements);
    for (const bool answered : {false, true}) {
        SCOPED_TRACE(answered ? "answered before the launch" : "fresh output");
        const std::vector<Bytes> recorded = recorded_case(answered);
        const WriteSet set = probe(scale, recorded, 0);
        EXPECT_TRUE(set.known);
        EXPECT_EQ(set.written, kElements);
        EXPECT_EQ(set.read_modify_write, 0u);
        EXPECT_EQ(set.untouched, 0u);
        EXPECT_FALSE(set.input);
        EXPECT_EQ(set.poisoned, (std::vector<ByteRange>{{0, kElements * 4}}));
        EXPECT_FALSE(restores_each_launch(set, true));
        EXPECT_EQ(write_set_token(set), "w4096r0u0:0-16384");
        // A variant that writes nothing is caught on every case, the answered one included.
        const BufferComparison c = check_variant(scale, kDoesNothing, recorded, 0, set);
        EXPECT_EQ(c.unwritten, kElements);
        // The original itself passes.
        EXPECT_EQ(check_variant(scale, scale, recorded, 0, set).mismatches, 0u);
    }
}

TEST(WriteSet, AKernelWritingHalfItsOutputOnPurposePoisonsThatHalfOnly) {
    const HostKernel half = scale_first(kElements / 2);
    const std::vector<Bytes> recorded = recorded_case(true);
    const WriteSet set = probe(half, recorded, 0);
    EXPECT_EQ(set.written, kElements / 2);
    EXPECT_EQ(set.untouched, kElements / 2);
    EXPECT_EQ(set.read_modify_write, 0u);
    EXPECT_EQ(set.poisoned, (std::vector<ByteRange>{{0, kElements * 2}}));
    // Written wherever poisoned, never elsewhere: no restore between launches.
    EXPECT_FALSE(restores_each_launch(set, true));
    EXPECT_EQ(check_variant(half, half, recorded, 0, set).mismatches, 0u);
    EXPECT_EQ(check_variant(half, kDoesNothing, recorded, 0, set).unwritten, kElements / 2);
    // Writing the half the original leaves alone is wrong: the reference holds the recorded values there.
    const HostKernel whole_with_zeros = [](std::vector<Bytes>& buffers) {
        scale_first(kElements / 2)(buffers);
        std::vector<float> out = floats_of(buffers[0]);
        for (std::size_t i = kElements / 2; i < kElements; ++i) out[i] = 0.0f;
        buffers[0] = bytes_of_floats(out);
    };
    const BufferComparison c = check_variant(half, whole_with_zeros, recorded, 0, set);
    EXPECT_EQ(c.mismatches, kElements / 2);
    EXPECT_EQ(c.first_mismatch, static_cast<std::int64_t>(kElements / 2));
    EXPECT_EQ(c.unwritten, 0u);
}

TEST(WriteSet, ReadModifyWriteElementsAreNotPoisonedAndAreRestoredEachLaunch) {
    const HostKernel accumulate = [](std::vector<Bytes>& buffers) {  // C += 2 * in
        std::vector<float> out = floats_of(buffers[0]);
        const std::vector<float> in = floats_of(buffers[1]);
        for (std::size_t i = 0; i < kElements; ++i) out[i] += 2.0f * in[i];
        buffers[0] = bytes_of_floats(out);
    };
    const std::vector<Bytes> recorded = recorded_case(true);
    const WriteSet set = probe(accumulate, recorded, 0);
    EXPECT_EQ(set.read_modify_write, kElements);
    EXPECT_EQ(set.written, 0u);
    EXPECT_TRUE(set.poisoned.empty());
    EXPECT_TRUE(restores_each_launch(set, false));
    EXPECT_EQ(write_set_token(set), "w0r4096u0");
    // Judged from the recorded contents: the original passes, a variant that skips the update does not.
    EXPECT_EQ(check_variant(accumulate, accumulate, recorded, 0, set).mismatches, 0u);
    EXPECT_EQ(check_variant(accumulate, kDoesNothing, recorded, 0, set).mismatches, kElements);
}

TEST(WriteSet, AWritableBufferTheKernelOnlyReadsIsAnInputWithNothingPoisoned) {
    const HostKernel scale = scale_first(kElements);
    const std::vector<Bytes> recorded = recorded_case(false);
    const WriteSet set = probe(scale, recorded, 1);
    EXPECT_TRUE(set.input);
    EXPECT_TRUE(set.poisoned.empty());
    EXPECT_EQ(set.untouched, kElements);
    EXPECT_FALSE(restores_each_launch(set, false));
    EXPECT_EQ(write_set_token(set), "w0r0u4096i");
    // Read and then overwritten (a scratch buffer): each launch needs it back.
    const HostKernel consume = [](std::vector<Bytes>& buffers) {
        scale_first(kElements)(buffers);
        buffers[1].assign(buffers[1].size(), 0);
    };
    const WriteSet scratch = probe(consume, recorded, 1);
    EXPECT_TRUE(scratch.input);
    EXPECT_EQ(scratch.written, kElements);
    EXPECT_TRUE(scratch.poisoned.empty());
    EXPECT_TRUE(restores_each_launch(scratch, false));
}

TEST(WriteSet, MixedElementsAreCountedAndOnlyTheWrittenOnesPoisoned) {
    // Every third element written, the next updated, the next left alone.
    const HostKernel mixed = [](std::vector<Bytes>& buffers) {
        std::vector<float> out = floats_of(buffers[0]);
        for (std::size_t i = 0; i < kElements; ++i) {
            if (i % 3 == 0) out[i] = 1.0f;
            else if (i % 3 == 1) out[i] = out[i] * 0.5f + 1.0f;
        }
        buffers[0] = bytes_of_floats(out);
    };
    const std::vector<Bytes> recorded = recorded_case(true);
    const WriteSet set = probe(mixed, recorded, 0);
    EXPECT_EQ(set.written, (kElements + 2) / 3);
    EXPECT_EQ(set.read_modify_write, (kElements + 1) / 3);
    EXPECT_EQ(set.untouched, kElements / 3);
    EXPECT_EQ(set.poisoned.size(), kMaxPoisonedRanges);  // 1366 single elements: the first 1024 kept
    EXPECT_EQ(set.poisoned.front(), (ByteRange{0, 4}));
    EXPECT_EQ(set.poisoned[1], (ByteRange{12, 16}));
    EXPECT_TRUE(restores_each_launch(set, false));
    EXPECT_NE(describe(set, ElementType::F32).find("1024 of 4096 elements poisoned (1366 written, in more than 1024 pieces)"),
              std::string::npos)
        << describe(set, ElementType::F32);
    EXPECT_EQ(check_variant(mixed, mixed, recorded, 0, set).mismatches, 0u);
    EXPECT_EQ(check_variant(mixed, kDoesNothing, recorded, 0, set).unwritten, kMaxPoisonedRanges);
}

TEST(WriteSet, TheLargestRangesAreKeptWhenThereAreTooMany) {
    std::vector<unsigned char> reference(4 * 3000, 1), first(reference.size()), second(reference.size());
    fill_poison(first.data(), first.size(), ElementType::U32, Poison::First);
    fill_poison(second.data(), second.size(), ElementType::U32, Poison::Second);
    // Single written elements at even indexes, and one run of 10 near the end.
    for (std::size_t i = 0; i < 3000; ++i)
        if (i % 2 == 0 || (i >= 2900 && i < 2910))
            for (std::size_t k = 0; k < 4; ++k) first[4 * i + k] = second[4 * i + k] = 1;
    const WriteSet set = learn_write_set(ElementType::U32, reference.size(), reference.data(), first.data(), second.data(), false);
    ASSERT_EQ(set.poisoned.size(), kMaxPoisonedRanges);
    EXPECT_TRUE(std::is_sorted(set.poisoned.begin(), set.poisoned.end(),
                               [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; }));
    EXPECT_EQ(set.poisoned.back(), (ByteRange{4 * 2900, 4 * 2911}));  // the long run, joined with 2910
}

TEST(WriteSet, EveryElementTypeHasTwoDistinctPoisonsAndIsProbed) {
    for (ElementType type : {ElementType::Bytes, ElementType::I8, ElementType::U8, ElementType::I16, ElementType::U16,
                             ElementType::I32, ElementType::U32, ElementType::I64, ElementType::U64, ElementType::F16,
                             ElementType::BF16, ElementType::F32, ElementType::F64}) {
        SCOPED_TRACE(std::string(to_string(type)));
        const Bytes first = poison_element(type, Poison::First), second = poison_element(type, Poison::Second);
        ASSERT_EQ(first.size(), element_size(type));
        ASSERT_EQ(second.size(), element_size(type));
        EXPECT_NE(first[0], second[0]);  // even a one-byte tail tells them apart
        if (type == ElementType::F32) {
            float f;
            std::memcpy(&f, second.data(), 4);
            EXPECT_TRUE(std::isnan(f));
        }
        if (type == ElementType::F64) {
            double d;
            std::memcpy(&d, second.data(), 8);
            EXPECT_TRUE(std::isnan(d));
        }
        if (type == ElementType::F16) EXPECT_EQ((second[1] & 0x7c), 0x7c);  // exponent all ones, mantissa not 0
        if (type == ElementType::BF16) EXPECT_TRUE((second[1] & 0x7f) == 0x7f && (second[0] & 0x80));
        if (!is_float(type) && type != ElementType::Bytes && type != ElementType::U8 && type != ElementType::U16 &&
            type != ElementType::U32 && type != ElementType::U64)
            EXPECT_TRUE((first.back() & 0x80) && (second.back() & 0x80)) << "signed poisons are negative";
        // 100 elements and a partial one: the first 40 written with zeros, the rest left alone.
        const std::size_t size = element_size(type), bytes = 100 * size + (size > 1 ? 1 : 0);
        const Bytes reference(bytes, 0x11);
        Bytes from_first(bytes), from_second(bytes);
        fill_poison(from_first.data(), bytes, type, Poison::First);
        fill_poison(from_second.data(), bytes, type, Poison::Second);
        Bytes written = reference;
        std::fill(written.begin(), written.begin() + 40 * static_cast<long>(size), 0);
        std::copy(written.begin(), written.begin() + 40 * static_cast<long>(size), from_first.begin());
        std::copy(written.begin(), written.begin() + 40 * static_cast<long>(size), from_second.begin());
        const WriteSet set = learn_write_set(type, bytes, written.data(), from_first.data(), from_second.data(), false);
        EXPECT_EQ(set.written, 40u);
        EXPECT_EQ(set.untouched, 60u + (size > 1 ? 1 : 0));
        EXPECT_EQ(set.poisoned, (std::vector<ByteRange>{{0, 40 * size}}));
        // Written in full, the partial last element included.
        const WriteSet all = learn_write_set(type, bytes, reference.data(), reference.data(), reference.data(), false);
        EXPECT_EQ(all.poisoned, (std::vector<ByteRange>{{0, bytes}}));
        CaseBuffer buffer;
        buffer.size = bytes;
        buffer.element = type;
        buffer.read_only = false;
        EXPECT_EQ(write_set_from_token(write_set_token(all), buffer), all);
        EXPECT_EQ(write_set_from_token(write_set_token(set), buffer), set);
        // The poisoned image holds the first poison exactly where the write set is.
        Bytes image = reference;
        apply_poison(image.data(), set, type);
        Bytes poison(40 * size);
        fill_poison(poison.data(), poison.size(), type, Poison::First);
        EXPECT_EQ(std::memcmp(image.data(), poison.data(), poison.size()), 0);
        EXPECT_TRUE(std::equal(image.begin() + 40 * static_cast<long>(size), image.end(), reference.begin() + 40 * static_cast<long>(size)));
    }
}

CaseBuffer float_buffer(std::uint64_t elements, bool read_only = false, bool changed = true) {
    CaseBuffer b;
    b.size = elements * 4;
    b.element = ElementType::F32;
    b.read_only = read_only;
    b.changed = changed;
    return b;
}

TEST(WriteSet, TextRoundTripsAndReadsTheOldFormat) {
    const std::vector<CaseBuffer> buffers{float_buffer(1024), float_buffer(1024, true, false), float_buffer(10)};
    WriteSet half;
    half.known = true;
    half.written = 512;
    half.untouched = 512;
    half.poisoned = {{0, 1024}, {2048, 3072}};
    WriteSet rmw;
    rmw.known = true;
    rmw.read_modify_write = 10;
    const std::vector<WriteSet> sets{half, WriteSet{}, rmw};
    const std::string text = write_sets_text(sets);
    EXPECT_EQ(text, "w512r0u512:0-1024+2048-3072,0,w0r10u0");
    EXPECT_EQ(write_sets_from_text(text, buffers), sets);
    // The old format: "1" the whole buffer, "0" nothing known (restored when the launch changed it).
    const std::vector<WriteSet> old = write_sets_from_text("1,0,0", buffers);
    EXPECT_TRUE(old[0].known);
    EXPECT_EQ(old[0].poisoned, (std::vector<ByteRange>{{0, 4096}}));
    EXPECT_EQ(old[0].written, 1024u);
    EXPECT_FALSE(restores_each_launch(old[0], true));
    EXPECT_FALSE(old[2].known);
    EXPECT_TRUE(restores_each_launch(old[2], true));
    EXPECT_FALSE(restores_each_launch(old[2], false));
    // Fewer tokens than buffers: the rest unknown; none at all: everything unknown.
    EXPECT_EQ(write_sets_from_text("1", buffers)[2], WriteSet{});
    EXPECT_EQ(write_sets_from_text("", buffers), std::vector<WriteSet>(3));
}

TEST(WriteSet, MalformedTextIsRefusedWithTheBufferNamed) {
    const std::vector<CaseBuffer> buffers{float_buffer(1024), float_buffer(1024, true, false)};
    auto error_of = [&](const std::string& text) -> std::string {
        try {
            write_sets_from_text(text, buffers);
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(error_of("w1024r0u0:0-4100").find("outside the buffer's 4096 bytes"), std::string::npos);
    EXPECT_NE(error_of("w1024r0u0:2-4096").find("off its 4-byte elements"), std::string::npos);
    EXPECT_NE(error_of("w1024r0u0:1024-2048+0-1024").find("out of order"), std::string::npos);
    EXPECT_NE(error_of("0,1").find("buffer 1: write set '1': a read-only buffer cannot be poisoned"), std::string::npos)
        << error_of("0,1");
    EXPECT_NE(error_of("w1r0u0x").find("unknown flag 'x'"), std::string::npos);
    EXPECT_TRUE(error_of("w1r0u0:0-4").empty());
    EXPECT_NE(error_of("w1r0u0:0-8").find("more bytes than its 1 written elements"), std::string::npos);
    EXPECT_NE(error_of("w2000r0u0").find("more elements than the buffer's 1024"), std::string::npos);
    EXPECT_NE(error_of("0,0,0").find("3 or more buffers, but the case has 2"), std::string::npos);
    EXPECT_NE(error_of("yes").find("expected 0, 1 or w"), std::string::npos);
    EXPECT_NE(error_of("w1r").find("a number was expected"), std::string::npos);
}

TEST(WriteSet, VerificationGivesUpOnTheBuffersInvolvedThenOnAll) {
    WriteSet poisoned;
    poisoned.known = true;
    poisoned.written = 1;
    poisoned.poisoned = {{0, 4}};
    std::vector<WriteSet> sets{poisoned, poisoned, WriteSet{}};
    // Buffer 1's outputs differ: its poisoning is given up, buffer 0's is verified again.
    EXPECT_TRUE(give_up_unverified(sets, {false, true, true}, false));
    EXPECT_FALSE(sets[0].unverified);
    EXPECT_EQ(sets[0].poisoned.size(), 1u);
    EXPECT_TRUE(sets[1].unverified);
    EXPECT_TRUE(sets[1].poisoned.empty());
    EXPECT_TRUE(restores_each_launch(sets[1], false));  // written, and maybe read: restored
    // Only an unpoisoned buffer differs: any poisoning may be the cause, so all is given up.
    std::vector<WriteSet> others{poisoned, WriteSet{}};
    EXPECT_FALSE(give_up_unverified(others, {false, true}, false));
    EXPECT_TRUE(others[0].unverified);
    // The last try gives up everything left.
    EXPECT_FALSE(give_up_unverified(sets, {true, false, false}, true));
    EXPECT_TRUE(sets[0].unverified);
    EXPECT_EQ(write_set_token(sets[0]), "w1r0u0f");
}

TEST(WriteSet, DescriptionsSayWhatIsPoisonedAndWhy) {
    WriteSet half;
    half.known = true;
    half.written = 512;
    half.untouched = 512;
    half.poisoned = {{0, 2048}};
    EXPECT_EQ(describe(half, ElementType::F32), "512 of 1024 elements poisoned, 512 never written");
    WriteSet input;
    input.known = true;
    input.untouched = 8;
    input.input = true;
    EXPECT_EQ(describe(input, ElementType::F32),
              "none of 8 elements poisoned (the kernel reads it: poisoning it changed other outputs), 8 never written");
    EXPECT_EQ(describe(WriteSet{}, ElementType::F32), "not probed, nothing poisoned");
}

}  // namespace
}  // namespace gi
