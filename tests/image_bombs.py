"""Images whose header promises far more pixels than their file holds, made cheaply for the tests: a PNG of
13000×13000 (169 megapixels, 1.6 GB as RGBA) from ~170 KB of zlib, and a 100-megapixel TIFF header with no
strip data."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def png_bomb(path: Path, side: int = 13000) -> Path:
    """A valid 8-bit greyscale PNG of `side`×`side` black pixels: every row compresses to almost nothing."""
    row = b"\x00" * (side + 1)  # filter byte + pixels
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row * 100) for _ in range(side // 100))
    body += packer.compress(row * (side % 100)) + packer.flush()
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")
    )
    return path


def tiff_header(path: Path, width: int = 10000, height: int = 10000) -> Path:
    """A little-endian TIFF whose one IFD describes `width`×`height` 8-bit greyscale pixels in one strip that
    is not there (the file ends after the IFD)."""
    entries = [
        (256, 4, 1, width),  # ImageWidth (LONG)
        (257, 4, 1, height),  # ImageLength
        (258, 3, 1, 8),  # BitsPerSample (SHORT)
        (259, 3, 1, 1),  # Compression: none
        (262, 3, 1, 1),  # Photometric: black is zero
        (273, 4, 1, 8 + 2 + 12 * 10 + 4),  # StripOffsets: right after the IFD
        (277, 3, 1, 1),  # SamplesPerPixel
        (278, 4, 1, height),  # RowsPerStrip
        (279, 4, 1, width * height),  # StripByteCounts
        (284, 3, 1, 1),  # PlanarConfiguration: contiguous
    ]
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        packed = struct.pack("<HI", value, 0)[:4] if kind == 3 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, kind, count) + packed
    path.write_bytes(b"II*\x00" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0))
    return path
