"""Shared test configuration: hypothesis is derandomized so every run is reproducible."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "parlor",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("parlor")
