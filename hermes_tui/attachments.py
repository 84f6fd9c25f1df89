"""The images waiting to go with the next message: added by `/image FILE`, a pasted or typed path, or the
clipboard; shown as badges in the `AttachmentBar`; taken (and cleared) when the message is sent.

Images are stored by content as soon as they are attached (`agent.images.save_image`), so what is sent is
what the user saw in the badge even if the file changes or goes away afterwards.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.api import ImageError, ImageRef, image_paths, save_image
from widgets.attachment_bar import AttachmentBar

MAX_ATTACHMENTS = 10
Report = Callable[[str, str], object]  # (notice kind, text)


class Attachments:
    def __init__(self, bar: AttachmentBar, hermes_home: Path, cwd: Path, report: Report) -> None:
        self.bar = bar
        self.hermes_home = hermes_home
        self.cwd = cwd
        self.report = report
        self._refs: list[ImageRef] = []

    @property
    def refs(self) -> tuple[ImageRef, ...]:
        return tuple(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def add(self, sources: Iterable[Path | tuple[bytes, str]]) -> int:
        """Attach each source (a file, or (bytes, name) from the clipboard); say why one cannot be. Returns
        how many were attached."""
        added = 0
        for source in sources:
            if len(self._refs) >= MAX_ATTACHMENTS:
                self.report("warn", f"At most {MAX_ATTACHMENTS} images go with one message.")
                break
            try:
                if isinstance(source, Path):
                    path = source.expanduser()
                    ref = save_image(path if path.is_absolute() else self.cwd / path, self.hermes_home)
                else:
                    ref = save_image(source[0], self.hermes_home, name=source[1])
            except ImageError as exc:
                self.report("warn", f"Not attached: {exc}.")
                continue
            self._refs.append(ref)
            added += 1
        self._show()
        return added

    def add_typed(self, argument: str) -> int:
        """`/image FILE...`: paths relative to the session's directory, quoted when they have spaces."""
        whole = Path(argument.strip()).expanduser()
        if (whole if whole.is_absolute() else self.cwd / whole).is_file():
            return self.add([whole])
        try:
            words = shlex.split(argument)
        except ValueError as exc:
            self.report("warn", f"Cannot read the file names: {exc}.")
            return 0
        return self.add(Path(w) for w in words)

    def add_pasted(self, text: str) -> bool:
        """Attach a paste made only of image paths (a file dropped on the terminal); False: it is text."""
        paths = image_paths(text, self.cwd)
        if paths is None:
            return False
        self.add(paths)
        return True

    def remove(self, index: int) -> None:
        if 0 <= index < len(self._refs):
            del self._refs[index]
            self._show()

    def clear(self) -> None:
        self._refs.clear()
        self._show()

    def take(self) -> tuple[ImageRef, ...]:
        """The attachments for the message being sent; the bar empties."""
        refs = tuple(self._refs)
        self.clear()
        return refs

    def _show(self) -> None:
        self.bar.set_items([ref.label() for ref in self._refs])
