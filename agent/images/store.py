"""Images the user attached, kept by content: `$HERMES_HOME/tui/images/<2 hex>/<sha256>.<ext>`.

A message stores an `ImageRef` (hash, type, name, size) in its `meta`, never the bytes: the transcript, the
FTS index and exports stay text, and the same screenshot attached twice is one file. Formats the providers
take (PNG, JPEG, GIF, WebP) are kept as they are; anything else Pillow reads (BMP, TIFF, ...) is stored as
PNG. A PNG whose optional (ancillary) chunk fails its checksum is kept without that chunk, as the PNG
specification lets a decoder do (Pillow refuses the whole file; browsers show it): the MCP reference server's
`get-tiny-image` sends one. Pillow is imported on first use only.
"""

from __future__ import annotations

import io
import os
import struct
import warnings
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.core.humanize import format_size
from agent.core.user_paths import expand_user

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

MAX_SOURCE_BYTES = 50 * 1024 * 1024
MAX_PIXELS = 50_000_000
"""The most pixels an image may have to be decoded (50 megapixels: 8660×5773, ~200 MB as RGBA)."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
KEPT_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


class ImageError(Exception):
    """An image that cannot be attached; the message says why, in one line."""


@dataclass(frozen=True)
class ImageRef:
    sha256: str
    mime: str
    name: str  # the file name it came from ("clipboard.png" for a paste)
    width: int
    height: int
    size: int  # bytes as stored

    @property
    def filename(self) -> str:
        return f"{self.sha256}.{EXTENSIONS.get(self.mime, 'png')}"

    def path(self, hermes_home: Path) -> Path:
        return images_dir(hermes_home) / self.sha256[:2] / self.filename

    def label(self) -> str:
        """What a badge shows: `shot.png · 1280×720 · 210 KB`."""
        return f"{self.name} · {self.width}×{self.height} · {format_size(self.size)}"

    def to_meta(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_meta(cls, data: Any) -> ImageRef | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                sha256=str(data["sha256"]),
                mime=str(data["mime"]),
                name=str(data.get("name") or "image"),
                width=int(data.get("width") or 0),
                height=int(data.get("height") or 0),
                size=int(data.get("size") or 0),
            )
        except (KeyError, TypeError, ValueError):
            return None


def images_dir(hermes_home: Path) -> Path:
    return hermes_home / "tui" / "images"


def refs_of(meta: dict[str, Any] | None) -> list[ImageRef]:
    """The images a stored message carries (its `meta["images"]`)."""
    items = (meta or {}).get("images") or []
    return [ref for item in items if (ref := ImageRef.from_meta(item)) is not None]


def check_size(size: int, name: str) -> None:
    """The one size limit of an image (or any payload the app decodes: an MCP server's audio, a blob):
    ImageError past `MAX_SOURCE_BYTES`, before anything is read into memory or decoded."""
    if size > MAX_SOURCE_BYTES:
        raise ImageError(f"{name} is {format_size(size)}: over the {MAX_SOURCE_BYTES // 2**20} MB limit")


def decode_base64(data_b64: str, name: str) -> bytes:
    """A base64 payload's bytes (an MCP server's image): its size is checked on the text first
    (`check_size`), so a multi-gigabyte string is never decoded; ImageError when too large or not base64."""
    import base64
    import binascii

    check_size(len(data_b64) * 3 // 4, name)
    try:
        return base64.b64decode(data_b64, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise ImageError(f"{name} is not base64: {exc}") from None


def save_image(source: Path | bytes, hermes_home: Path, *, name: str | None = None) -> ImageRef:
    """Validate an image file (or bytes) and store it by content; raises ImageError with the reason."""
    if isinstance(source, Path):
        path = expand_user(source)
        name = name or path.name
        try:
            size = path.stat().st_size
            if not path.is_file():
                raise ImageError(f"{path} is not a file")
            check_size(size, path.name)
            data = path.read_bytes()
        except FileNotFoundError:
            raise ImageError(f"no such file: {path}") from None
        except OSError as exc:
            raise ImageError(f"cannot read {path}: {exc.strerror or exc}") from None
    else:
        data = source
        name = name or "image.png"
        check_size(len(data), name)
    data = without_broken_ancillary_chunks(data)
    with open_checked(data, name) as img:
        try:
            img.load()
            fmt = (img.format or "").upper()
            width, height = img.size
            if fmt not in KEPT_FORMATS:
                out = io.BytesIO()
                img.save(out, format="PNG")
                data, fmt = out.getvalue(), "PNG"
        except (OSError, ValueError) as exc:
            raise ImageError(f"{name} is {exc}") from None
    ref = ImageRef(
        sha256=_sha256(data),
        mime=KEPT_FORMATS[fmt],
        name=name,
        width=width,
        height=height,
        size=len(data),
    )
    target = ref.path(hermes_home)
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    return ref


def without_broken_ancillary_chunks(data: bytes) -> bytes:
    """A PNG without its ancillary chunks (a lowercase first letter: colour profile, text, EXIF, ...) whose
    CRC is wrong, which the PNG specification lets a decoder skip. Anything else is left as it is, for Pillow
    to judge: another format, a PNG without such a chunk, and what follows a chunk whose length does not fit
    (the walk stops there)."""
    if not data.startswith(PNG_SIGNATURE):
        return data
    kept = [PNG_SIGNATURE]
    dropped = False
    at = len(PNG_SIGNATURE)
    while at < len(data):
        length = struct.unpack(">I", data[at : at + 4])[0] if at + 12 <= len(data) else len(data)
        end = at + 12 + length
        if end > len(data):
            kept.append(data[at:])
            break
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : end])
        if kind[:1].islower() and zlib.crc32(kind + body) != crc:
            dropped = True
        else:
            kept.append(data[at:end])
        at = end
        if kind == b"IEND":
            break
    return b"".join(kept) if dropped else data


def pixel_limit() -> int:
    """Ours, or Pillow's bomb guard if someone set it lower."""
    from PIL import Image

    guard = Image.MAX_IMAGE_PIXELS
    return min(MAX_PIXELS, guard) if guard else MAX_PIXELS


@contextmanager
def open_checked(data: bytes, name: str) -> Iterator[PILImage]:
    """The image, opened (its header read, nothing decoded) and checked against `pixel_limit()`; raises
    ImageError with one line for anything Pillow cannot read or that is too large to decode."""
    from PIL import Image, UnidentifiedImageError

    # Pillow warns (on stderr) past MAX_IMAGE_PIXELS and raises past twice that: both are refusals here.
    warnings.filterwarnings("error", category=Image.DecompressionBombWarning)
    try:
        img = Image.open(io.BytesIO(data))
    except UnidentifiedImageError:
        raise ImageError(f"{name} is not an image Pillow can read") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageError(f"{name} is refused: {' '.join(str(exc).split())}") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageError(f"{name} is {' '.join(str(exc).split())}") from None
    with img:
        width, height = img.size
        limit = pixel_limit()
        if width * height > limit:
            raise ImageError(
                f"{name} is {width}×{height} ({width * height / 1e6:.0f} megapixels): images over "
                f"{limit / 1e6:.0f} megapixels are not decoded"
            )
        yield img


def _sha256(data: bytes) -> str:
    """hashlib loads OpenSSL (~8 ms): imported on the first image, not on every start (the chat imports
    this module)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()
