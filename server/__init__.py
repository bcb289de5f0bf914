"""Parlor's room server: all I/O lives here (HTTP, WebSockets, stores, bots, timers)."""
