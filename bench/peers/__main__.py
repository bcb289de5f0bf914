"""``python -m bench.peers``: Parlor and the real peers in rounds (see ``bench/peers``)."""

from bench.peers import main

main()
