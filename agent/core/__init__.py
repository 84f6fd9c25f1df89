"""The vocabulary every part of the engine shares: messages, events, the UI protocol, errors, budgets, exit
reasons, the providers table, wire sanitizers, atomic files, numbers for people. Imports nothing of ours
outside `core`, so anything may import it."""
