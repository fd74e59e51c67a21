"""`memory-app serve`: the memory over HTTP on 127.0.0.1 for local tools (seed 004's REST
endpoints). Standard library only: http.server, a bearer token from a private file, and
the same MemoryService calls as the command line."""
