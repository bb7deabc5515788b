"""droidverify: build, verify and train LLM agents that operate Android apps."""

from droidverify.errors import DroidVerifyError

__version__ = "0.1.0"
__all__ = ["DroidVerifyError", "__version__"]
