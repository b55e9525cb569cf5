#pragma once
// NVRTC compiles in processes of their own (compile/nvrtc_server.hpp): the request and its reply as
// worker-protocol messages (worker/protocol.hpp), declared once for both ends.
//   compile  (headers by hash once a process has them) -> compiled (ok, log, ms; the cubin as payload)
//            -> refused (message: NVRTC is missing or refused the options; the caller uses nvcc)
#include <map>
#include <set>
#include <string>

#include "compile/nvrtc_compiler.hpp"
#include "worker/protocol.hpp"

namespace gi {

// With `known` (a process started through a launcher, elsewhere): each header goes with its sha256,
// its text only when the process has not had it yet (`known` holds the hashes it has, and gets these
// added), so a remote process receives a header once.
worker::Message to_message(const DeviceCompileRequest& request, std::set<std::string>* known = nullptr);
// `store`: the headers this process has received, by sha256; a header sent by hash alone is taken
// from it, and one sent whole is checked against its hash and kept there. gi::Error when malformed.
DeviceCompileRequest compile_request_from(const worker::Message& message, std::map<std::string, std::string>* store = nullptr);

worker::Message to_message(const DeviceCompileResult& result);
DeviceCompileResult compile_result_from(const worker::Message& message);  // gi::Error when malformed

}  // namespace gi
