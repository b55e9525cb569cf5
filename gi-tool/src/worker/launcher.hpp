#pragma once
// A worker launcher (`--worker-launcher "srun --gres=gpu:1 -N1 -n1 --quiet"`, "ssh gpu-node"): a
// command prefix that starts gi-worker elsewhere, the pipe protocol running through the launcher's
// stdin and stdout. What gi-tool gives the worker in its environment goes on the command line
// (`env NAME=VALUE ... gi-worker`), since a launcher need not forward the environment (ssh does
// not). A launched worker can be lost with its node or its connection: that is the launcher's
// failure, not the variant's (launcher_lost).
#include <map>
#include <string>
#include <vector>

namespace gi::worker {

// Splits `text` into words as a POSIX shell would (blanks separate, '...' and "..." quote,
// backslash escapes), without running one: no variables, globs or redirections. Throws
// gi::UsageError naming `option` for an unterminated quote or an empty command.
std::vector<std::string> split_launcher_command(const std::string& text, const std::string& option = "--worker-launcher");

// The argv of a worker started through `launcher`: the launcher's words, then `env NAME=VALUE`
// for each of `env` (none: no `env`), the executable and its arguments.
std::vector<std::string> launched_command(const std::vector<std::string>& launcher, const std::map<std::string, std::string>& env,
                                          const std::string& executable, const std::vector<std::string>& args);

// Whether a launched worker that ended with `wait_status` (waitpid's, of the launcher) was lost with
// its launcher rather than killed by what it ran: the launcher was ended by a signal (gi-tool
// did not send it: killed workers are not asked), or exited with 255 (ssh's own failure), or the
// worker ended before it answered anything of the request in flight (`answered`: so the request
// never started its work there). srun and ssh report a worker's crash as an exit status of their
// own (134 for an abort), so a crashing variant is still the variant's.
bool launcher_lost(int wait_status, bool answered);

}  // namespace gi::worker
