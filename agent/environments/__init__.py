"""Where tools run: the session's environment, and the OS sandbox of the local one (`sandbox`)."""
