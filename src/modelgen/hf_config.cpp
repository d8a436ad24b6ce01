#include "modelgen/hf_config.hpp"

namespace ecocompute::modelgen {

OrderedJson hf_config(const ModelShape& shape) {
  const bool qwen = shape.architecture == "qwen2";
  OrderedJson c{{"architectures", {qwen ? "Qwen2ForCausalLM" : "LlamaForCausalLM"}},
                {"model_type", qwen ? "qwen2" : "llama"},
                {"_name_or_path", "synthetic " + shape.display_name + " shape (ecocompute synth --arch " + shape.id + ")"},
                {"num_hidden_layers", shape.n_layer},
                {"hidden_size", shape.n_embd},
                {"num_attention_heads", shape.n_head},
                {"num_key_value_heads", shape.n_head_kv},
                {"head_dim", shape.head_dim()},
                {"intermediate_size", shape.n_ff},
                {"vocab_size", shape.n_vocab},
                {"max_position_embeddings", shape.n_ctx_train},
                {"rope_theta", shape.rope_freq_base},
                {"rms_norm_eps", shape.norm_rms_eps},
                {"tie_word_embeddings", shape.tied_embeddings},
                {"hidden_act", "silu"},
                {"torch_dtype", "float16"},
                {"use_cache", true}};
  // Llama's attention has no q/k/v bias; Qwen2's always has them (its config has no switch for it).
  if (!qwen) {
    c["attention_bias"] = shape.qkv_bias;
    c["mlp_bias"] = false;
  }
  return c;
}

}  // namespace ecocompute::modelgen
