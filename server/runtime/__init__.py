"""What an instance runs: the room service (exactly-once changes through the store), the hub
(fan-out of each seat's view to its connections), the bots and timers, and the instance that
wires them to a store."""
