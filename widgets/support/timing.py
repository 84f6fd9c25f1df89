"""Every tuning constant of the UI's time, in one place, each with its reason.

The widgets and the app share these (the widgets may not import `hermes_tui`, so the module lives at the
lowest layer both read). Classes that tests or snapshots adjust keep a class attribute initialised from
here (`KeyOrder.SETTLE_PATIENCE`, `Transcript.PACER_HZ`, ...): the attribute is the seam, the value and its
reason are here. Rates are per second, durations in seconds. The garbage collector's object bounds are not
time: they are with the collector's policy (`hermes_tui.gc_policy`).
"""

from __future__ import annotations

# ----------------------------------------------------------------------------------------------- keys

KEY_SETTLE_PATIENCE = 1.0
"""How long a key waits for the app to settle (every pump on its path idle, the previous key's journey
ended) before it goes to the focused widget anyway: a handler stuck on a slow call must not freeze the
keyboard. Only when a widget has the focus: with none (a screen opening, a restyle moving focus) the key
keeps waiting. Late is acceptable, lost is not (`hermes_tui.key_order`)."""

KEY_RECHECK = 0.1
"""Past the patience, how often a waiting key looks again for a focused widget to go to."""

TYPING_PAUSE = 1.0
"""A question (clarify, approval) waits until the keyboard has been quiet this long before it takes focus:
keys meant for the prompt must not answer it."""

TYPING_POLL = 0.1
"""How often a waiting question looks whether the keyboard has gone quiet."""

DOUBLE_CTRL_C = 2.0
"""Two Ctrl+C within this many seconds quit (the first interrupts or clears)."""

DOUBLE_ESCAPE = 1.0
"""Two Esc within this many seconds on an empty prompt at rest open the rewind list (Claude Code's Esc Esc);
a single Esc still interrupts a running turn at once."""

COPY_TOAST = 2.0
"""How long "Copied N characters" stays up (a copy of the selection or of the entry at the cursor)."""

INPUT_QUIET_AFTER = 1.0
"""Seconds after the last input during which the input thread keeps the driver's own short `select`
timeout (its escape-sequence parser may be waiting on it); after that it waits up to
`INPUT_IDLE_TIMEOUT` (`textual_compat.input_wakeups`)."""

INPUT_IDLE_TIMEOUT = 2.0
"""Longest wait of the input thread's `select` once input is quiet (an idle app wakes that rarely)."""

# ------------------------------------------------------------------------------------ the agent's events

QUIET_WAKE_HZ = 30.0
"""At most this many wakes a second for text deltas (every other event wakes the UI at once): a delta is
on screen within ~1/30 s, and a burst of thousands a second still costs a bounded number of drains."""

QUESTION_WAIT_SLICE = 0.1
"""The asking thread waits for the UI's answer in slices this long, checking the interrupt and the
bridge's close between them (a thread blocked without a timeout keeps the process alive:
docs/architecture.md, "Measured facts")."""

ANSWER_GRACE = 5.0
"""Seconds past a question's own timeout before the asking thread stops waiting for the UI's answer."""

QUIT_WAIT = 5.0
"""How long a quit waits for the interrupted turn to be finalized (persisted) before it exits anyway."""

# ------------------------------------------------------------------------------------------ live views

PACER_HZ = 12.0
"""The transcript's one clock for what moves: running tools' output and elapsed time, the spinner, and,
while a turn runs, the drain of the agent's events (`hermes_tui.chat.pipeline`: urgent events and text
wake it at once, so the tick only bounds how long the deltas a wake held back wait). It runs only while
something moves (`widgets.transcript.pacer`)."""

RENDER_HZ = 15.0
"""At most this many renders a second of a streaming reply's (or reasoning's) open block: the latest
text is on screen within 1/15 s, and thousands of deltas a second cost 15 renders (docs/architecture.md,
"Measured facts")."""

RENDER_MAX_INTERVAL = 0.2
"""A costly render stretches its interval (to `RENDER_SLOW_FACTOR` times its cost) up to this much, never
beyond: the screen keeps moving."""

RENDER_SLOW_FACTOR = 4.0
"""A render costing c seconds is repeated at most every `4 c`: it takes at most a quarter of the UI
thread."""

RENDER_INPUT_WAIT = 0.02
"""While typed keys are on their way, a due render waits in steps this long (up to `RENDER_MAX_INTERVAL`
since the last): a key passes several queues on its way to the prompt, each behind whatever render runs."""

SPINNER_FPS = 12.0
"""The spinner's frames a second while it runs and is visible (a divisor of the pacer's ticks)."""

STATUS_TICK = 1.0
"""How often the status bar's elapsed time repaints while busy."""

QUESTION_GUARD = 0.3
"""Keys and clicks this soon after a question appears are ignored (typing-ahead protection)."""

QUESTION_TICK = 0.1
"""How often a question's countdown and the interrupt flag are checked."""

CURSOR_BLINK_TIMEOUT = 10.0
"""Seconds without a key, click or focus after which the prompt's cursor stops blinking and stays shown
(GTK's `gtk-cursor-blink-timeout` default): a blinking cursor repainted twice a second for as long as the
app was open, most of the CPU an idle app used."""

# ------------------------------------------------------------------------------- the collector's timing

GC_AFTER_DRAWN = 0.3
"""A turn's collection runs this long after every reply's text is drawn, not right after the frame: a
collection holds the GIL, and the writer thread still had the last frame to send (last byte -> screen went
from 0.05 to 0.4 s)."""

GC_DRAWN_POLL = 0.1
"""How often the turn's collection looks whether the replies are drawn (a burst's reply is still drawn in
slices after its turn ended)."""

GC_HISTORY_AT_REST = 1.0
"""A resumed session's entries are made at once; the collection waits this long after them."""

# ----------------------------------------------------------------------------------------------- exit

SIGNAL_EXIT_PATIENCE = 6.0
"""SIGTERM, SIGHUP or SIGINT asks the app to quit as Ctrl+Q does (the turn finalised, background processes
stopped, the terminal restored by Textual); if it has not ended this long after, the terminal is restored
directly, the children are stopped, and the process ends (`hermes_tui.exit_signals`). Longer than an
orderly quit may take: the turn's end (3 s) and a background process that ignores SIGTERM (2 s)."""
