"""The images waiting to go with the next message: added by `/image FILE`, a pasted or typed path, or the
clipboard; shown as badges in the `AttachmentBar`; taken (and cleared) when the message is sent.

Images are stored by content as soon as they are attached (`agent.images.save_image`), so what is sent is
what the user saw in the badge even if the file changes or goes away afterwards. Reading, checking and
converting an image happens on a thread of its own (one, so images attach in the order given): a large
image never holds the UI, and one too large to decode is refused from its header in one line.
"""

from __future__ import annotations

import queue
import shlex
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from agent.api import ImageError, ImageRef, image_paths, save_image
from hermes_tui.typed_path import typed_path
from widgets.attachment_bar import AttachmentBar

MAX_ATTACHMENTS = 10
Report = Callable[[str, str], object]  # (notice kind, text)
Source = Path | tuple[bytes, str]
Saved = list[ImageRef | str]  # each source's stored image, or why it was not attached


class Attachments:
    def __init__(self, bar: AttachmentBar, hermes_home: Path, cwd: Path, report: Report) -> None:
        self.bar = bar
        self.hermes_home = hermes_home
        self.cwd = cwd
        self.report = report
        self._refs: list[ImageRef] = []
        self._work: queue.SimpleQueue[tuple[list[Source], Callable[[], object] | None]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    @property
    def refs(self) -> tuple[ImageRef, ...]:
        return tuple(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def add(self, sources: Iterable[Source], *, then: Callable[[], object] | None = None) -> None:
        """Attach each source (a file, or (bytes, name) from the clipboard) off the UI thread; say why one
        cannot be. `then` runs (on the UI thread) once they are attached."""
        batch = [typed_path(source, self.cwd) if isinstance(source, Path) else source for source in sources]
        if not batch:
            if then is not None:
                then()
            return
        self._work.put((batch, then))
        if self._thread is None:
            self._thread = threading.Thread(target=self._save_all, name="attach-images", daemon=True)
            self._thread.start()

    def _save_all(self) -> None:
        """The thread: each batch saved in order, its result handed to the UI thread."""
        while True:
            batch, then = self._work.get()
            saved: Saved = []
            for source in batch:
                try:
                    if isinstance(source, Path):
                        saved.append(save_image(source, self.hermes_home))
                    else:
                        saved.append(save_image(source[0], self.hermes_home, name=source[1]))
                except ImageError as exc:
                    saved.append(f"Not attached: {exc}.")
                except Exception as exc:  # never a traceback, never a thread gone for the next image
                    saved.append(f"Not attached: {type(exc).__name__}: {exc}.")
            try:
                self.bar.app.call_from_thread(self._attached, saved, then)
            except RuntimeError:  # the app is closing
                return

    def _attached(self, saved: Saved, then: Callable[[], object] | None) -> None:
        full = False
        for item in saved:
            if isinstance(item, str):
                self.report("warn", item)
            elif len(self._refs) >= MAX_ATTACHMENTS:
                full = True
            else:
                self._refs.append(item)
        if full:
            self.report("warn", f"At most {MAX_ATTACHMENTS} images go with one message.")
        self._show()
        if then is not None:
            then()

    def add_typed(self, argument: str) -> None:
        """`/image FILE...`: paths relative to the session's directory, quoted when they have spaces."""
        whole = typed_path(argument, self.cwd)
        try:
            one_file = whole.is_file()
        except OSError:  # a name too long: not one file (the words are tried, and each says why not)
            one_file = False
        if one_file:
            self.add([whole])
            return
        try:
            words = shlex.split(argument)
        except ValueError as exc:
            self.report("warn", f"Cannot read the file names: {exc}.")
            return
        self.add(Path(w) for w in words)

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
