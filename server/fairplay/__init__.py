"""Fair play: sealed deals and game records (:mod:`server.fairplay.records`), the offline
checker behind ``parlor verify`` (:mod:`server.fairplay.verify`) and the public game history
(:mod:`server.fairplay.history`). See docs/fairplay.md."""
