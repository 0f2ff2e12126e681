"""Draws the app icons in web/icons/ (a white mask on teal) with the standard library only:
`python -m openmasq.site.icons web/icons` rewrites them byte for byte."""

from __future__ import annotations

import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

TEAL = (15, 118, 110)
WHITE = (255, 255, 255)
SAMPLES = 4  # 4x4 samples per pixel: smooth edges without a drawing library
CORNER = 0.22  # corner radius of the rounded square, as a share of the half-size
# The glyph in [-1, 1] coordinates: two overlapping lenses with two eye holes.
LENSES = ((-0.45, 0.0, 0.55, 0.42), (0.45, 0.0, 0.55, 0.42))
EYES = ((-0.42, -0.02, 0.22, 0.13), (0.42, -0.02, 0.22, 0.13))
MASKABLE_SCALE = 0.62  # the glyph stays inside the 80 % safe zone of a maskable icon


def _inside(ellipses: tuple[tuple[float, float, float, float], ...], x: float, y: float) -> bool:
    return any(((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1 for cx, cy, rx, ry in ellipses)


def glyph(x: float, y: float) -> bool:
    return _inside(LENSES, x, y) and not _inside(EYES, x, y)


def rounded_square(x: float, y: float) -> bool:
    inner = 1 - CORNER
    dx, dy = max(abs(x) - inner, 0.0), max(abs(y) - inner, 0.0)
    return dx * dx + dy * dy <= CORNER * CORNER


def render(size: int, maskable: bool) -> bytes:
    """RGBA rows of the icon at `size` pixels."""
    scale = MASKABLE_SCALE if maskable else 0.8
    background: Callable[[float, float], bool] = (lambda x, y: True) if maskable else rounded_square
    rows = bytearray()
    step = 2 / (size * SAMPLES)
    for py in range(size):
        rows.append(0)  # PNG filter type 0 for this row
        for px in range(size):
            bg = fg = 0
            for sy in range(SAMPLES):
                y = -1 + (py * SAMPLES + sy + 0.5) * step
                for sx in range(SAMPLES):
                    x = -1 + (px * SAMPLES + sx + 0.5) * step
                    if background(x, y):
                        bg += 1
                        fg += glyph(x / scale, y / scale)
            total = SAMPLES * SAMPLES
            alpha = bg / total
            share = fg / bg if bg else 0.0
            color = [round(t + (w - t) * share) for t, w in zip(TEAL, WHITE, strict=True)]
            rows.extend([*color, round(alpha * 255)])
    return bytes(rows)


def png(size: int, rgba_rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rgba_rows, 9)) + chunk(
        b"IEND", b"")


def svg() -> str:
    def ellipse(e: tuple[float, float, float, float], fill: str) -> str:
        cx, cy, rx, ry = (round(v * 0.8 * 256 + (256 if i < 2 else 0), 2) for i, v in enumerate(e))
        return f'<ellipse cx="{cx}" cy="{cy}" rx="{rx}" ry="{ry}" fill="{fill}"/>'

    teal = "#{:02x}{:02x}{:02x}".format(*TEAL)
    lenses = "".join(ellipse(e, "white") for e in LENSES)
    eyes = "".join(ellipse(e, "black") for e in EYES)
    radius = round(CORNER * 256, 2)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
        f'<mask id="m"><rect width="512" height="512" fill="black"/>{lenses}{eyes}</mask>'
        f'<rect width="512" height="512" rx="{radius}" fill="{teal}"/>'
        '<rect width="512" height="512" fill="white" mask="url(#m)"/></svg>\n'
    )


def write_icons(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        (folder / f"icon-{size}.png").write_bytes(png(size, render(size, maskable=False)))
    (folder / "icon-maskable-512.png").write_bytes(png(512, render(512, maskable=True)))
    (folder / "icon.svg").write_text(svg(), encoding="utf-8")


if __name__ == "__main__":
    write_icons(Path(sys.argv[1] if len(sys.argv) > 1 else "web/icons"))
