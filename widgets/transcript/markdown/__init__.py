"""Line-cached text that grows while you watch: Markdown blocks, plain-text lines and their line cache,
plain Python (testable without a screen); the transcript's entries draw with them
(`widgets/transcript/entries/`)."""
