"""Sockets and the wire: uvicorn's protocols with the bounds it lacks and the fast send path
(:mod:`.serving`), each connection's outgoing side (:mod:`.connections`), the protocol's
messages and frames (:mod:`.protocol`, :mod:`.wire`), the state messages each seat is sent
(:mod:`.state_messages`), and the limits on what a client may send or make the server log
(:mod:`.throttle`, :mod:`.clientlog`)."""
