#include "worker/protocol.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/error.hpp"

namespace gi::worker {
namespace {

constexpr char kMagic[4] = {'G', 'I', 'W', '1'};
constexpr std::size_t kPrefix = 4 + 4 + 8;

void put_le(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

std::uint64_t get_le(const char* p, int bytes) {
    std::uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return value;
}

std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string unescape(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
            out += text[i];
            continue;
        }
        if (++i >= text.size()) throw Error("worker protocol: a header value ends in a lone backslash");
        if (text[i] == 'n') out += '\n';
        else if (text[i] == '\\') out += '\\';
        else throw Error(std::string("worker protocol: unknown escape '\\") + text[i] + "' in a header value");
    }
    return out;
}

}  // namespace

std::string Message::get(const std::string& key, const std::string& fallback) const {
    auto it = fields.find(key);
    return it == fields.end() ? fallback : it->second;
}

long long Message::integer(const std::string& key, long long fallback) const {
    auto it = fields.find(key);
    if (it == fields.end()) return fallback;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0' || errno == ERANGE)
        throw Error("worker protocol: field '" + key + "' of a '" + type + "' message is not an integer: '" + it->second + "'");
    return value;
}

double Message::number(const std::string& key, double fallback) const {
    auto it = fields.find(key);
    if (it == fields.end()) return fallback;
    char* end = nullptr;
    const double value = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end != '\0')
        throw Error("worker protocol: field '" + key + "' of a '" + type + "' message is not a number: '" + it->second + "'");
    return value;
}

std::string encode(const Message& message) {
    if (message.type.empty() || message.type.find_first_of("\n=") != std::string::npos)
        throw Error("worker protocol: invalid message type '" + message.type + "'");
    std::string header = message.type + "\n";
    for (const auto& [key, value] : message.fields) {
        if (key.empty() || key.find_first_of("\n=\\") != std::string::npos)
            throw Error("worker protocol: invalid field name '" + key + "'");
        header += key + "=" + escape(value) + "\n";
    }
    if (header.size() > kMaxHeaderBytes) throw Error("worker protocol: header of '" + message.type + "' too large");
    if (message.payload.size() > kMaxPayloadBytes) throw Error("worker protocol: payload of '" + message.type + "' too large");
    std::string out(kMagic, 4);
    put_le(out, header.size(), 4);
    put_le(out, message.payload.size(), 8);
    out += header;
    out += message.payload;
    return out;
}

void MessageReader::feed(const char* data, std::size_t size) { buffer_.append(data, size); }

std::optional<Message> MessageReader::next() {
    // A frame may be followed by a newline (write_message), which is no part of the next one.
    const std::size_t frame = buffer_.find_first_not_of('\n');
    buffer_.erase(0, frame == std::string::npos ? buffer_.size() : frame);
    if (buffer_.size() < kPrefix) {
        if (!buffer_.empty() && std::memcmp(buffer_.data(), kMagic, std::min<std::size_t>(4, buffer_.size())) != 0)
            throw Error("worker protocol: the peer sent bytes that do not start a message (is something else writing to the pipe?)");
        return std::nullopt;
    }
    if (std::memcmp(buffer_.data(), kMagic, 4) != 0)
        throw Error("worker protocol: the peer sent bytes that do not start a message (is something else writing to the pipe?)");
    const std::uint64_t header_size = get_le(buffer_.data() + 4, 4);
    const std::uint64_t payload_size = get_le(buffer_.data() + 8, 8);
    if (header_size > kMaxHeaderBytes || payload_size > kMaxPayloadBytes)
        throw Error("worker protocol: a frame announces " + std::to_string(header_size) + " header and " +
                    std::to_string(payload_size) + " payload bytes, more than allowed");
    if (buffer_.size() < kPrefix + header_size + payload_size) return std::nullopt;

    const std::string header = buffer_.substr(kPrefix, header_size);
    Message message;
    message.payload = buffer_.substr(kPrefix + header_size, payload_size);
    buffer_.erase(0, kPrefix + header_size + payload_size);

    std::size_t start = 0;
    bool first = true;
    while (start < header.size()) {
        const std::size_t end = header.find('\n', start);
        if (end == std::string::npos) throw Error("worker protocol: a header line is not terminated");
        const std::string line = header.substr(start, end - start);
        start = end + 1;
        if (first) {
            if (line.empty()) throw Error("worker protocol: a message has no type");
            message.type = line;
            first = false;
            continue;
        }
        const std::size_t eq = line.find('=');
        if (eq == std::string::npos || eq == 0) throw Error("worker protocol: malformed header line '" + line + "'");
        message.fields[line.substr(0, eq)] = unescape(line.substr(eq + 1));
    }
    if (first) throw Error("worker protocol: a message has no type");
    return message;
}

std::optional<Message> read_message(int fd, MessageReader& reader) {
    for (;;) {
        if (auto message = reader.next()) return message;
        char chunk[65536];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error(std::string("worker protocol: read failed: ") + std::strerror(errno));
        if (n == 0) {
            if (reader.buffered() > 0) throw Error("worker protocol: the input ended inside a message");
            return std::nullopt;
        }
        reader.feed(chunk, static_cast<std::size_t>(n));
    }
}

void write_message(int fd, const Message& message) {
    // Ended by a newline: a launcher may pass output on a line at a time (srun's slurmstepd holds
    // what follows the last newline until more comes, without --unbuffered), and a frame whose
    // payload (a cubin) ends otherwise would then wait there, its reader with it.
    std::string bytes = encode(message);
    if (bytes.back() != '\n') bytes += '\n';
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw Error(std::string("worker protocol: write failed: ") + std::strerror(errno));
        done += static_cast<std::size_t>(n);
    }
}

int protocol_stdout() {
    const int out_fd = ::dup(1);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (out_fd < 0 || null_fd < 0 || ::dup2(null_fd, 1) < 0)
        throw Error(std::string("setting up the protocol's descriptors: ") + std::strerror(errno));
    ::close(null_fd);
    return out_fd;
}

}  // namespace gi::worker
