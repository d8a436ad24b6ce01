#!/usr/bin/env bash
# Here, before a GPU session: makes what the GPU machine needs and cannot fetch (it has no package
# registry and no network) in .device/, which the device runs carry:
#   llama-src.tar.xz  the pinned llama.cpp source tree (scripts/fetch_third_party.sh), without its
#                     .git and models/ (~11 MB), for scripts/device/build_llama_there.sh
#   vocab.tar.xz      the tokenizers `ecocompute synth` and the GPU tests read (ggml-vocab-llama-bpe,
#                     -qwen2, -llama-spm; ~2.3 MB), for scripts/device/session.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dev="$root/.device"
mkdir -p "$dev"
"$root/scripts/fetch_third_party.sh"
XZ_OPT='-T0 -6' tar -cJf "$dev/llama-src.tar.xz" -C "$root/third_party" --exclude=.git --exclude='llama.cpp/models/*' llama.cpp
vocabs=(ggml-vocab-llama-bpe.gguf ggml-vocab-qwen2.gguf ggml-vocab-llama-spm.gguf)
tar -cJf "$dev/vocab.tar.xz" -C "$root/third_party/llama.cpp/models" --transform "s,^,vocab/," "${vocabs[@]}"
ls -la "$dev/llama-src.tar.xz" "$dev/vocab.tar.xz"
