"""Server-sent events from raw response bytes, a whole network read at a time.

The SDKs decode the same stream into one model object per event (a pydantic model for every chunk of a
chat completion); on a fast stream that was a quarter of the process's CPU, in the reader thread, holding
the GIL against the UI. The transports read the SDK's raw streaming response instead and decode it here:
`SSEDecoder.feed()` takes whatever bytes one read returned and gives back every event they completed, so
a burst of hundreds of events costs one call, not hundreds.

The rules are the SSE spec's, as the SDKs apply them: lines end in LF, CR or CRLF; a blank line dispatches
an event that has any field; `:` starts a comment; one space after the colon is dropped; several `data`
lines join with LF; an unterminated last event is dropped when the stream ends.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    event: str | None
    data: str


class SSEDecoder:
    """Incremental: feed it byte chunks in order, get the events each chunk completed."""

    def __init__(self) -> None:
        self._tail = b""  # an unfinished line (or a CR whose LF may come next)
        self._event: str | None = None
        self._data: list[bytes] = []
        self._retry = False
        self._last_id = False  # as the spec says, the last event id outlives the event that set it

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        buf = self._tail + chunk if self._tail else chunk
        if b"\r" in buf:
            hold = buf.endswith(b"\r")  # may be the first half of a CRLF split across two reads
            if hold:
                buf = buf[:-1]
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            lines = buf.split(b"\n")
            self._tail = lines.pop() + (b"\r" if hold else b"")
        else:
            lines = buf.split(b"\n")
            self._tail = lines.pop()
        return self._lines(lines)

    def finish(self) -> list[ServerSentEvent]:
        """The stream ended: a last line without its newline still counts, an undispatched event not."""
        tail, self._tail = self._tail, b""
        if not tail:
            return []
        return self._lines(tail.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"))

    def _lines(self, lines: list[bytes]) -> list[ServerSentEvent]:
        out: list[ServerSentEvent] = []
        for line in lines:
            if not line:
                if self._data or self._event or self._last_id or self._retry:
                    out.append(ServerSentEvent(self._event, b"\n".join(self._data).decode("utf-8")))
                    self._event = None
                    self._data = []
                    self._retry = False
                continue
            if line[0] == 58:  # ":" a comment (keep-alives)
                continue
            name, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                self._data.append(value)
            elif name == b"event":
                self._event = value.decode("utf-8")
            elif name == b"id":
                if b"\0" not in value:
                    self._last_id = True
            elif name == b"retry":
                try:
                    int(value)
                except ValueError:
                    continue
                self._retry = True
        return out
