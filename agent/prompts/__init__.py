"""What the model is told: the system prompt built once per session (`system`), what it takes from
`$HERMES_HOME` (`sources`, `memory_snapshot`), and the personality appended on the wire only."""
