// helper_functions.h: command-line parsing and a host timer shared by the sample programs, in the
// style of the CUDA samples' Common/helper_functions.h (written anew for gi-optimize's tests).
// Arguments are written --name=value or --name value (one or two leading dashes).
#ifndef COMMON_HELPER_FUNCTIONS_H_
#define COMMON_HELPER_FUNCTIONS_H_

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace detail_helper {
// The argument's name without its dashes, and its length up to any '='.
inline const char *stripDashes(const char *arg) {
  while (*arg == '-') arg++;
  return arg;
}
inline bool sameName(const char *arg, const char *name) {
  if (arg[0] != '-') return false;
  const char *a = stripDashes(arg);
  const size_t length = strlen(name);
  return strncmp(a, name, length) == 0 && (a[length] == '\0' || a[length] == '=');
}
}  // namespace detail_helper

// True when --name (or --name=...) is on the command line.
inline bool checkCmdLineFlag(const int argc, const char **argv, const char *name) {
  for (int i = 1; i < argc; i++)
    if (detail_helper::sameName(argv[i], name)) return true;
  return false;
}

// The value of --name=value or --name value; nullptr when absent.
inline const char *getCmdLineArgumentString(const int argc, const char **argv, const char *name) {
  for (int i = 1; i < argc; i++) {
    if (!detail_helper::sameName(argv[i], name)) continue;
    const char *equals = strchr(argv[i], '=');
    if (equals) return equals + 1;
    if (i + 1 < argc) return argv[i + 1];
    fprintf(stderr, "--%s needs a value\n", name);
    exit(EXIT_FAILURE);
  }
  return nullptr;
}

// The integer value of --name, or `fallback` when absent; a value that is not an integer in
// [minimum, maximum] stops the program with a message naming the argument.
inline int getCmdLineArgumentInt(const int argc, const char **argv, const char *name, int fallback,
                                 int minimum = 0, int maximum = 1 << 30) {
  const char *text = getCmdLineArgumentString(argc, argv, name);
  if (!text) return fallback;
  char *end = nullptr;
  const long value = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < minimum || value > maximum) {
    fprintf(stderr, "--%s needs an integer in %d..%d, got '%s'\n", name, minimum, maximum, text);
    exit(EXIT_FAILURE);
  }
  return static_cast<int>(value);
}

// Refuses an argument that is none of `known` (a null-terminated list of names), so a mistyped
// option is not silently ignored.
inline void checkCmdLineKnown(const int argc, const char **argv, const char *const *known) {
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '-') {
      const bool isValue = i > 1 && argv[i - 1][0] == '-' && !strchr(argv[i - 1], '=');
      if (isValue) continue;
      fprintf(stderr, "unexpected argument '%s' (see --help)\n", argv[i]);
      exit(EXIT_FAILURE);
    }
    bool found = false;
    for (const char *const *name = known; *name && !found; name++)
      found = detail_helper::sameName(argv[i], *name);
    if (!found) {
      fprintf(stderr, "unknown option '%s' (see --help)\n", argv[i]);
      exit(EXIT_FAILURE);
    }
  }
}

// A host wall-clock stopwatch (the CUDA samples' StopWatchInterface, reduced to what is used).
class StopWatch {
 public:
  void start() { begin_ = Clock::now(); running_ = true; }
  void stop() {
    if (running_) total_ += std::chrono::duration<double, std::milli>(Clock::now() - begin_).count();
    running_ = false;
  }
  void reset() { total_ = 0; running_ = false; }
  double getTime() const { return total_; }  // milliseconds

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point begin_;
  double total_ = 0;
  bool running_ = false;
};

#endif  // COMMON_HELPER_FUNCTIONS_H_
