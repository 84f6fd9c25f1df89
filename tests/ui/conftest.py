"""UI tests share the root conftest's `textual_compat.install(eager=True)`: every app in them runs on the
same Textual, patched or not, whichever test a worker runs first."""
