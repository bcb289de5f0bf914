"""Number Swap: placeholder until the engine lands."""
