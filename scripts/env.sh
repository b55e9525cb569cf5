# Sourced by the scripts: puts the CUDA toolkit on PATH when it is installed in the usual place.
if [[ -d /usr/local/cuda/bin && ":$PATH:" != *":/usr/local/cuda/bin:"* ]]; then
    export PATH="/usr/local/cuda/bin:$PATH"
fi
export GI_JOBS="${GI_JOBS:-$(nproc)}"
