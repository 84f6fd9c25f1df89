"""`execute_code`: a Python script run in a child process that calls the session's own tools over RPC."""
