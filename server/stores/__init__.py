"""Where rooms are kept: the store contract (:mod:`server.stores.store`) and its three
implementations: Redis (with its hand-written connection, :mod:`server.stores.redis_wire`),
SQLite (the embedded store) and memory (tests)."""
