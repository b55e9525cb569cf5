#!/usr/bin/env bash
# Installs the Debian packages gi-optimize needs, only those missing, so the README's commands work
# on a fresh Debian 12 machine. The CUDA toolkit is expected in /usr/local/cuda (or on PATH).
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config libtinyxml2-dev libboost-dev libboost-filesystem-dev
          libgtest-dev libsqlite3-dev libcli11-dev libfmt-dev libssl-dev)
# Wanted, not needed: ccache makes the CMake scenarios compile each source once a run. A machine
# that cannot install it runs them without.
optional=(ccache)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
if ((${#missing[@]})); then
    echo "gi-optimize: installing missing packages: ${missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for package in "${optional[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" && continue
    echo "gi-optimize: installing $package (optional)"
    if ! { "${sudo_cmd[@]}" apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "$package" >/dev/null; }; then
        echo "gi-optimize: note: could not install $package; going on without it"
    fi
done

# Wanted by the Slurm test (ctest -L slurm: a single-node Slurm started by the test), which skips,
# saying so, without them. Only as root: the test needs root to start the daemons.
slurm=(slurm-wlm munge)
slurm_missing=()
for package in "${slurm[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || slurm_missing+=("$package")
done
if ((${#slurm_missing[@]})) && [[ $(id -u) -eq 0 ]]; then
    echo "gi-optimize: installing ${slurm_missing[*]} (optional, for the Slurm test)"
    if ! { apt-get update -qq &&
           DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${slurm_missing[@]}" >/dev/null; }; then
        echo "gi-optimize: note: could not install ${slurm_missing[*]}; the Slurm test will be skipped"
    fi
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
    echo "gi-optimize: nvcc found in /usr/local/cuda/bin (add it to PATH to use it outside these scripts)"
fi
