"""The routes: the Starlette app (HTTP API, WebSocket route, the client's files) and each
client's session, which validates its messages and turns each seated one into a room command
(:mod:`.dispatch`)."""
