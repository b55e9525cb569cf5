#include "worker/protocol.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "util/error.hpp"

namespace gi::worker {
namespace {

TEST(WorkerProtocol, RoundTripWithEscapesAndBinaryPayload) {
    Message m{"run", {{"kernel", "k"}, {"detail", "line one\nline two \\ end"}, {"empty", ""}}, std::string("\0\1\2GIW1", 7)};
    MessageReader reader;
    const std::string bytes = encode(m);
    reader.feed(bytes.data(), bytes.size());
    auto back = reader.next();
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, m);
    EXPECT_FALSE(reader.next());
}

TEST(WorkerProtocol, ByteByByteAndSeveralMessages) {
    const std::string bytes = encode({"hello", {}, {}}) + encode({"quit", {{"a", "1"}}, "xyz"});
    MessageReader reader;
    std::vector<Message> got;
    for (char c : bytes) {
        reader.feed(&c, 1);
        while (auto m = reader.next()) got.push_back(*m);
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].type, "hello");
    EXPECT_EQ(got[1].get("a"), "1");
    EXPECT_EQ(got[1].payload, "xyz");
}

TEST(WorkerProtocol, FieldAccessors) {
    const Message m{"result", {{"n", "42"}, {"x", "1.5"}, {"bad", "4x"}}, {}};
    EXPECT_EQ(m.integer("n"), 42);
    EXPECT_EQ(m.integer("missing", 7), 7);
    EXPECT_DOUBLE_EQ(m.number("x"), 1.5);
    EXPECT_THROW(m.integer("bad"), Error);
    EXPECT_THROW(m.number("bad"), Error);
    EXPECT_EQ(m.get("missing", "d"), "d");
}

TEST(WorkerProtocol, MalformedFramesAreErrors) {
    auto fails = [](const std::string& bytes) {
        MessageReader reader;
        reader.feed(bytes.data(), bytes.size());
        EXPECT_THROW(reader.next(), Error) << bytes;
    };
    fails("HELLO WORLD, not a frame");
    fails("GX");
    std::string huge = encode({"a", {}, {}});
    huge[7] = '\x7f';  // header length far beyond the limit
    fails(huge);
    // A header whose line has no '='.
    std::string frame("GIW1");
    const std::string header = "run\nnoequals\n";
    for (int i = 0; i < 4; ++i) frame += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    frame += std::string(8, '\0') + header;
    fails(frame);
    EXPECT_THROW(encode({"bad\ntype", {}, {}}), Error);
    EXPECT_THROW(encode({"ok", {{"bad=key", "v"}}, {}}), Error);
}

TEST(WorkerProtocol, EndOfInputInsideAMessageIsAnError) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string bytes = encode({"run", {{"k", "v"}}, "payload"});
    ASSERT_EQ(::write(fds[1], bytes.data(), bytes.size() - 3), static_cast<ssize_t>(bytes.size() - 3));
    ::close(fds[1]);
    MessageReader reader;
    EXPECT_THROW(read_message(fds[0], reader), Error);
    ::close(fds[0]);
    ASSERT_EQ(::pipe(fds), 0);
    ::close(fds[1]);
    MessageReader empty;
    EXPECT_FALSE(read_message(fds[0], empty));  // a clean end of input
    ::close(fds[0]);
}

// Through srun a job step's output arrives a line at a time (slurmstepd keeps what follows the
// last newline until more comes), so every frame written ends with a newline, and readers skip it.
TEST(WorkerProtocol, FramesWrittenEndWithANewlineThatReadersSkip) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const Message cubin{"compiled", {{"ok", "1"}}, std::string("\x7f" "ELF\0\1binary", 10)};
    const Message plain{"ready", {}, {}};
    write_message(fds[1], cubin);
    write_message(fds[1], plain);
    ::close(fds[1]);
    std::string written(4096, '\0');
    written.resize(static_cast<std::size_t>(::read(fds[0], written.data(), written.size())));
    ::close(fds[0]);
    EXPECT_EQ(written, encode(cubin) + "\n" + encode(plain));  // a frame already ending in one gets none
    MessageReader reader;
    for (char c : written) reader.feed(&c, 1);
    EXPECT_EQ(reader.next(), cubin);
    EXPECT_EQ(reader.next(), plain);
    EXPECT_FALSE(reader.next());
    EXPECT_EQ(reader.buffered(), 0u);
}

}  // namespace
}  // namespace gi::worker
