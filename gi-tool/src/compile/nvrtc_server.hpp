#pragma once
// `gi-tool --nvrtc-server`: compiles with NVRTC for its parent, one request at a time on stdin,
// replies on stdout (compile/nvrtc_messages.hpp). Why processes: NVRTC (CUDA 13.0) runs one
// compile at a time per process, whatever the threads (bench/nvrtc_scaling.cpp on the H200's 16
// cores: 58 compiles a second with 16 threads against 166 with 16 processes), and a compiler crash
// on an evolved variant then costs a process, not the run. Returns the exit status.
namespace gi {

int serve_nvrtc_compiles();

}  // namespace gi
