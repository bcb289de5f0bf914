"""What one loopback send costs this machine when it wakes the process at the other end.

The room server's work per action includes about ten such sends (one to Redis, eight views,
one acknowledgement), each waking a sleeping peer. On a virtual machine a wake-up is much more
expensive than the copy itself, and it is CPU the server cannot spend on anything else.

    python -m bench.wakeup_cost
"""

from __future__ import annotations

import os
import socket
import time


def main(n: int = 5000) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    child = os.fork()
    if child == 0:
        peer, _ = listener.accept()
        while peer.recv(65536):
            pass
        os._exit(0)
    sender = socket.create_connection(("127.0.0.1", port))
    sender.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = b"x" * 3000
    # Back to back: the peer stays awake, sends just copy.
    start = time.process_time()
    for _ in range(n):
        sender.send(data)
    busy = (time.process_time() - start) / n
    # With a pause between sends the peer goes back to sleep, so every send wakes it.
    pause = 0.0005
    start = time.process_time()
    for _ in range(n):
        sender.send(data)
        time.sleep(pause)
    idle = (time.process_time() - start) / n
    start = time.process_time()
    for _ in range(n):
        time.sleep(pause)
    sleep_only = (time.process_time() - start) / n
    sender.close()
    os.waitpid(child, 0)
    print(f"send to an awake peer:        {busy * 1e6:6.1f} µs CPU")
    print(f"send that wakes a sleeping peer: {(idle - sleep_only) * 1e6:6.1f} µs CPU")


if __name__ == "__main__":
    main()
