"""One conversation as the engine runs it: the `Session` (`session`), its turns (`turn`, with `model_call`,
`recovery`, `reply_writer`, `tool_batch`), where its calls go (`route`), its context compression, titles,
learning nudges, the replies that are not answers, what a store failure says, trajectories, and the
catalogue of tools a session may offer (`catalogue`: the built-ins, the skills' tools, delegation)."""
