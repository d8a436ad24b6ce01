#!/usr/bin/env bash
# Here, before a GPU session: makes what the GPU machine needs and cannot fetch (it has no package
# registry and no network) in .device/, which the device runs carry:
#   llama-src.tar.xz  the pinned llama.cpp source tree (scripts/fetch_third_party.sh), without its
#                     .git and models/ (~11 MB), for scripts/device/build_llama_there.sh
#   vocab.tar.xz      the tokenizers `ecocompute synth` and the GPU tests read (ggml-vocab-llama-bpe,
#                     -qwen2, -llama-spm; ~2.3 MB), for scripts/device/session.sh; and one
#                     vocab-<name>.tar.xz per tokenizer (llama-bpe ~1.5 MB), for a call whose carry
#                     is near its limit and whose shapes need one tokenizer (session.sh's VOCAB_TAR)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dev="$root/.device"
mkdir -p "$dev"
"$root/scripts/fetch_third_party.sh"
XZ_OPT='-T0 -6' tar -cJf "$dev/llama-src.tar.xz" -C "$root/third_party" --exclude=.git --exclude='llama.cpp/models/*' llama.cpp
vocabs=(ggml-vocab-llama-bpe.gguf ggml-vocab-qwen2.gguf ggml-vocab-llama-spm.gguf)
pack_vocab() {  # pack_vocab TARBALL GGUF…
  local tarball=$1; shift
  XZ_OPT='-T0 -9e' tar -cJf "$tarball" -C "$root/third_party/llama.cpp/models" --transform "s,^,vocab/," "$@"
}
pack_vocab "$dev/vocab.tar.xz" "${vocabs[@]}"
for v in "${vocabs[@]}"; do
  name=${v#ggml-vocab-}; pack_vocab "$dev/vocab-${name%.gguf}.tar.xz" "$v"
done
ls -la "$dev/llama-src.tar.xz" "$dev"/vocab*.tar.xz
