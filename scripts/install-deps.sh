#!/usr/bin/env bash
# Install the Debian packages shardc needs to build and test (run as root).
set -euo pipefail
# coinor-libcbc-dev: CBC, the auto-sharding ILP solver (src/autoshard/ilp.c, docs/auto_sharding.md).
# python3: scripts/check-layering.py (tests/layout). mpich, libmpich-dev: the distributed build (make MPI=1, docs/distributed.md)
# libopenblas-dev, liblapacke-dev, libfftw3-dev: the headers of OpenBLAS (gemm), LAPACKE (cholesky, triangular_solve,
# JAX's lapack custom_calls) and FFTW (fft), and the libraries the kernels open with dlopen at run time
# (src/kernels/kern_libs.c, docs/interpreter.md "Numeric libraries"); shardc does not link them.
# graphviz: dot renders --emit=dot graphs (tests/cli/emit_dot_graphviz.test)
packages=(build-essential python3 flex bison libyaml-dev libcmocka-dev libopenblas-dev liblapacke-dev llvm-14-tools mpich libmpich-dev graphviz coinor-libcbc-dev pkg-config libfftw3-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
