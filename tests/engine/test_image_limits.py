"""Images are checked before they are decoded: the size comes from the header, and anything over the pixel
limit (ours, 50 megapixels, or Pillow's decompression-bomb guard) is refused in one line, never decoded."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from PIL import Image, ImageFile

from agent.images.parts import encode
from agent.images.store import MAX_PIXELS, ImageError, save_image
from tests.image_bombs import png_bomb, tiff_header


@pytest.fixture
def no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decoding any pixel fails the test: a refusal must come from the header alone."""

    def load(self: ImageFile.ImageFile) -> None:
        raise AssertionError(f"decoded a {self.size} image")

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)


def test_the_169_megapixel_png_is_refused_from_its_header(tmp_path: Path, no_decoding: None) -> None:
    bomb = png_bomb(tmp_path / "bomb.png")
    assert bomb.stat().st_size < 200 * 1024  # ~170 KB that would decode to 1.6 GB as RGBA
    with pytest.raises(ImageError) as caught:
        save_image(bomb, tmp_path / "home")
    line = str(caught.value)
    assert line.startswith("bomb.png is ") and "\n" not in line
    assert "169000000 pixels" in line  # Pillow's bomb guard, as one line
    assert not (tmp_path / "home" / "tui" / "images").exists()


def test_the_100_megapixel_tiff_is_refused_from_its_header(tmp_path: Path, no_decoding: None) -> None:
    tiff = tiff_header(tmp_path / "scan.tiff")
    with pytest.warns(Image.DecompressionBombWarning), Image.open(tiff) as img:  # the header alone
        assert img.size == (10000, 10000)
    with pytest.raises(ImageError) as caught:
        save_image(tiff.read_bytes(), tmp_path / "home", name="scan.tiff")
    assert str(caught.value).startswith("scan.tiff is ") and "100000000 pixels" in str(caught.value)


def test_an_image_over_our_limit_but_under_pillows_is_refused_with_its_size(
    tmp_path: Path, no_decoding: None
) -> None:
    tiff = tiff_header(tmp_path / "wide.tiff", 8000, 7000)  # 56 MP: Pillow's guard lets it through
    assert MAX_PIXELS < 8000 * 7000
    with pytest.raises(ImageError) as caught:
        save_image(tiff, tmp_path / "home")
    assert str(caught.value) == (
        "wide.tiff is 8000×7000 (56 megapixels): images over 50 megapixels are not decoded"
    )


def test_pillows_guard_set_lower_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    picture = tmp_path / "small.png"
    Image.new("RGB", (100, 100)).save(picture)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 5000)  # 10,000 pixels is over it (not twice over)
    with pytest.raises(ImageError) as caught:
        save_image(picture, tmp_path / "home")
    assert "10000 pixels" in str(caught.value) and "\n" not in str(caught.value)


def test_an_image_within_the_limits_still_attaches(tmp_path: Path) -> None:
    picture = tmp_path / "photo.png"
    Image.new("RGB", (640, 480), (10, 20, 30)).save(picture)
    ref = save_image(picture, tmp_path / "home")
    assert (ref.width, ref.height, ref.mime) == (640, 480, "image/png")


def test_a_stored_file_replaced_by_a_bomb_is_not_decoded_for_the_wire(
    tmp_path: Path, no_decoding: None
) -> None:
    bomb = png_bomb(tmp_path / "stored.png")
    with pytest.raises(ImageError):
        encode(str(bomb), "image/png", 1024, 512)
    small = tmp_path / "ok.png"
    Image.new("RGB", (8, 8)).save(small)
    mime, data = encode(str(small), "image/png", 1 << 20, 2048)  # small enough: sent as it is
    assert mime == "image/png" and base64.b64decode(data) == small.read_bytes()
