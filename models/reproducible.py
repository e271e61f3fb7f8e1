"""Training runs that write the same bytes on any x86-64 CPU, not only on the machine that wrote them.

Seeds, one thread and `torch.use_deterministic_algorithms` make a rerun on the same machine byte-identical, but
torch picks its CPU kernels by the instruction sets it finds: the vectorised ATen kernels (AVX2 or AVX-512), MKL's
code path, and oneDNN's convolutions each sum floats in another order on another CPU. Measured on one machine
(2026-11-24), `scripts/train/train_blocknet.py` wrote three different `.npz` files with ATen's AVX-512, AVX2 and scalar
kernels, and two different ones with oneDNN limited to SSE4.1 and to AVX-512. Pinned (scalar ATen kernels, MKL's
`COMPATIBLE` path, oneDNN off) the run is ~2.5x slower and every one of those knobs leaves its bytes unchanged.
numpy's own SIMD level is not pinned: with its AVX-512 kernels off (`NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL
AVX512_SPR"`) the default model's command wrote the shipped file byte for byte (2026-11-30), with AVX2 off as well
a two-pool model's weights moved by up to 2e-6; so a CPU without AVX2 will not write the same bytes.

The environment variables are read when torch and MKL load, so pinning re-executes the script with them set:
a script calls `deterministic_torch` first thing in its `main` (never at import: the cross-validation script
scripts/eval/cv_blocknet_fallback.py imports train_blocknet). Used by the training scripts and their tests, not by
any method: torch is imported here at the top.
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

__all__ = ["PINNED_ENV", "add_kernel_option", "deterministic_torch"]

PINNED_ENV = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}


def add_kernel_option(parser: argparse.ArgumentParser) -> None:
    """`--native-kernels`, for `deterministic_torch(args.native_kernels)`."""
    parser.add_argument("--native-kernels", action="store_true",
                        help="torch's fastest kernels for this CPU (~2.5x faster): reruns byte-identical on this "
                             "machine only")


def deterministic_torch(native_kernels: bool = False) -> None:
    """One thread and deterministic algorithms; unless `native_kernels`, also CPU-independent kernels: re-executes
    this process's script with `PINNED_ENV` (and does not return) when it is not set yet, then turns oneDNN off."""
    if not native_kernels:
        if any(os.environ.get(name) != value for name, value in PINNED_ENV.items()):
            pins = " ".join(f"{name}={value}" for name, value in PINNED_ENV.items())
            print(f"re-running with CPU-independent kernels ({pins}, oneDNN off; --native-kernels: this CPU's own)",
                  file=sys.stderr, flush=True)
            sys.stdout.flush()
            os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, **PINNED_ENV})
        torch.backends.mkldnn.enabled = False
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
