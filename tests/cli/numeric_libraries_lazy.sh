#!/usr/bin/env bash
# Which numeric libraries (OpenBLAS, LAPACKE, FFTW) the dynamic loader maps
# (LD_DEBUG=files): none for a compile, all four for a run whose einsum
# needs BLAS (src/kernels/kern_libs.c loads them together on first use).
# $SHARDC is the shardc under test (tests/run.sh exports it).
set -u
mapped() {
    LD_DEBUG=files "$@" 2>&1 >/dev/null |
        sed -n 's/.*file=\(lib\(openblas\|lapacke\|fftw3\|fftw3f\)\.so\.[0-9]*\) .*/\1/p' | sort -u | tr '\n' ' '
}
echo "compile: [$(mapped "$SHARDC" samples/megatron_mlp.shir --emit=partitioned -o /dev/null)]"
echo "run: [$(mapped "$SHARDC" run samples/megatron_mlp.shir)]"
