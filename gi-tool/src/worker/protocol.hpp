#pragma once
// The pipe protocol between gi-tool and gi-worker (the process that owns the CUDA context, so a
// variant that hangs or corrupts the context costs a worker, never the run).
//
// A message is a frame: "GIW1", u32 header length, u64 payload length (little-endian), the header
// text, the payload bytes. The header is the message type on the first line, then one key=value
// per line (values escaped: \\ \n). The payload carries binary data (a cubin).
// Requests: hello, load-case, unload-case, run, quit. Replies: ready, case-loaded, case-unloaded,
// result, error (and, while a variant runs, started and checked).
//
// Each request and reply is declared once, as a struct both ends use: worker/run_request.hpp
// (RunSpec: the role, original, variant or rerun; the launch; the guarded build's payload layout
// and budget), worker/run_result.hpp (RunResult: the outcome, the comparison, the timings,
// per-stage wall times) and worker/case_messages.hpp (ready, load-case, case-loaded,
// check-variants, checked). The worker puts each case's module variables
// (testcase/test_case.hpp) into every module it runs, by name, and copies the writable ones back
// out after each launch. After every variant's run the worker checks its own copies of the
// loaded cases (pristine buffers, poison images, read-only working copies); when the variant
// changed one (it wrote past its buffers without faulting) the outcome is `corrupted`, with
// sticky=1: the worker exits after the reply, so the next variant runs on an intact case.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gi::worker {

struct Message {
    std::string type;
    std::map<std::string, std::string> fields;
    std::string payload;

    std::string get(const std::string& key, const std::string& fallback = {}) const;
    long long integer(const std::string& key, long long fallback = 0) const;  // gi::Error when malformed
    double number(const std::string& key, double fallback = 0) const;         // gi::Error when malformed
    bool operator==(const Message&) const = default;
};

inline constexpr std::uint32_t kMaxHeaderBytes = 1u << 20;
inline constexpr std::uint64_t kMaxPayloadBytes = 1ull << 31;

std::string encode(const Message& message);

// Accumulates bytes from a stream and cuts them into messages. Throws gi::Error (naming what is
// wrong: bad magic, oversized frame, malformed header) so a confused peer is noticed at once.
class MessageReader {
public:
    void feed(const char* data, std::size_t size);
    std::optional<Message> next();
    std::size_t buffered() const { return buffer_.size(); }

private:
    std::string buffer_;
};

// Blocking helpers over file descriptors (the worker's side). read_message returns nullopt at
// end of input; both throw gi::Error on I/O errors. write_message ends each frame with a newline
// (one is added after a payload that ends otherwise; readers skip it): srun passes a job step's
// output on a line at a time.
std::optional<Message> read_message(int fd, MessageReader& reader);
void write_message(int fd, const Message& message);

// For a serving process: the descriptor its replies go to (a copy of stdout), with fd 1 itself
// sent to /dev/null so nothing else written there (a kernel's printf, a library's message) can
// corrupt the protocol. Throws gi::Error when the descriptors cannot be set up.
int protocol_stdout();

}  // namespace gi::worker
