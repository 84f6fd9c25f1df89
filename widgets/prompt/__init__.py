"""The prompt: the text field and its bar (`input`), its big pastes (`pastes`), history search."""
