#include "util/signal_cleanup.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gi {
namespace {

constexpr int kSlots = 256;
constexpr std::size_t kPathBytes = 1024;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// One registered folder. `sequence` is odd while `path` is being written, so the handler, which
// may interrupt a registration, copies a path only when the sequence is even and unchanged across
// the copy (a seqlock); `used` says whether the slot is taken. `owner` is the process that
// registered it: a forked child (before its exec) inherits the slots, but not the folders.
struct Slot {
    std::atomic<bool> used{false};
    std::atomic<std::uint32_t> sequence{0};
    std::atomic<pid_t> owner{0};
    char path[kPathBytes] = {};
};

Slot slots[kSlots];

// The kernel's directory entry layout for getdents64.
struct DirectoryEntry {
    std::uint64_t inode;
    std::int64_t offset;
    unsigned short length;
    unsigned char type;
    char name[1];
};

bool is_dot(const char* name) { return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')); }

// rm -rf of `name` in `parent`, with async-signal-safe calls only (no malloc, no opendir).
void remove_tree(int parent, const char* name, int depth) {
    if (::unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 8) return;
    const int folder = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (folder < 0) return;
    alignas(8) char buffer[2048];
    // Entries removed while listing may shift the listing: read it again until it is empty.
    for (int round = 0; round < 8; ++round) {
        bool found = false;
        ::lseek(folder, 0, SEEK_SET);
        for (;;) {
            const long n = ::syscall(SYS_getdents64, folder, buffer, sizeof buffer);
            if (n <= 0) break;
            for (long at = 0; at < n;) {
                const auto* entry = reinterpret_cast<const DirectoryEntry*>(buffer + at);
                at += entry->length;
                if (is_dot(entry->name)) continue;
                found = true;
                remove_tree(folder, entry->name, depth + 1);
            }
        }
        if (!found) break;
    }
    ::close(folder);
    ::unlinkat(parent, name, AT_REMOVEDIR);
}

void on_fatal_signal(int signal) {
    const int saved_errno = errno;
    const pid_t self = ::getpid();
    char path[kPathBytes];
    for (Slot& slot : slots) {
        const std::uint32_t before = slot.sequence.load(std::memory_order_acquire);
        if ((before & 1) != 0 || !slot.used.load(std::memory_order_acquire) || slot.owner.load() != self) continue;
        std::memcpy(path, slot.path, kPathBytes);
        std::atomic_thread_fence(std::memory_order_acquire);
        if (slot.sequence.load(std::memory_order_relaxed) != before) continue;
        path[kPathBytes - 1] = '\0';
        if (path[0] == '/') remove_tree(AT_FDCWD, path, 0);
    }
    // End the process as the signal would have: the default action, raised again (delivered once
    // this handler returns, since the signal is blocked while it runs).
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(signal, &fallback, nullptr);
    ::raise(signal);
    errno = saved_errno;
}

void install_once() {
    static std::once_flag installed;
    std::call_once(installed, [] {
        for (const int signal : kSignals) {
            struct sigaction current {};
            if (::sigaction(signal, nullptr, &current) != 0) continue;
            // Ignored (a background job's SIGINT) or handled by someone else: left as it is.
            if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
            struct sigaction handler {};
            handler.sa_handler = on_fatal_signal;
            sigemptyset(&handler.sa_mask);
            for (const int other : kSignals) sigaddset(&handler.sa_mask, other);  // one cleanup at a time
            handler.sa_flags = SA_RESTART;
            ::sigaction(signal, &handler, nullptr);
        }
    });
}

}  // namespace

RemovedOnFatalSignal::RemovedOnFatalSignal(const std::filesystem::path& folder) {
    const std::string text = folder.string();
    if (text.empty() || text[0] != '/' || text.size() >= kPathBytes) return;
    install_once();
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (!slots[i].used.compare_exchange_strong(expected, true)) continue;
        Slot& slot = slots[i];
        slot.sequence.fetch_add(1, std::memory_order_acq_rel);  // odd: being written
        slot.owner.store(::getpid());
        std::memset(slot.path, 0, kPathBytes);
        std::memcpy(slot.path, text.data(), text.size());
        slot.sequence.fetch_add(1, std::memory_order_release);  // even: complete
        slot_ = i;
        return;
    }
}

RemovedOnFatalSignal::~RemovedOnFatalSignal() {
    if (slot_ >= 0) slots[slot_].used.store(false, std::memory_order_release);
}

}  // namespace gi
