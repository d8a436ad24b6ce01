"""Measuring a transformers model with ecocompute (docs/command-protocol.md). Needs torch, transformers
(and bitsandbytes for nf4/int8), a CUDA GPU and a model; not run by the test suite.

Driven, precisions compared with the full design (k interleaved trials, paired CIs):
  ecocompute measure --engine command \
    --baseline-command 'FP16=python3 contrib/transformers_example.py --model MODEL --precision fp16' \
    --candidate-command 'BF16=python3 contrib/transformers_example.py --model MODEL --precision bf16' \
    --candidate-command 'NF4=python3 contrib/transformers_example.py --model MODEL --precision nf4'
One run, its own windows (a prefill and a generate):
  ecocompute meter -- python3 contrib/transformers_example.py --model MODEL --precision fp16 --marked
Without weights: --config CONFIG.json (e.g. from `ecocompute synth --arch llama3-8b --hf-config CONFIG.json`)
builds the shape with random weights on the GPU and feeds fixed token ids (no tokenizer): energy and speed
are the shape's, outputs are meaningless, as with the synthetic GGUF files llama.cpp is measured on.
"""
import argparse
import json
import os
import sys

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ecocompute_marker as eco  # noqa: E402

TEXT = "Explain in simple terms how a language model works. "


DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def load_synthetic(config_path, precision):
    """The config's shape with transformers' own random initialisation, built directly on the GPU."""
    if precision not in DTYPES:
        raise SystemExit("--config builds fp16 or bf16 weights only, not " + precision)
    with open(config_path) as f:
        fields = json.load(f)
    name = fields.pop("_name_or_path", config_path)
    fields["torch_dtype"] = str(DTYPES[precision]).replace("torch.", "")  # from_config builds in this dtype
    config = transformers.AutoConfig.for_model(fields.pop("model_type"), **fields)
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    default = torch.get_default_dtype()
    torch.set_default_dtype(DTYPES[precision])
    try:
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(config)
    finally:
        torch.set_default_dtype(default)
    built = next(model.parameters()).dtype
    if built != DTYPES[precision]:
        raise SystemExit("asked for %s weights, transformers built %s" % (DTYPES[precision], built))
    model.eval()
    return model, name


class FixedIds:
    """Stands in for a tokenizer on a synthetic model: the same token ids every run."""

    bos_token_id = None

    def __init__(self, vocab_size):
        self.vocab_size = vocab_size

    def __call__(self, text, add_special_tokens=False):
        ids = [(1000 + 7919 * i) % self.vocab_size for i in range(97)]
        return argparse.Namespace(input_ids=ids)


def load(name, precision):
    kwargs = {"attn_implementation": "eager", "device_map": {"": 0}}
    if precision == "fp16":
        kwargs["torch_dtype"] = torch.float16
    elif precision == "bf16":
        kwargs["torch_dtype"] = torch.bfloat16
    elif precision in ("nf4", "int8"):
        kwargs["torch_dtype"] = torch.float16
        kwargs["quantization_config"] = transformers.BitsAndBytesConfig(
            load_in_4bit=precision == "nf4", load_in_8bit=precision == "int8",
            bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.float16)
    else:
        raise SystemExit("unknown precision " + precision)
    model = AutoModelForCausalLM.from_pretrained(name, **kwargs)
    model.eval()
    return model


def prompt_ids(tokenizer, n):
    """A prompt of exactly n tokens: the text's tokens repeated and cut (BOS first when the model has one)."""
    body = tokenizer(TEXT, add_special_tokens=False).input_ids
    ids = ([tokenizer.bos_token_id] if tokenizer.bos_token_id is not None else []) + body * (n // len(body) + 1)
    return torch.tensor([ids[:n]], device="cuda")


class Session:
    """One greedy sequence: prefill starts a fresh context, decode extends it one token per step."""

    def __init__(self, model, tokenizer):
        self.model, self.tokenizer = model, tokenizer
        self.past, self.next_token = None, None

    @torch.inference_mode()
    def __call__(self, verb, n):
        if verb == "prefill":
            out = self.model(input_ids=prompt_ids(self.tokenizer, n), use_cache=True)
            self.past, self.next_token = out.past_key_values, out.logits[:, -1:].argmax(-1)
        elif verb == "decode":
            if self.past is None:
                raise RuntimeError("decode before prefill")
            for _ in range(n):
                out = self.model(input_ids=self.next_token, past_key_values=self.past, use_cache=True)
                self.past, self.next_token = out.past_key_values, out.logits[:, -1:].argmax(-1)
        else:
            raise ValueError("unknown request " + verb)
        torch.cuda.synchronize()  # the reply means: the device has finished this work
        return n


def main():
    parser = argparse.ArgumentParser()
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a Hugging Face model name or folder")
    source.add_argument("--config", help="a config.json: that shape with random weights (no download)")
    parser.add_argument("--precision", default="fp16", choices=["fp16", "bf16", "nf4", "int8"])
    parser.add_argument("--marked", action="store_true", help="mark windows for `ecocompute meter`")
    parser.add_argument("--tokens", type=int, default=256)
    args = parser.parse_args()
    if args.config:
        model, name = load_synthetic(args.config, args.precision)
        tokenizer = FixedIds(model.config.vocab_size)
    else:
        tokenizer = AutoTokenizer.from_pretrained(args.model)
        model = load(args.model, args.precision)
        name = args.model
    params = sum(p.numel() for p in model.parameters())
    if not args.marked:
        eco.driven(Session(model, tokenizer), engine="transformers", version=transformers.__version__,
                   precision=args.precision.upper(), model=name, params=params,
                   device="cuda:0_" + torch.cuda.get_device_name(0), backend="CUDA_eager")
        return
    ids = prompt_ids(tokenizer, 64)
    with torch.inference_mode():
        model.generate(ids, max_new_tokens=8, do_sample=False)  # warm-up, not measured
        torch.cuda.synchronize()
        with eco.window("generate") as w:
            out = model.generate(ids, max_new_tokens=args.tokens, min_new_tokens=args.tokens, do_sample=False)
            torch.cuda.synchronize()
            w.tokens = out.shape[1] - ids.shape[1]
    print("generated %d tokens" % (out.shape[1] - ids.shape[1]))


if __name__ == "__main__":
    main()
