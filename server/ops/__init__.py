"""Running the server: settings from the environment, the ``parlor`` command, the supervisor
of worker processes and the metrics they export."""
