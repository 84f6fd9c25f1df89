"""The built-in tools (terminal, processes, files, search, todo, memory, session search, clarify, web,
vision), each module a `TOOLS` list for `agent.toolkit`; `agent.session.catalogue` gathers them."""
