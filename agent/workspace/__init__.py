"""The project's files as a message refers to them: the tree as git sees it (`file_tree`), `@` mentions
(`mentions`) and ranking paths against what was typed (`path_match`)."""
