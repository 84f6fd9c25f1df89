"""One conversation as the engine runs it: the turn loop (`loop.Agent`), its context compression, titles,
learning nudges, the replies that are not answers, what a store failure says, trajectories, and the
catalogue of tools a session may offer (`catalogue`: the built-ins, the skills' tools, delegation)."""
